#!/usr/bin/env python3
"""wire_client_test — an independent client, in another language, written
from docs/protocol.md ("Wire protocol") alone: checks the contract as any
user's client would see it. Usage: wire_client_test.py DLQD_BINARY
"""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time, uuid

import zmq

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Client:
    def __init__(self, endpoint):
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RCVTIMEO, 5000)
        self.sock.connect(endpoint)
        self.n = 0

    def send(self, verb, body, rid=None):
        self.n += 1
        rid = rid if rid is not None else ("r%d" % self.n).encode()
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.sock.send_multipart([verb.encode(), rid, body])
        return rid

    def recv(self):
        status, rid, body = self.sock.recv_multipart()
        return status.decode(), rid, json.loads(body)

    def call(self, verb, body=b""):
        rid = self.send(verb, body)
        status, got_rid, reply = self.recv()
        check(got_rid == rid, "%s echoes the request id" % verb)
        return status, reply

    def close(self):
        self.sock.close()
        self.ctx.term()


def main():
    dlqd = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="dlqd-wire-")
    endpoint = "tcp://127.0.0.1:%d" % free_port()
    replay_endpoint = "tcp://127.0.0.1:%d" % free_port()
    conf = os.path.join(tmp, "dlqd.conf")
    with open(conf, "w") as f:
        f.write('gateway: { listen = ["%s"]; data_dir = "%s/data"; };\n' % (endpoint, tmp))
        f.write('streams = ( { name = "audit.v1"; retention_days = 0; include_stack_trace = false; '
                'replay_route = "endpoint"; } );\n')
        f.write('replay: { listen = "%s"; max_replays = 1; };\n' % replay_endpoint)
    log = open(os.path.join(tmp, "dlqd.log"), "w")
    proc = subprocess.Popen([dlqd, "-c", conf], stdout=log, stderr=log)
    c = Client(endpoint)
    try:
        status, pong = c.call("PING")
        check(status == "OK" and pong.get("pong") is True and pong.get("protocol") == 1
              and pong.get("maxMessageBytes") == 1048576, "PING answers pong with the size limit")

        event = {"id": str(uuid.uuid4()), "streamName": "audit.v1", "operationType": "DELETE",
                 "documentKey": {"_id": {"$numberLong": "42"}},
                 "error": {"type": "ValueError", "message": "bad", "stackTrace": "Traceback ..."},
                 "attempts": 2, "createdAt": "2026-06-09T16:32:11.5+02:00", "metadata": {"k": [1, 2.50]}}
        status, ack = c.call("PUT", event)
        check(status == "OK" and ack == {"id": event["id"], "duplicate": False}, "PUT acks with id")
        status, ack = c.call("PUT", event)
        check(status == "OK" and ack["duplicate"] is True, "second PUT is a duplicate")

        status, got = c.call("GET", {"id": event["id"]})
        stored = got.get("event", {})
        check(status == "OK", "GET finds the event")
        check(stored.get("createdAt") == "2026-06-09T14:32:11.500Z", "timestamps normalised to UTC ms")
        check("stackTrace" not in stored.get("error", {}), "stream policy removed the stack trace")
        check("expiresAt" not in stored, "retention 0 keeps forever")
        check(stored.get("status") == "PENDING" and stored.get("attempts") == 2, "status default, attempts kept")
        check(stored.get("metadata") == {"k": [1, 2.50]}, "metadata kept")

        status, ack = c.call("PUT", {"streamName": "audit.v1", "error": {"type": "E"}})
        check(status == "OK" and uuid.UUID(ack["id"]).version == 7, "a missing id becomes a UUIDv7")

        # pipelining: 300 PUTs without waiting, replies matched by request id
        sent = {}
        for i in range(300):
            rid = c.send("PUT", {"streamName": "pipe", "error": {"type": "E%d" % i},
                                 "createdAt": "2099-01-01T00:00:%02d.%03dZ" % (i // 1000, i % 1000)})
            sent[rid] = i
        got_ids = set()
        for _ in range(300):
            status, rid, reply = c.recv()
            check(status == "OK" and rid in sent, "pipelined PUT acked")
            got_ids.add(rid)
        check(len(got_ids) == 300, "every pipelined PUT answered once")

        # LIST pages newest first
        seen, cursor, pages = [], None, 0
        while True:
            req = {"streamName": "pipe", "limit": 128}
            if cursor:
                req["cursor"] = cursor
            status, page = c.call("LIST", req)
            check(status == "OK", "LIST answers")
            seen += [e["error"]["type"] for e in page["events"]]
            pages += 1
            cursor = page.get("nextCursor")
            if not cursor or pages > 5:
                break
        check(seen == ["E%d" % i for i in reversed(range(300))], "LIST pages cover all, newest first")
        check(pages == 3, "300 events in pages of 128 are 3 pages")
        status, page = c.call("LIST", {"streamName": "nobody"})
        check(status == "OK" and page == {"events": []}, "LIST of an unknown stream is empty")

        for verb, body, code in [
            ("PUT", b"{not json", "INVALID_JSON"),
            ("PUT", b'{"streamName":"\xc0\xaf","error":{"type":"E"}}', "INVALID_UTF8"),
            ("PUT", {"streamName": "s"}, "INVALID_EVENT"),
            ("PUT", {"streamName": "s", "error": {"type": "E"}, "createdAt": "yesterday"}, "INVALID_TIMESTAMP"),
            ("PUT", b"", "EMPTY_BODY"),
            ("PUT", b"{" + b" " * 1048576 + b"}", "TOO_LARGE"),
            ("NOPE", b"", "UNKNOWN_VERB"),
            ("GET", {"id": str(uuid.uuid4())}, "NOT_FOUND"),
            ("LIST", {"status": 5}, "INVALID_REQUEST"),
        ]:
            status, err = c.call(verb, body)
            check(status == "ERR" and err.get("code") == code and err.get("message"),
                  "%s gives %s (got %s)" % (verb, code, err))
        c.sock.send_multipart([b"PUT", b"only-two"])
        status, rid, err = c.recv()
        check(status == "ERR" and err["code"] == "BAD_FRAMES" and rid == b"only-two", "2 frames: BAD_FRAMES")

        status, stats = c.call("STATS", b"{}")
        check(status == "OK" and stats["streams"].get("pipe") == 300 and stats["events"] == 302,
              "STATS counts events per stream")
        check(stats["counters"]["accepted"] == 302 and stats["counters"]["duplicate"] == 1, "STATS counters")
        check(stats["counters"]["errors"].get("INVALID_JSON") == 1 and stats["counters"]["rejected"] == 9,
              "STATS counts errors by code")

        # the failure workbench: LIST across streams, filters, COUNT, GROUPS (docs/protocol.md)
        status, page = c.call("LIST", {"limit": 5})
        check(status == "OK" and len(page["events"]) == 5 and "nextCursor" in page, "LIST without streamName: every stream")
        status, got = c.call("COUNT", {})
        check(status == "OK" and got == {"count": 302}, "COUNT of every event (got %s)" % got)
        status, got = c.call("COUNT", {"streamName": "pipe", "errorType": "E7"})
        check(status == "OK" and got == {"count": 1}, "COUNT with filters (got %s)" % got)
        status, got = c.call("GROUPS", {"streamName": "pipe", "limit": 1000})
        check(status == "OK" and sum(g["count"] for g in got["groups"]) == 300
              and all(len(g["fingerprint"]) == 16 and g["streams"] == ["pipe"] for g in got["groups"]),
              "GROUPS cover the stream's events, one group per fingerprint")
        status, err = c.call("COUNT", {"createdAfter": "yesterday"})
        check(status == "ERR" and err["code"] == "INVALID_REQUEST" and err.get("field") == "createdAfter",
              "a bad filter names its member (got %s)" % err)

        # replay (docs/protocol.md: REPLAY, the replay endpoint, RESOLVE / FAIL)
        status, dry = c.call("REPLAY", {"streamName": "pipe", "errorType": "E7", "dryRun": True})
        check(status == "OK" and dry["count"] == 1 and dry["sample"][0]["error"]["type"] == "E7",
              "REPLAY dry run: count and sample (got %s)" % dry)
        pull = c.ctx.socket(zmq.PULL)
        pull.setsockopt(zmq.RCVTIMEO, 5000)
        pull.connect(replay_endpoint)
        status, job = c.call("REPLAY", {"ids": [event["id"]], "target": "endpoint", "rate": 10})
        check(status == "OK" and job["state"] == "RUNNING" and job["total"] == 1, "REPLAY starts a job (%s)" % job)
        frames = pull.recv_multipart()
        replayed = json.loads(frames[2])
        check(len(frames) == 3 and frames[0].decode() == job["job"] and frames[1].decode() == event["id"],
              "the endpoint delivers [job][id][event]")
        check(replayed["metadata"] == {"k": [1, 2.50], "replayOf": event["id"], "replayCount": 1},
              "the replayed event carries its lineage (got %s)" % replayed.get("metadata"))
        for _ in range(100):
            status, job = c.call("REPLAY.STATUS", {"job": job["job"]})
            if job["state"] == "DONE":
                break
            time.sleep(0.05)
        check(job["state"] == "DONE" and job["replayed"] == 1 and job["done"] == 1, "the job ends DONE (%s)" % job)
        status, err = c.call("REPLAY.RESUME", {"job": job["job"]})
        check(status == "ERR" and err["code"] == "INVALID_STATE", "a DONE job cannot be resumed (%s)" % err)
        status, got = c.call("FAIL", {"id": event["id"]})
        check(status == "OK" and got["status"] == "PENDING" and got["retryCount"] == 1 and got["replayCount"] == 1,
              "FAIL counts a retry (got %s)" % got)
        status, got = c.call("REPLAY", {"ids": [event["id"]], "target": "endpoint", "rate": 10})
        for _ in range(100):
            status, job = c.call("REPLAY.STATUS", {"job": got["job"]})
            if job["state"] == "DONE":
                break
            time.sleep(0.05)
        check(job["quarantined"] == 1, "max_replays 1: the second replay quarantines (%s)" % job)
        status, got = c.call("GET", {"id": event["id"]})
        check(got["event"]["status"] == "QUARANTINED" and got["replay"]["replayCount"] == 1,
              "GET shows the status and replay state (%s)" % got.get("replay"))
        status, got = c.call("RESOLVE", {"id": event["id"]})
        check(status == "OK" and got["status"] == "SUCCEEDED", "RESOLVE: SUCCEEDED (got %s)" % got)
        status, err = c.call("REPLAY", {})
        check(status == "ERR" and err["code"] == "INVALID_REQUEST" and err.get("field") == "all",
              "REPLAY without a selection is refused (%s)" % err)
        pull.close()

        # checkpoints (docs/protocol.md: CKPT.*)
        status, err = c.call("CKPT.GET", {"streamName": "orders"})
        check(status == "ERR" and err["code"] == "NOT_FOUND", "CKPT.GET of an unknown stream: NOT_FOUND")
        status, rec = c.call("CKPT.SEEN", {"streamName": "orders", "token": {"_data": "0A"},
                                           "timestamp": "2026-06-09T16:32:11+02:00"})
        check(status == "OK" and rec["lastSeenToken"] == {"_data": "0A"}
              and rec["lastSeenTimestamp"] == "2026-06-09T14:32:11.000Z" and "lastProcessedToken" not in rec,
              "CKPT.SEEN creates the record with its pair only (%s)" % rec)
        rids = [c.send("CKPT.PROCESSED" if i % 2 else "CKPT.SEEN",
                       {"streamName": "orders", "token": {"_data": "%04d" % i}, "timestamp": "2026-06-09T14:00:00Z"})
                for i in range(200)]
        answered = [c.recv() for _ in rids]
        check(all(st == "OK" for st, _, _ in answered), "200 pipelined SEEN / PROCESSED acked")
        status, rec = c.call("CKPT.GET", {"streamName": "orders"})
        check(rec["lastSeenToken"] == {"_data": "0198"} and rec["lastProcessedToken"] == {"_data": "0199"},
              "each token is the last of its own kind (%s)" % rec)
        status, rec = c.call("CKPT.SAVE", {"streamName": "orders", "instanceId": "w-1", "metadata": {"a": 1}})
        check(status == "OK" and rec.get("instanceId") == "w-1" and "lastSeenToken" not in rec,
              "CKPT.SAVE replaces every field (%s)" % rec)
        status, page = c.call("CKPT.LIST", b"")
        check(status == "OK" and [r["streamName"] for r in page["checkpoints"]] == ["orders"], "CKPT.LIST")
        status, got = c.call("CKPT.DELETE", {"streamName": "orders"})
        check(status == "OK" and got == {"streamName": "orders", "deleted": True}, "CKPT.DELETE")
        status, got = c.call("CKPT.DELETE", {"streamName": "orders"})
        check(status == "OK" and got["deleted"] is False, "CKPT.DELETE of nothing is not an error")
        status, err = c.call("CKPT.SEEN", {"streamName": "orders", "token": "x", "timestamp": "2026-06-09T14:00:00Z"})
        check(status == "ERR" and err["code"] == "INVALID_REQUEST" and err.get("field") == "token",
              "a token that is not an object is refused (%s)" % err)
    finally:
        c.close()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        check(rc == 0, "dlqd exits 0 on SIGTERM")
        shutil.rmtree(tmp, ignore_errors=True)
    print("wire protocol: %d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
