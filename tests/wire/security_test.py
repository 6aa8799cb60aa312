#!/usr/bin/env python3
"""security_test — CURVE and authorization attacked by an independent client
(Python, pyzmq's CURVE), with certificates made by pyzmq's own
zmq.auth.create_certificates (the ZPL format of CZMQ's zcert), as
docs/security.md says other ZeroMQ tools' keys work:

  - no CURVE, a wrong server key, or a key not in the clients directory:
    no reply at all (the handshake fails), and STATS counts the refusals;
  - a worker of stream A: PUT on A is stored, on B FORBIDDEN naming the
    verb and the stream, REPLAY and LIST FORBIDDEN;
  - a viewer of A: LIST of A only (of B, or of every stream, FORBIDDEN),
    no REPLAY, no REDELIVER; a viewer of every stream sees both;
  - a key removed from the directory, then SIGHUP: the next request on
    its already-open connection is FORBIDDEN, another key's open
    connection goes on;
  - the gateway's secret key is in no reply and no log line;
  - a non-loopback listen without CURVE is a --check-config error.

    security_test.py DLQD
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import Gateway, check, curve_keys as keys, failures, free_port  # noqa: E402

QUIET_MS = 1500         # how long "no reply" is waited for


class Client:
    def __init__(self, ctx, endpoint, server_public=None, pair=None):
        self.s = ctx.socket(zmq.DEALER)
        self.s.setsockopt(zmq.LINGER, 0)
        if server_public:
            self.s.curve_serverkey = server_public
            self.s.curve_publickey, self.s.curve_secretkey = pair
        self.s.connect(endpoint)
        self.n = 0

    def call(self, verb, body, wait_ms=10000):
        """(status, reply) or None when nothing came within wait_ms."""
        self.n += 1
        rid = str(self.n).encode()
        self.s.send_multipart([verb.encode(), rid, json.dumps(body).encode() if body is not None else b""])
        if not self.s.poll(wait_ms):
            return None
        status, got, reply = self.s.recv_multipart()
        assert got == rid
        return status.decode(), json.loads(reply)

    def close(self):
        self.s.close()


def event(stream):
    return {"id": str(uuid.uuid4()), "streamName": stream, "error": {"type": "Timeout", "message": "slow"}}


def main():
    dlqd = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="dlqd-security-")
    secret_dir, clients = os.path.join(work, "keys"), os.path.join(work, "clients")
    os.makedirs(secret_dir)
    os.makedirs(clients)
    server = keys(secret_dir, "gateway", {"name": "gateway"})
    pairs = {name: keys(secret_dir, name, meta, clients) for name, meta in {
        "worker-a": {"name": "worker-a", "role": "worker", "streams": "A"},
        "viewer-a": {"name": "viewer-a", "role": "viewer", "streams": "A"},
        "viewer-all": {"name": "viewer-all", "role": "viewer", "streams": "*"},
        "admin": {"name": "admin", "role": "admin"},
    }.items()}
    outsider = keys(secret_dir, "outsider", {"name": "outsider", "role": "admin"})
    port = free_port()
    endpoint = "tcp://127.0.0.1:%d" % port
    config = """
gateway: { listen = ["%s"]; data_dir = "%s/data"; };
security: { curve: { server_secret_key = "%s/gateway.key_secret"; clients = "%s"; }; };
sinks: { audit: { type = "noop"; }; };
defaults: { chain = ["audit"]; };
""" % (endpoint, work, secret_dir, clients)
    gateway = Gateway(dlqd, work, config)
    ctx = zmq.Context()
    replies = []
    try:
        admin = Client(ctx, endpoint, server[0], pairs["admin"])
        got = admin.call("PING", None)
        check(got is not None and got[0] == "OK", "an admin key is answered: %s" % (got,))
        attacks(ctx, endpoint, server, pairs, outsider, admin, replies, gateway)
    finally:
        status = gateway.stop()
        ctx.destroy(linger=0)
    check(status == 0, "dlqd exits 0 on SIGTERM")
    secret_text = server[1].decode()
    log = open(os.path.join(work, "dlqd.log")).read()
    check(secret_text not in log and all(secret_text not in json.dumps(r) for r in replies),
          "the gateway's secret key is in no log line and no reply (%d replies read)" % len(replies))
    exposed = os.path.join(work, "exposed.conf")
    with open(exposed, "w") as f:
        f.write('gateway: { listen = ["tcp://0.0.0.0:%d"]; data_dir = "%s/data2"; };\n' % (free_port(), work))
    run = subprocess.run([dlqd, "--check-config", exposed], capture_output=True, text=True)
    check(run.returncode == 1 and "reachable from the network" in run.stdout + run.stderr,
          "a non-loopback listen without CURVE is a --check-config error: %s" % (run.stdout + run.stderr).strip())
    if failures:
        print("%d check(s) failed; dlqd's files are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def attacks(ctx, endpoint, server, pairs, outsider, admin, replies, gateway):
    def keep(got):
        if got:
            replies.append(got)
        return got

    # ---- no key, a wrong server key, a key the gateway does not know: nothing
    plain = Client(ctx, endpoint)
    check(plain.call("PING", None, QUIET_MS) is None, "without CURVE: no reply (the handshake fails)")
    plain.close()
    wrong_server = zmq.curve_keypair()[0]
    wrong = Client(ctx, endpoint, wrong_server, pairs["admin"])
    check(wrong.call("PING", None, QUIET_MS) is None, "with a wrong server key: no reply")
    wrong.close()
    stranger = Client(ctx, endpoint, server[0], outsider)
    check(stranger.call("PING", None, QUIET_MS) is None, "with a key not in the clients directory: no reply")
    stranger.close()
    got = keep(admin.call("STATS", {}))
    refused = got[1]["counters"].get("handshakesRefused", {}) if got else {}
    check(refused.get("unknownKey", 0) >= 1, "STATS counts the refused handshakes: %s" % refused)

    # ---- a worker of stream A
    worker = Client(ctx, endpoint, server[0], pairs["worker-a"])
    got = keep(worker.call("PUT", event("A")))
    check(got and got[0] == "OK", "a worker of A stores an event of A")
    got = keep(worker.call("PUT", event("B")))
    check(got and got[0] == "ERR" and got[1]["code"] == "FORBIDDEN" and "PUT" in got[1]["message"]
          and "B" in got[1]["message"], "... and is FORBIDDEN on B, naming the verb and the stream: %s" % (got,))
    got = keep(worker.call("REPLAY", {"streamName": "A", "dryRun": True}))
    check(got and got[1].get("code") == "FORBIDDEN", "... and may not REPLAY")
    got = keep(worker.call("LIST", {"streamName": "A"}))
    check(got and got[1].get("code") == "FORBIDDEN", "... and may not LIST")
    b_event = event("B")
    got = keep(admin.call("PUT", b_event))
    check(got and got[0] == "OK", "an admin stores an event of B")

    # ---- viewers
    viewer = Client(ctx, endpoint, server[0], pairs["viewer-a"])
    got = keep(viewer.call("LIST", {"streamName": "A"}))
    streams = {e["streamName"] for e in got[1].get("events", [])} if got else set()
    check(got and got[0] == "OK" and streams == {"A"}, "a viewer of A lists A: %s" % streams)
    for body in ({"streamName": "B"}, {}):
        got = keep(viewer.call("LIST", body))
        check(got and got[1].get("code") == "FORBIDDEN", "... and is FORBIDDEN to LIST %s" % (body or "every stream"))
    for verb, body in (("REPLAY", {"streamName": "A", "dryRun": True}), ("REDELIVER", {"sink": "audit"})):
        got = keep(viewer.call(verb, body))
        check(got and got[1].get("code") == "FORBIDDEN", "... and may not %s" % verb)
    everyone = Client(ctx, endpoint, server[0], pairs["viewer-all"])
    got = keep(everyone.call("LIST", {}))
    streams = {e["streamName"] for e in got[1].get("events", [])} if got else set()
    check(got and streams == {"A", "B"}, "a viewer of every stream lists A and B: %s" % streams)

    # ---- revoke the worker: its open connection is refused, another goes on
    os.unlink(os.path.join(gateway.dir, "clients", "worker-a.key"))
    gateway.proc.send_signal(signal.SIGHUP)
    deadline, got = time.time() + 10, None
    while time.time() < deadline:
        got = keep(worker.call("PUT", event("A")))
        if got and got[0] == "ERR":
            break
        time.sleep(0.2)
    check(got and got[1].get("code") == "FORBIDDEN" and "no longer" in got[1]["message"],
          "a revoked key's next request on its open connection is FORBIDDEN: %s" % (got,))
    got = keep(everyone.call("PING", None))
    check(got and got[0] == "OK", "another key's open connection goes on")
    for c in (worker, viewer, everyone, admin):
        c.close()


if __name__ == "__main__":
    main()
