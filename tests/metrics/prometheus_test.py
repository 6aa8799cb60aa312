#!/usr/bin/env python3
"""prometheus_test — dlqd's HTTP listener read back with the real tools.

A dlqd with a dead sink (every delivery RETRY) and a sink that fails one
stream's events is scraped every second by a real Prometheus server
(contrib/scripts/prometheus-server.sh, Debian's prometheus) that also loads
the shipped alerting rules. After a known workload — N new PUTs, D
duplicates, refused requests, checkpoint writes, a replay job — queries
through Prometheus's HTTP API return what the workload implies. Also:
`promtool check metrics` passes on a scrape; every metric family is listed
in docs/metrics.md and every name there is exported; every query of the
Grafana dashboard names exported metrics and evaluates; /healthz, /readyz,
404 and 405 answer as documented; and, as root, /readyz answers 503 naming
the disk when the data_dir's filesystem (a small tmpfs) is full and 200
again once space is freed.

    prometheus_test.py DLQD REPO
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import Gateway, WireClient, check, failures, free_port, http, wait_http  # noqa: E402

N = 300          # new events
BAD = 30         # of them in stream "bad", which the flaky sink fails
DUPLICATES = 20
BAD_JSON = 4
UNKNOWN_VERBS = 3
CHECKPOINTS = 5

class Prometheus:
    def __init__(self, url):
        self.url = url

    def query(self, expr):
        q = urllib.parse.urlencode({"query": expr})
        status, _, body = http(self.url + "/api/v1/query?" + q)
        doc = json.loads(body)
        if doc.get("status") != "success":
            raise RuntimeError("%s: %s" % (expr, body))
        return doc["data"]["result"]

    def value(self, expr):
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None

    def wait_value(self, expr, want, seconds=30):
        """The value of expr once it equals want (or the last seen after seconds)."""
        deadline = time.time() + seconds
        got = None
        while time.time() < deadline:
            got = self.value(expr)
            if got == want:
                return got
            time.sleep(0.5)
        return got


def families(scrape):
    return set(re.findall(r"^# TYPE (\S+) ", scrape, re.M))


def base_name(name, names):
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[: -len(suffix)] in names:
            return name[: -len(suffix)]
    return name


def workload(gw):
    events = [{"id": str(uuid.uuid4()), "streamName": "bad" if i < BAD else "orders",
               "error": {"type": "Timeout", "message": "upstream timed out"},
               "fullDocument": {"n": i}} for i in range(N)]
    for e in events:
        status, ack = gw.call("PUT", e)
        assert status == "OK" and not ack["duplicate"], ack
    for e in events[:DUPLICATES]:
        status, ack = gw.call("PUT", e)
        assert status == "OK" and ack["duplicate"], ack
    for _ in range(BAD_JSON):
        status, err = gw.call("PUT", b"{not json")
        assert status == "ERR" and err["code"] == "INVALID_JSON", err
    for _ in range(UNKNOWN_VERBS):
        status, err = gw.call("NOPE", {})
        assert status == "ERR" and err["code"] == "UNKNOWN_VERB", err
    for i in range(CHECKPOINTS):
        status, rec = gw.call("CKPT.SAVE", {"streamName": "orders", "lastSeenToken": {"_data": "t%d" % i}})
        assert status == "OK", rec
    return events


def main():
    dlqd, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="dlqd-metrics-")
    promdir = os.path.join(work, "prometheus")
    port, http_port, replay_port = free_port(), free_port(), free_port()
    config = """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
replay: { listen = "tcp://127.0.0.1:%d"; rate = 100000; };
sinks: {
  dead: { type = "scripted"; down = true; retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 50; };
          circuit = { failures = 3; }; };
  flaky: { type = "scripted"; fail_stream = "bad"; };
};
defaults: { chain = ["dead", "flaky"]; replay_route = "endpoint"; };
""" % (port, work, http_port, replay_port)
    gateway = Gateway(dlqd, work, config)
    script = os.path.join(repo, "contrib/scripts/prometheus-server.sh")
    rules = os.path.join(repo, "contrib/prometheus/dlqd-alerts.yml")
    prom_port = int(subprocess.check_output([script, "free-port", str(free_port())]).decode())
    base = "http://127.0.0.1:%d" % http_port
    ctx = zmq.Context()
    print("dlqd's log and Prometheus's files: %s" % work, flush=True)
    try:
        wait_http(base + "/healthz")
        url = subprocess.check_output([script, "start", promdir, str(prom_port), "127.0.0.1:%d" % http_port,
                                       rules]).decode().strip()
        prom = Prometheus(url)
        check(prom.wait_value('up{job="dlqd"}', 1.0) == 1.0, "Prometheus scrapes dlqd (up == 1)")
        # two scrapes before the workload: rate() has a start
        check(prom.wait_value('count_over_time(up{job="dlqd"}[1m]) >= bool 2', 1.0) == 1.0,
              "Prometheus has scraped dlqd twice before the workload")

        gw = WireClient(ctx, "tcp://127.0.0.1:%d" % port)
        workload(gw)
        receiver = ctx.socket(zmq.PULL)
        receiver.setsockopt(zmq.LINGER, 0)
        receiver.connect("tcp://127.0.0.1:%d" % replay_port)
        status, job = gw.call("REPLAY", {"streamName": "orders", "target": "endpoint", "rate": 100000})
        check(status == "OK", "a replay job starts: %s" % job)
        deadline, got = time.time() + 30, 0
        while time.time() < deadline and got < N - BAD:
            if receiver.poll(1000):
                receiver.recv_multipart()
                got += 1
        check(got == N - BAD, "the replay endpoint delivers %d events (got %d)" % (N - BAD, got))
        deadline = time.time() + 30
        while time.time() < deadline:
            status, st = gw.call("REPLAY.STATUS", {"job": job["job"]})
            if st.get("state") == "DONE":
                break
            time.sleep(0.2)
        check(st.get("state") == "DONE", "the replay job is DONE: %s" % st)

        # ---- what the workload implies, through Prometheus's HTTP API
        check(prom.wait_value("dlqd_events_accepted_total", float(N)) == N, "accepted total == N (%d)" % N)
        check(prom.wait_value("dlqd_events_duplicate_total", float(DUPLICATES)) == DUPLICATES,
              "duplicate total == %d" % DUPLICATES)
        check(prom.wait_value('dlqd_requests_total{verb="PUT",code="OK"}', float(N + DUPLICATES)) == N + DUPLICATES,
              "PUT OK replies == N + duplicates")
        check(prom.wait_value('dlqd_requests_total{verb="PUT",code="INVALID_JSON"}', float(BAD_JSON)) == BAD_JSON,
              "refused PUTs counted by code (INVALID_JSON == %d)" % BAD_JSON)
        check(prom.wait_value('dlqd_requests_total{verb="UNKNOWN",code="UNKNOWN_VERB"}', float(UNKNOWN_VERBS))
              == UNKNOWN_VERBS, "unknown verbs counted (== %d)" % UNKNOWN_VERBS)
        check(prom.wait_value("dlqd_requests_rejected_total", float(BAD_JSON + UNKNOWN_VERBS))
              == BAD_JSON + UNKNOWN_VERBS, "rejected total == bad JSON + unknown verbs")
        check(prom.wait_value("dlqd_checkpoint_writes_total", float(CHECKPOINTS)) == CHECKPOINTS,
              "checkpoint writes == %d" % CHECKPOINTS)
        check(prom.wait_value('dlqd_sink_failed_total{sink="flaky"}', float(BAD)) == BAD,
              "the flaky sink's failed total == the events of stream bad (%d)" % BAD)
        check(prom.wait_value('dlqd_sink_delivered_total{sink="flaky"}', float(N - BAD)) == N - BAD,
              "the flaky sink's delivered total == the others (%d)" % (N - BAD))
        check(prom.wait_value('dlqd_sink_failed_events{sink="flaky"}', float(BAD)) == BAD,
              "the flaky sink's failed-for-good gauge == %d" % BAD)
        check(prom.wait_value('dlqd_sink_circuit_state{sink="dead",state="open"}', 1.0) == 1.0,
              "the dead sink's circuit is open")
        check(prom.wait_value('dlqd_sink_circuit_state{sink="flaky",state="closed"}', 1.0) == 1.0,
              "the flaky sink's circuit is closed")
        check((prom.value('dlqd_sink_retried_total{sink="dead"}') or 0) > 0, "the dead sink's retries are counted")
        check(prom.wait_value('dlqd_replay_jobs{state="DONE"}', 1.0) == 1.0, "one replay job DONE")
        check(prom.wait_value("dlqd_replay_events_replayed_total", float(N - BAD)) == N - BAD,
              "events replayed == %d" % (N - BAD))

        # the dead sink's backlog gauge equals its backlog as STATS tells it
        deadline, same = time.time() + 30, False
        while time.time() < deadline and not same:
            _, stats = gw.call("STATS", {})
            dead = stats["sinks"]["dead"]
            want = float(dead["backlog"] + dead["retrying"])
            same = prom.value('dlqd_sink_backlog_events{sink="dead"}') == want \
                and prom.value('dlqd_sink_retrying_events{sink="dead"}') == float(dead["retrying"])
            if not same:
                time.sleep(0.5)
        check(same and dead["backlog"] + dead["retrying"] == N,
              "the dead sink's backlog gauge equals STATS' backlog + retrying (%s), N in all" % dead)
        check((prom.value('dlqd_sink_backlog_bytes{sink="dead"}') or 0) > 0, "the dead sink holds bytes of the log")
        flaky = (prom.value('dlqd_sink_backlog_events{sink="flaky"}'),
                 prom.value('dlqd_sink_oldest_undelivered_age_seconds{sink="flaky"}'))
        check(flaky == (0.0, 0.0), "the flaky sink has no backlog and no oldest-undelivered age (%s, %s)" % flaky)
        age_expr = 'dlqd_sink_oldest_undelivered_age_seconds{sink="dead"}'
        deadline, age1 = time.time() + 15, None
        while time.time() < deadline and not (age1 or 0) > 0:    # published once a second
            time.sleep(0.5)
            age1 = prom.value(age_expr)
        deadline, age2 = time.time() + 15, age1
        while time.time() < deadline and age2 is not None and age1 is not None and age2 <= age1:
            time.sleep(1)
            age2 = prom.value(age_expr)
        check(age1 is not None and age1 > 0 and age2 > age1,
              "the dead sink's oldest-undelivered age grows (%s s, then %s s)" % (age1, age2))
        p99 = prom.value("histogram_quantile(0.99, sum by (le) (rate(dlqd_ack_latency_seconds_bucket[1m])))")
        check(p99 is not None and math.isfinite(p99) and p99 > 0, "the ack latency's p99 is finite and positive (%s)" % p99)
        commits = prom.value("dlqd_group_commit_writes_count")
        check(commits is not None and 0 < commits <= N + DUPLICATES + CHECKPOINTS,
              "group commits counted (%s for %d writes)" % (commits, N + DUPLICATES + CHECKPOINTS))
        check(prom.value("dlqd_data_dir_free_bytes") > 0 and prom.value("dlqd_log_bytes") > 0,
              "disk gauges: free space and log size")
        check(prom.value('dlqd_ready{reason="ready"}') == 1.0, "dlqd_ready is 1")

        # ---- the rules Prometheus loaded, and a scrape checked by promtool
        _, _, body = http(url + "/api/v1/rules")
        loaded = [r for g in json.loads(body)["data"]["groups"] for r in g["rules"]]
        check(len(loaded) == 6 and all(r["health"] == "ok" for r in loaded),
              "Prometheus loads the 6 shipped alerting rules and evaluates them without error")
        status, headers, scrape = http(base + "/metrics")
        check(status == 200 and headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
              "/metrics: 200, text/plain; version=0.0.4")
        lint = subprocess.run(["promtool", "check", "metrics"], input=scrape.encode(), capture_output=True)
        check(lint.returncode == 0, "promtool check metrics passes: %s" % (lint.stdout + lint.stderr).decode().strip())
        names = families(scrape)
        docs = open(os.path.join(repo, "docs/metrics.md")).read()
        documented = set(re.findall(r"^\| `(dlqd_[a-z_]+)`", docs, re.M))
        check(names == documented, "docs/metrics.md lists exactly the exported families (missing %s, extra %s)"
              % (sorted(names - documented), sorted(documented - names)))

        # ---- the dashboard: every query names exported metrics and evaluates
        dash = json.load(open(os.path.join(repo, "contrib/grafana/dlqd-dashboard.json")))
        exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
        bad = []
        for e in exprs:
            used = {base_name(n, names) for n in re.findall(r"\bdlqd_[a-z_]+", e)}
            if not used or not used <= names:
                bad.append(e)
            else:
                prom.query(e)           # raises when Prometheus refuses it
        check(exprs and not bad, "every dashboard query (%d) names exported metrics and evaluates: %s"
              % (len(exprs), bad))

        # ---- the endpoints themselves
        status, _, body = http(base + "/healthz")
        check(status == 200 and json.loads(body) == {"status": "serving"}, "/healthz: 200")
        status, _, body = http(base + "/readyz")
        check(status == 200 and json.loads(body) == {"ready": True}, "/readyz: 200 {\"ready\":true}")
        status, _, _ = http(base + "/nope")
        check(status == 404, "an unknown path: 404")
        status, headers, _ = http(base + "/metrics", method="POST", data=b"x")
        check(status == 405 and "GET" in headers.get("Allow", ""), "POST /metrics: 405 with Allow")
    finally:
        subprocess.run([script, "stop", promdir])
        gateway.stop()
        ctx.destroy(linger=0)
    check(gateway.proc.returncode == 0, "dlqd drains and exits 0 on SIGTERM with the HTTP listener up")
    readyz_on_full_disk(dlqd, work)
    if failures:
        print("%d check(s) failed; the logs are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def readyz_on_full_disk(dlqd, work):
    if os.geteuid() != 0:
        print("SKIP: /readyz on a full disk needs root (to mount a tmpfs)")
        return
    mnt = os.path.join(work, "tmpfs")
    os.makedirs(mnt)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mnt], capture_output=True)
    if mounted.returncode != 0:         # root without CAP_SYS_ADMIN (a container)
        print("SKIP: /readyz on a full disk: cannot mount a tmpfs here: %s" % mounted.stderr.decode().strip())
        return
    gateway = None
    try:
        port, http_port = free_port(), free_port()
        gdir = os.path.join(work, "full")
        os.makedirs(gdir)
        config = """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; spool_preallocate = false; };
http: { listen = ["127.0.0.1:%d"]; min_free_bytes = 4194304; };
""" % (port, mnt, http_port)
        gateway = Gateway(dlqd, gdir, config)
        base = "http://127.0.0.1:%d" % http_port
        wait_http(base + "/healthz")
        status, _, body = http(base + "/readyz")
        check(status == 200, "/readyz on the tmpfs: 200 while there is room (%s)" % body)
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
            except OSError:
                pass
        status, _, body = http(base + "/readyz")
        doc = json.loads(body)
        check(status == 503 and doc.get("ready") is False and doc.get("reason") == "disk"
              and "min_free_bytes" in doc.get("message", ""),
              "/readyz with the data_dir's filesystem full: 503 naming the disk (%s)" % body)
        os.unlink(filler)
        status, _, body = http(base + "/readyz")
        check(status == 200, "/readyz once space is freed: 200 again (%s)" % body)
    finally:
        if gateway:
            gateway.stop()
        subprocess.call(["umount", mnt])


if __name__ == "__main__":
    main()
