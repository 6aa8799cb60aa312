"""dlqd_harness — what the Python tests of dlqd share (tests/metrics,
tests/api, tests/console): the pass/fail checks they print and count, a
free loopback port, a dlqd started on a config text in a directory of its
own and stopped with SIGTERM, and waiting for its HTTP listener."""
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

failures = []


def check(cond, what):
    """Print ok: / FAIL: what, count a failure; return cond."""
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, method="GET", data=None, headers=None, timeout=10):
    """status, headers, body text of one request (HTTP errors included)."""
    req = urllib.request.Request(url, method=method, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def wait_http(url, seconds=30):
    """Wait until url answers (any status); its answer."""
    deadline = time.time() + seconds
    while True:
        try:
            return http(url, timeout=2)
        except OSError:
            if time.time() > deadline:
                raise SystemExit("nothing answers " + url)
            time.sleep(0.1)


class Gateway:
    """dlqd -c DIR/dlqd.conf (config text given), its output in DIR/dlqd.log."""

    def __init__(self, dlqd, workdir, config):
        self.dir = workdir
        path = os.path.join(workdir, "dlqd.conf")
        with open(path, "w") as f:
            f.write(config)
        self.log = open(os.path.join(workdir, "dlqd.log"), "w")
        self.proc = subprocess.Popen([dlqd, "-c", path], stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self):
        """SIGTERM, then wait (SIGKILL after 30 s); its exit status."""
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return self.proc.returncode


class WireClient:
    """A DEALER speaking the wire protocol: call(verb, body) -> (status, reply)."""

    def __init__(self, ctx, endpoint, timeout_ms=20000):
        import zmq
        self.s = ctx.socket(zmq.DEALER)
        self.s.setsockopt(zmq.LINGER, 0)
        self.s.setsockopt(zmq.RCVTIMEO, timeout_ms)
        self.s.connect(endpoint)
        self.n = 0

    def call(self, verb, body):
        import json
        self.n += 1
        rid = str(self.n).encode()
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.s.send_multipart([verb.encode(), rid, raw])
        status, got, reply = self.s.recv_multipart()
        assert got == rid
        return status.decode(), json.loads(reply)
