#!/usr/bin/env python3
"""access_test — the HTTP side of a gateway with security.curve, from the
outside, as docs/security.md ("HTTP tokens") and docs/api.md ("Access")
say: certificates made by pyzmq, tokens made and hashed here (SHA-256 of
the token's text in the certificate's token_sha256), events stored by a
CURVE worker over the wire protocol.

  - no Authorization, a token no certificate names, another scheme: 401
    UNAUTHENTICATED with WWW-Authenticate: Bearer, on the API and /metrics;
    /healthz, /readyz and the console's files need none;
  - GET whoami names the token's principal, role, streams and verbs;
  - a viewer reads (events, one event, groups, stats, /metrics) and may not
    act: REPLAY, REDELIVER, RESOLVE, pause are 403 FORBIDDEN;
  - a viewer of one stream lists that stream only;
  - a worker's token may not read;
  - an operator replays, and the audit log names them for it and for the
    viewer's refused REPLAY;
  - live events (events/stream) need a token too, and a viewer's stream
    carries the new events; once its certificate is removed from the
    clients directory the stream ends with "event: error" UNAUTHENTICATED,
    and the token is 401 from the next request on (within the 2 s the
    directory is looked at);
  - a second certificate naming a token hash already taken is left out;
  - dlqctl keygen --token makes the operator's pair and token: the token
    is printed once and is in neither file, the certificate has its hash.

    access_test.py DLQD DLQCTL
"""
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import (EventStream, Gateway, WireClient, check, curve_keys, failures, free_port,  # noqa: E402
                          http, wait_http)


def token_for(name):
    return "t_%s_%s" % (name, secrets.token_urlsafe(32))


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


class Http:
    def __init__(self, base, token=None):
        self.base, self.token = base, token

    def call(self, method, path, body=None, query=None, headers=None):
        """status, headers, JSON body (or text)."""
        h = {} if self.token is None else {"Authorization": "Bearer " + self.token}
        if method != "GET":
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else json.dumps(body).encode()
        status, got_headers, text = http(url, method, data, h)
        try:
            return status, got_headers, json.loads(text)
        except ValueError:
            return status, got_headers, text


def main():
    dlqd = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="dlqd-access-")
    secret_dir, clients = os.path.join(work, "keys"), os.path.join(work, "clients")
    os.makedirs(secret_dir)
    os.makedirs(clients)
    server = curve_keys(secret_dir, "gateway", {"name": "gateway"})
    tokens = {name: token_for(name) for name in ("viewer", "viewer-orders", "worker")}
    roles = {"viewer": ("viewer", "*"), "viewer-orders": ("viewer", "orders"), "worker": ("worker", "orders,billing")}
    pairs = {name: curve_keys(secret_dir, name, {"name": name, "role": role, "streams": streams,
                                                 "token_sha256": sha256(tokens[name])}, clients)
             for name, (role, streams) in roles.items()}
    tokens["operator"] = keygen(sys.argv[2], secret_dir, clients)
    # a second file claiming the viewer's token hash: left out, so the token stays the viewer's
    curve_keys(secret_dir, "zz-thief", {"name": "zz-thief", "role": "admin",
                                        "token_sha256": sha256(tokens["viewer"])}, clients)
    port, http_port, replay_port = free_port(), free_port(), free_port()
    endpoint = "tcp://127.0.0.1:%d" % port
    audit = os.path.join(work, "audit.log")
    config = """
gateway: { listen = ["%s"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
replay: { listen = "tcp://127.0.0.1:%d"; };
security: { curve: { server_secret_key = "%s/gateway.key_secret"; clients = "%s"; };
            audit_log = "%s"; };
sinks: { audit: { type = "noop"; }; };
defaults: { chain = ["audit"]; };
""" % (endpoint, work, http_port, replay_port, secret_dir, clients, audit)
    gateway = Gateway(dlqd, work, config)
    base = "http://127.0.0.1:%d/" % http_port
    ctx = zmq.Context()
    try:
        wait_http(base + "healthz")
        worker = WireClient(ctx, endpoint, server_public=server[0], pair=pairs["worker"])
        ids = {}

        def put(stream):
            e = {"id": str(uuid.uuid4()), "streamName": stream, "error": {"type": "Timeout", "message": "slow"}}
            status, reply = worker.call("PUT", e)
            check(status == "OK", "the worker stores an event of %s: %s" % (stream, reply))
            return e["id"]
        for stream in ("orders", "billing"):
            for i in range(3):
                ids.setdefault(stream, []).append(put(stream))
        status, ping = worker.call("PING", {})
        check(status == "OK" and ping.get("principal", {}).get("name") == "worker"
              and ping["principal"]["role"] == "worker" and ping["principal"]["streams"] == ["orders", "billing"]
              and "PUT" in ping["principal"]["verbs"] and "LIST" not in ping["principal"]["verbs"],
              "a CURVE client's PING names its principal and verbs: %s" % ping.get("principal"))
        checks(base, tokens, ids, clients, audit, put)
        worker.s.close()
    finally:
        status = gateway.stop()
        ctx.destroy(linger=0)
    check(status == 0, "dlqd exits 0 on SIGTERM")
    log = open(os.path.join(work, "dlqd.log")).read()
    check("zz-thief" in log and "token_sha256 of a file read before it" in log,
          "a second certificate with a token hash already taken is left out, with a line saying why")
    check(all(t not in log and t not in open(audit).read() for t in tokens.values()),
          "no token is in a log line or the audit log")
    if failures:
        print("%d check(s) failed; dlqd's files are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def keygen(dlqctl, secret_dir, clients):
    """The operator's pair and token by dlqctl keygen --token; its public
    certificate copied into clients. The token."""
    run = subprocess.run([dlqctl, "keygen", "operator", "--role", "operator", "--streams", "*", "--token",
                          "--dir", secret_dir], capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if line.startswith("token: ")]
    check(run.returncode == 0 and len(lines) == 1,
          "dlqctl keygen --token prints one token line%s" % ("" if lines else ": " + run.stdout + run.stderr))
    token = lines[0][len("token: "):] if lines else ""
    public = open(os.path.join(secret_dir, "operator.key")).read()
    secret = open(os.path.join(secret_dir, "operator.key_secret")).read()
    check(token.startswith("dlqd_") and len(token) == 48 and token not in public and token not in secret
          and sha256(token) in public, "the token is dlqd_ and 43 characters, in no file, its SHA-256 in the "
          "certificate")
    shutil.copy(os.path.join(secret_dir, "operator.key"), clients)
    return token


def unauthenticated(got, what):
    status, headers, body = got
    check(status == 401 and isinstance(body, dict) and body.get("code") == "UNAUTHENTICATED"
          and headers.get("WWW-Authenticate", "").startswith("Bearer"),
          "%s: 401 UNAUTHENTICATED with WWW-Authenticate: Bearer (%s %s)" % (what, status, body))


def checks(base, tokens, ids, clients, audit, put):
    api = base + "api/v1/"
    nobody, stranger = Http(api), Http(api, token_for("stranger"))
    viewer, narrow = Http(api, tokens["viewer"]), Http(api, tokens["viewer-orders"])
    operator, worker = Http(api, tokens["operator"]), Http(api, tokens["worker"])

    unauthenticated(nobody.call("GET", "events"), "no Authorization header")
    unauthenticated(stranger.call("GET", "events"), "a token no certificate names")
    unauthenticated(Http(api).call("GET", "events", headers={"Authorization": "Basic dXNlcjpwYXNz"}),
                    "a Basic Authorization")
    unauthenticated(Http(api).call("GET", "events", headers={"Authorization": "Bearer " + tokens["viewer"] + " x"}),
                    "a Bearer with a second word")
    unauthenticated(nobody.call("POST", "replays", {"all": True, "dryRun": True}), "an unauthenticated REPLAY")
    unauthenticated(Http(base).call("GET", "metrics"), "/metrics without a token")
    for method, path, query, body in (("GET", "nope", None, None), ("GET", "events", {"bogus": "1"}, None),
                                      ("PATCH", "whoami", None, None), ("GET", "events/stream", {"limit": "1"}, None)):
        unauthenticated(nobody.call(method, path, body, query), "%s %s without a token: 401 before anything else"
                        % (method, path))
    unauthenticated(Http(api, "a\tb").call("GET", "events"), "a token with a tab")
    status, _, text = Http(base, tokens["viewer"]).call("GET", "metrics")
    check(status == 200 and "dlqd_requests_total" in text, "/metrics with a viewer's token: %s" % status)
    for path in ("healthz", "readyz", "", "console.js"):
        status, _, _ = Http(base).call("GET", path)
        check(status == 200, "/%s needs no token: %s" % (path, status))

    status, _, me = viewer.call("GET", "whoami")
    p = me.get("principal", {}) if isinstance(me, dict) else {}
    check(status == 200 and p.get("name") == "viewer" and p.get("role") == "viewer" and p.get("streams") == ["*"]
          and "LIST" in p.get("verbs", []) and "REPLAY" not in p.get("verbs", [])
          and "REDELIVER" not in p.get("verbs", []), "whoami names the viewer and its verbs: %s" % me)
    status, _, me = operator.call("GET", "whoami")
    check(status == 200 and me["principal"]["role"] == "operator" and "REPLAY" in me["principal"]["verbs"],
          "whoami names the operator, who may REPLAY: %s" % me.get("principal"))

    status, _, page = viewer.call("GET", "events")
    check(status == 200 and len(page["events"]) == 6, "a viewer lists every stream's events: %s" % status)
    status, _, one = viewer.call("GET", "events/" + ids["billing"][0])
    check(status == 200 and ids["billing"][0] in json.dumps(one), "a viewer reads one event: %s" % status)
    for path in ("groups", "stats", "count", "replays", "checkpoints"):
        status, _, _ = viewer.call("GET", path)
        check(status == 200, "a viewer reads %s: %s" % (path, status))
    for method, path, body in (("POST", "replays", {"streamName": "orders", "all": True, "target": "endpoint"}),
                               ("POST", "replays", {"all": True, "dryRun": True}),
                               ("POST", "sinks/audit/redeliver", {}),
                               ("POST", "events/%s/resolve" % ids["orders"][0], {}),
                               ("POST", "replays/%s/pause" % uuid.uuid4(), None)):
        status, _, err = viewer.call(method, path, body)
        check(status == 403 and err.get("code") == "FORBIDDEN" and "viewer" in err.get("message", ""),
              "a viewer may not %s %s: %s %s" % (method, path, status, err))

    status, _, me = narrow.call("GET", "whoami")
    verbs = me.get("principal", {}).get("verbs", []) if isinstance(me, dict) else []
    check("LIST" in verbs and "STATS" not in verbs and "REPLAY.STATUS" not in verbs,
          "whoami of a viewer of orders leaves out the verbs that look across every stream: %s" % verbs)
    status, _, page = narrow.call("GET", "events", query={"streamName": "orders"})
    check(status == 200 and len(page["events"]) == 3
          and all(e["streamName"] == "orders" for e in page["events"]), "a viewer of orders lists orders")
    status, _, err = narrow.call("GET", "events")
    check(status == 403 and err["code"] == "FORBIDDEN", "a viewer of orders may not list every stream: %s" % status)
    status, _, err = narrow.call("GET", "events/" + ids["billing"][0])
    check(status in (403, 404) and err["code"] in ("FORBIDDEN", "NOT_FOUND"),
          "a viewer of orders does not read an event of billing: %s %s" % (status, err))
    status, _, err = worker.call("GET", "events", query={"streamName": "orders"})
    check(status == 403 and err["code"] == "FORBIDDEN", "a worker's token may not list: %s" % status)

    status, _, dry = operator.call("POST", "replays", {"streamName": "orders", "all": True, "dryRun": True})
    check(status == 200 and dry.get("count") == 3, "an operator's dry run counts orders' 3 events: %s" % dry)
    status, _, job = operator.call("POST", "replays", {"streamName": "orders", "all": True, "target": "endpoint"})
    check(status == 200 and "job" in job, "an operator starts a replay job: %s %s" % (status, job))
    lines = []
    deadline = time.time() + 5
    while time.time() < deadline:
        lines = [json.loads(line) for line in open(audit)]
        if any(a["principal"] == "operator" and a["verb"] == "REPLAY" and a["result"].startswith("OK")
               for a in lines):
            break
        time.sleep(0.1)
    check(any(a["principal"] == "operator" and a["verb"] == "REPLAY" and a["result"].startswith("OK")
              and "orders" in a["request"] for a in lines), "the audit log names the operator's REPLAY")
    check(any(a["principal"] == "viewer" and a["verb"] == "REPLAY" and a["result"].startswith("ERR FORBIDDEN")
              for a in lines), "the audit log names the viewer's refused REPLAY")
    check(any(a["principal"] == "(unknown token)" and a["result"].startswith("ERR UNAUTHENTICATED")
              and a["verb"] == "PING" for a in lines), "the audit log has the unknown token's refusal")
    check(any(a["principal"] == "(unknown token)" and a["verb"] == "HTTP" and a["request"] == "GET /api/v1/nope"
              for a in lines), "and the refusals without a token, with the method and path")
    status, _, stats = viewer.call("GET", "stats")
    refused = stats.get("counters", {}).get("forbidden", {}) if isinstance(stats, dict) else {}
    check(isinstance(refused, dict) and refused.get("viewer", 0) >= 5 and refused.get("(unknown token)", 0) >= 10,
          "STATS counts the viewer's and the unknown token's refusals: %s" % refused)

    port = int(base.split(":")[2].split("/")[0])
    refused = EventStream(port, "/api/v1/events/stream")
    check(refused.status == 401 and "Bearer" in refused.headers.get("WWW-Authenticate", ""),
          "a stream without a token: 401 (%s)" % refused.status)
    refused = EventStream(port, "/api/v1/events/stream", {"Authorization": "Bearer " + tokens["viewer-orders"]})
    check(refused.status == 403, "a viewer of orders may not stream every stream: %s" % refused.status)
    live = EventStream(port, "/api/v1/events/stream", {"Authorization": "Bearer " + tokens["viewer"]})
    check(live.status == 200, "a viewer's stream opens: %s" % live.status)
    fresh = put("billing")
    got = live.next(10)
    check(got is not None and got[0] == "failure" and json.loads(got[1])["id"] == fresh,
          "the viewer's stream carries a new event: %s" % (got,))

    os.remove(os.path.join(clients, "zz-thief.key"))      # else its token hash would be free for it to take
    os.remove(os.path.join(clients, "viewer.key"))
    deadline, status = time.time() + 10, 200
    while time.time() < deadline and status == 200:
        status, _, _ = viewer.call("GET", "events")
        time.sleep(0.2)
    unauthenticated(viewer.call("GET", "events"), "the token of a certificate removed from the clients directory")
    got = live.next(10)
    check(got is not None and got[0] == "error" and json.loads(got[1])["code"] == "UNAUTHENTICATED"
          and live.next(5) is None and live.ended, "the revoked viewer's stream ends with event: error (%s)" % (got,))
    status, _, _ = operator.call("GET", "events")
    check(status == 200, "another principal's token goes on: %s" % status)


if __name__ == "__main__":
    main()
