#!/usr/bin/env python3
"""api_test — the HTTP API under /api/v1/ from the outside, against its
OpenAPI document (docs/openapi.yaml) and docs/api.md.

A dlqd with two sinks (one failing a stream's events) is filled over the
wire protocol; then every route of the OpenAPI document is called at least
once over HTTP, and each answer is checked: its status is one the document
lists for the operation, its body validates (jsonschema, Draft 2020-12)
against the schema of that status, and it says what the workload implies
(the events listed are the ones stored, a replay's dry run counts them, a
redelivery requeues the failed ones, a checkpoint written reads back).
Error statuses follow the table of docs/api.md; the browser guards refuse
another Host, another Origin and a state-changing request without
Content-Type: application/json; docs/api.md's route table and the
document's paths list the same routes.

    api_test.py DLQD REPO
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import jsonschema
import yaml
import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import EventStream, Gateway, check, failures, free_port, wait_http  # noqa: E402

seen_operations = set()


class Api:
    def __init__(self, base, spec):
        self.base = base
        self.spec = spec
        self.resolver = jsonschema.RefResolver("", spec)

    def operation(self, method, path):
        """The OpenAPI operation of a concrete path (its template matched)."""
        for template, item in sorted(self.spec["paths"].items(), key=lambda kv: kv[0].count("{")):
            pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
            if re.match(pattern, "/" + path) and method.lower() in item:
                return template, item[method.lower()]
        return None, None

    def call(self, method, path, query=None, body=None, headers=None, validate=True):
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        h = {"Content-Type": "application/json"} if method != "GET" else {}
        h.update(headers or {})
        req = urllib.request.Request(url, method=method, data=data, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, hdrs, raw = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, hdrs, raw = e.code, dict(e.headers), e.read()
        doc = json.loads(raw) if raw else None
        if validate:
            self.validate(method, path, status, doc)
        return status, hdrs, doc

    def validate(self, method, path, status, doc):
        template, op = self.operation(method, path)
        if not check(op is not None, "%s %s is in the OpenAPI document" % (method, path)):
            return
        seen_operations.add((method.lower(), template))
        response = op["responses"].get(str(status))
        if response is None and status >= 400:
            response = op["responses"].get("default")      # an error status of docs/api.md's table
        if not check(response is not None, "%s %s: status %d is one the document lists (%s)"
                     % (method, template, status, sorted(op["responses"]))):
            return
        if "$ref" in response:
            response = self.resolver.resolve(response["$ref"])[1]
        schema = response["content"]["application/json"]["schema"]
        try:
            jsonschema.Draft202012Validator(schema, resolver=self.resolver).validate(doc)
            check(True, "%s %s %d: the body validates against the document" % (method, template, status))
        except jsonschema.ValidationError as e:
            check(False, "%s %s %d: the body does not validate: %s at %s"
                  % (method, template, status, e.message, list(e.absolute_path)))


def main():
    dlqd, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    spec = yaml.safe_load(open(os.path.join(repo, "docs/openapi.yaml")))
    jsonschema.Draft202012Validator.check_schema({"$defs": spec["components"]["schemas"]})
    work = tempfile.mkdtemp(prefix="dlqd-api-")
    port, http_port, replay_port = free_port(), free_port(), free_port()
    config = """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
replay: { listen = "tcp://127.0.0.1:%d"; rate = 100000; };
sinks: { audit: { type = "noop"; }; flaky: { type = "scripted"; fail_stream = "bad"; }; };
defaults: { chain = ["audit", "flaky"]; replay_route = "endpoint"; };
""" % (port, work, http_port, replay_port)
    gateway = Gateway(dlqd, work, config)
    ctx = zmq.Context()
    print("dlqd's log: %s/dlqd.log" % work, flush=True)
    try:
        run(ctx, Api("http://127.0.0.1:%d/api/v1/" % http_port, spec), port, replay_port, spec, repo)
    finally:
        status = gateway.stop()
        ctx.destroy(linger=0)
    check(status == 0, "dlqd exits 0 on SIGTERM")
    if failures:
        print("%d check(s) failed; dlqd's files are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def run(ctx, api, port, replay_port, spec, repo):
    wire = ctx.socket(zmq.DEALER)
    wire.setsockopt(zmq.RCVTIMEO, 20000)
    wire.connect("tcp://127.0.0.1:%d" % port)
    wait_http(api.base.replace("/api/v1/", "/healthz"))
    ids = {"orders": [], "bad": []}
    for i in range(30):
        stream = "bad" if i % 3 == 0 else "orders"
        e = {"id": str(uuid.uuid4()), "streamName": stream, "error": {"type": "Timeout" if i % 2 else "Refused",
             "message": "upstream timed out"}, "metadata": {"tenant": "t%d" % (i % 2), "n": i}}
        wire.send_multipart([b"PUT", b"p%d" % i, json.dumps(e).encode()])
        status, _, _ = wire.recv_multipart()
        assert status == b"OK"
        ids[stream].append(e["id"])

    # ---- reading
    status, _, page = api.call("GET", "events", {"streamName": "orders", "limit": 7})
    check(status == 200 and len(page["events"]) == 7 and "nextCursor" in page, "a first page of 7")
    status, _, page2 = api.call("GET", "events", {"streamName": "orders", "limit": 100, "cursor": page["nextCursor"]})
    listed = [e["id"] for e in page["events"] + page2["events"]]
    check(status == 200 and sorted(listed) == sorted(ids["orders"]) and "nextCursor" not in page2,
          "paging with the cursor lists every event of the stream once (%d)" % len(listed))
    status, _, got = api.call("GET", "events", {"metadata.tenant": "t1", "metadata.n": 5})
    check(status == 200 and [e["metadata"]["n"] for e in got["events"]] == [5], "metadata.KEY=VALUE filters (a number)")
    status, _, got = api.call("GET", "count", {"errorType": "Timeout"})
    check(status == 200 and got == {"count": 15}, "count by errorType: %s" % got)
    status, _, got = api.call("GET", "groups", {"limit": 5})
    check(status == 200 and sum(g["count"] for g in got["groups"]) == 30, "groups cover every event")
    one = ids["bad"][0]
    deadline = time.time() + 20
    while True:
        status, _, got = api.call("GET", "events/" + one)
        states = {d["sink"]: d["state"] for d in got.get("deliveries", [])} if status == 200 else {}
        if states.get("flaky") == "failed" or time.time() > deadline:
            break
        time.sleep(0.2)
    check(status == 200 and got["event"]["id"] == one and states == {"audit": "delivered", "flaky": "failed"},
          "one event with its deliveries: %s" % states)
    status, _, got = api.call("GET", "whoami")
    check(status == 200 and got["pong"] is True and "principal" not in got,
          "whoami without security.curve: PING's reply, no principal: %s" % got)
    status, _, got = api.call("GET", "stats")
    check(status == 200 and got["events"] == 30 and set(got["sinks"]) == {"audit", "flaky"}, "stats")

    # ---- acting
    status, _, got = api.call("POST", "sinks/flaky/redeliver", body={"streamName": "bad"})
    check(status == 200 and got == {"sink": "flaky", "requeued": 10}, "redeliver the 10 failed: %s" % got)
    status, _, dry = api.call("POST", "replays", body={"streamName": "orders", "dryRun": True, "sample": 3})
    check(status == 200 and dry["count"] == 20 and len(dry["sample"]) == 3, "a replay's dry run: 20, sample 3")
    receiver = ctx.socket(zmq.PULL)
    receiver.connect("tcp://127.0.0.1:%d" % replay_port)
    status, _, job = api.call("POST", "replays", body={"streamName": "orders", "target": "endpoint", "rate": 5})
    check(status == 200 and job["state"] == "RUNNING" and job["total"] == 20, "a replay job starts at 5/s")
    status, _, got = api.call("POST", "replays/%s/pause" % job["job"])
    check(status == 200 and got["state"] == "PAUSED", "pause")
    status, _, got = api.call("POST", "replays/%s/pause" % job["job"])
    status, _, got = api.call("POST", "replays/%s/resume" % job["job"])
    check(status == 200 and got["state"] == "RUNNING", "resume")
    status, _, got = api.call("POST", "replays/%s/cancel" % job["job"])
    check(status == 200 and got["state"] == "CANCELLED", "cancel")
    status, _, got = api.call("POST", "replays/%s/resume" % job["job"])
    check(status == 409 and got["code"] == "INVALID_STATE", "resuming a cancelled job: 409 INVALID_STATE")
    status, _, got = api.call("GET", "replays/" + job["job"])
    check(status == 200 and got["job"] == job["job"], "one job")
    status, _, got = api.call("GET", "replays")
    check(status == 200 and [j["job"] for j in got["jobs"]] == [job["job"]], "every job")
    status, _, quick = api.call("POST", "replays", body={"ids": [ids["orders"][0]], "target": "endpoint"})
    deadline = time.time() + 20
    while quick.get("state") != "DONE" and time.time() < deadline:
        time.sleep(0.2)
        _, _, quick = api.call("GET", "replays/" + quick["job"])
    check(quick.get("state") == "DONE" and quick["replayed"] == 1, "a replay of one id is DONE")
    fix = {"streamName": "orders", "error": {"type": "Timeout", "message": "fixed"}, "fullDocument": {"fixed": True}}
    status, _, corrected = api.call("POST", "replays", body={"ids": [ids["orders"][1]], "replacement": fix,
                                                              "target": "endpoint"})
    check(status == 200 and corrected["total"] == 1, "a replay of one id with a replacement: a job of 1")
    deadline = time.time() + 20
    copy = None
    while time.time() < deadline and copy is None:
        if receiver.poll(500):
            frames = receiver.recv_multipart()
            if frames[0].decode() == corrected["job"]:
                copy = json.loads(frames[2])
    check(copy is not None and copy["fullDocument"] == {"fixed": True}
          and copy["metadata"]["replayOf"] == ids["orders"][1], "the corrected copy went out with its lineage")
    status, _, got = api.call("POST", "replays", body={"ids": [ids["orders"][1]],
                                                        "replacement": {"streamName": "orders"}})
    check(status == 400 and got["code"] == "INVALID_EVENT" and got["field"] == "replacement.error.type",
          "a replacement is checked as a PUT's body: 400 naming replacement.error.type")
    status, _, got = api.call("POST", "events/%s/fail" % ids["orders"][0])
    check(status == 200 and got["status"] == "PENDING" and got["retryCount"] == 1, "fail: %s" % got)
    status, _, got = api.call("POST", "events/%s/resolve" % ids["orders"][0], body={})
    check(status == 200 and got["status"] == "SUCCEEDED", "resolve")

    # ---- checkpoints
    status, _, got = api.call("PUT", "checkpoints/orders", body={"lastSeenToken": {"_data": "a1"}})
    check(status == 200 and got["streamName"] == "orders", "save a checkpoint")
    status, _, got = api.call("POST", "checkpoints/orders/seen",
                              body={"token": {"_data": "a2"}, "timestamp": "2026-12-03T10:00:00Z"})
    check(status == 200 and got["lastSeenToken"] == {"_data": "a2"}, "move its last seen token")
    status, _, got = api.call("POST", "checkpoints/orders/processed",
                              body={"token": {"_data": "a1"}, "timestamp": "2026-12-03T10:00:00Z"})
    check(status == 200 and got["lastProcessedToken"] == {"_data": "a1"}, "move its last processed token")
    status, _, got = api.call("GET", "checkpoints/orders")
    check(status == 200 and got["lastSeenToken"] == {"_data": "a2"}, "read it back")
    status, _, got = api.call("GET", "checkpoints")
    check(status == 200 and [c["streamName"] for c in got["checkpoints"]] == ["orders"], "every checkpoint")
    status, _, got = api.call("DELETE", "checkpoints/orders")
    check(status == 200 and got == {"streamName": "orders", "deleted": True}, "delete it")
    status, _, got = api.call("GET", "checkpoints/orders")
    check(status == 404 and got["code"] == "NOT_FOUND", "a deleted checkpoint: 404")

    # ---- errors, as docs/api.md maps them
    status, _, got = api.call("GET", "events/" + str(uuid.uuid4()))
    check(status == 404 and got["code"] == "NOT_FOUND", "an unknown id: 404 NOT_FOUND")
    status, _, got = api.call("GET", "events/not-a-uuid")
    check(status == 400 and got["code"] == "INVALID_REQUEST" and got["field"] == "id", "a bad id: 400 naming id")
    status, _, got = api.call("GET", "events", {"limit": "many"})
    check(status == 400 and got["field"] == "limit", "a bad limit: 400 naming limit")
    status, _, got = api.call("GET", "events", {"colour": "red"})
    check(status == 400 and got["field"] == "colour", "an unknown filter: 400 naming it")
    status, _, got = api.call("POST", "replays", body=b"{not json")
    check(status == 400 and got["code"] == "INVALID_JSON", "a body that is not JSON: 400 INVALID_JSON")
    status, _, got = api.call("POST", "replays", body=b"[1]")
    check(status == 400 and got["code"] == "INVALID_REQUEST", "a body that is not an object: 400")
    status, _, got = api.call("POST", "events/%s/resolve" % one, body={"id": one})
    check(status == 400 and got["field"] == "id", "a member given by the path and the body: 400")
    status, _, got = api.call("POST", "replays", body=b'{"all":true,"x":"' + b"y" * (1 << 21) + b'"}', validate=False)
    check(status == 413 and got["code"] == "TOO_LARGE", "a body over max_message_bytes: 413 TOO_LARGE")
    status, headers, got = api.call("DELETE", "events", validate=False)
    check(status == 405 and headers.get("Allow") == "GET", "a method the path does not take: 405, Allow: GET")
    status, _, got = api.call("GET", "nothing/here", validate=False)
    check(status == 404 and got["code"] == "NOT_FOUND", "a path no route has: 404")

    status, _, got = api.call("POST", "replays", body={"ids": [ids["orders"][1]], "all": True, "replacement": fix})
    check(status == 400 and got["field"] == "replacement", "a replacement with all: 400")
    status, _, got = api.call("POST", "replays/%s/pause" % job["job"], body={})
    check(status == 409 and got["code"] == "INVALID_STATE", "a body of {} where none is taken is no body (409 here)")

    # ---- a %00 is never a cut: it is refused
    for path, query in (("events/%s%%00junk" % one, None), ("count", "streamName=orders%00junk"),
                        ("count", "streamName%00zz=orders")):
        url = api.base + path + ("?" + query if query else "")
        req = urllib.request.Request(url)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, got = r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            status, got = e.code, json.loads(e.read())
        check(status == 400 and got["code"] == "INVALID_UTF8", "a %%00 in %s is refused, not cut: %s" % (url, got))
    status, headers, _ = api.call("PATCH", "events", validate=False)
    check(status == 405 and headers.get("Allow") == "GET", "a method no route takes: 405 (not the guard's 403)")

    # ---- the browser guards
    status, _, got = api.call("GET", "stats", headers={"Host": "evil.example:80"}, validate=False)
    check(status == 403 and "Host" in got["message"], "another Host (DNS rebinding): 403")
    status, _, got = api.call("GET", "stats", headers={"Host": "LOCALHOST:80"}, validate=False)
    check(status == 200, "a host name is taken in any case (LOCALHOST)")
    metrics = urllib.request.Request(api.base.replace("/api/v1/", "/metrics"), headers={"Host": "evil.example"})
    try:
        urllib.request.urlopen(metrics, timeout=10)
        status = 200
    except urllib.error.HTTPError as e:
        status = e.code
    check(status == 403, "/metrics for another Host (DNS rebinding): 403")
    status, _, got = api.call("GET", "stats", headers={"Origin": "http://evil.example"}, validate=False)
    check(status == 403 and "Origin" in got["message"], "another Origin: 403")
    status, _, got = api.call("POST", "replays", body={"all": True, "dryRun": True},
                              headers={"Content-Type": "text/plain"}, validate=False)
    check(status == 403 and "Content-Type" in got["message"], "a POST without Content-Type: application/json: 403")
    status, headers, _ = api.call("GET", "stats", validate=False)
    check(headers.get("X-Content-Type-Options") == "nosniff"
          and "frame-ancestors 'none'" in headers.get("Content-Security-Policy", ""), "the hardening headers")

    live_events(api, wire, spec)

    # ---- every operation of the document was called; the docs' route table is the document's
    documented = {(m, p) for p, item in spec["paths"].items() for m in item if m in ("get", "post", "put", "delete")}
    check(documented <= seen_operations, "every operation of the document was called (missed %s)"
          % sorted(documented - seen_operations))
    table = set(re.findall(r"^\| `(GET|POST|PUT|DELETE) ([^`]+)` \|", open(os.path.join(repo, "docs/api.md")).read(), re.M))
    check({(m.lower(), "/" + p) for m, p in table} == documented,
          "docs/api.md's routes are the document's (%s)" % sorted({(m.lower(), "/" + p) for m, p in table} ^ documented))


def put(wire, stream, message, created=None):
    e = {"id": str(uuid.uuid4()), "streamName": stream, "error": {"type": "Live", "message": message}}
    if created:
        e["createdAt"] = created
    wire.send_multipart([b"PUT", e["id"].encode(), json.dumps(e).encode()])
    status, _, _ = wire.recv_multipart()
    assert status == b"OK"
    return e["id"]


def live_events(api, wire, spec):
    """GET events/stream: the new events that match, as Server-Sent Events."""
    port = int(api.base.split(":")[2].split("/")[0])
    status, _, err = api.call("GET", "events/stream", {"limit": 3})
    check(status == 400 and err["code"] == "INVALID_REQUEST", "a stream takes no limit: 400")
    status, _, err = api.call("GET", "events/stream", {"bogus": "1"})
    check(status == 400 and err["code"] == "INVALID_REQUEST", "a stream's filters are LIST's, checked: %s" % err)
    status, headers, _ = api.call("POST", "events/stream", body={}, validate=False)
    check(status == 405 and headers.get("Allow") == "GET", "POST events/stream: 405, Allow: GET")
    stream = EventStream(port, "/api/v1/events/stream?streamName=orders&errorType=Live")
    check(stream.status == 200 and stream.headers.get("Content-Type") == "text/event-stream"
          and stream.headers.get("Cache-Control") == "no-store", "a stream answers 200 text/event-stream, no-store")
    seen_operations.add(("get", "/events/stream"))
    check(stream.next(1.5) is None, "a new stream sends none of the events stored before it")
    other = put(wire, "billing", "not this stream")
    future = put(wire, "orders", "a skewed clock", "2099-01-01T00:00:00.000Z")
    first, second = put(wire, "orders", "first"), put(wire, "orders", "second")
    got = [stream.next(10), stream.next(10)]
    event_schema = {"$ref": "#/components/schemas/Event"}
    datas = [json.loads(g[1]) for g in got if g and g[0] == "failure"]
    check([d["id"] for d in datas] == [first, second], "the two new events of orders come, oldest first: %s"
          % [d.get("id") for d in datas])
    check(other not in [d["id"] for d in datas], "the event of another stream does not")
    check(future not in [d["id"] for d in datas],
          "an event created in 2099 is not sent now, and hides none of those after it")
    try:
        for d in datas:
            jsonschema.Draft202012Validator(event_schema, resolver=api.resolver).validate(d)
        check(bool(datas), "each event's data validates against the document's Event")
    except jsonschema.ValidationError as e:
        check(False, "an event's data does not validate: %s" % e.message)
    others = [EventStream(port, "/api/v1/events/stream") for _ in range(31)]
    check(all(o.status == 200 for o in others), "32 streams open at once")
    refused = EventStream(port, "/api/v1/events/stream")
    check(refused.status == 503, "a 33rd is 503 while 32 are open: %s" % refused.status)
    for o in others:
        o.close()
    deadline, again = time.time() + 3, None
    while time.time() < deadline and (again is None or again.status != 200):
        again = EventStream(port, "/api/v1/events/stream")
        time.sleep(0.1)
    check(again.status == 200, "the slots of closed streams are free again within 3 s: %s" % again.status)
    again.close()
    time.sleep(12)          # past the listener's 10 s idle timeout: the keepalive comments hold it open
    late = put(wire, "orders", "after a quiet while")
    got = stream.next(10)
    check(got is not None and got[0] == "failure" and json.loads(got[1])["id"] == late,
          "after 12 s without news the stream is still open and sends the next event")
    stream.close()


if __name__ == "__main__":
    main()
