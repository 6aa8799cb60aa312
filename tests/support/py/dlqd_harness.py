"""dlqd_harness — what the Python tests of dlqd share (tests/metrics,
tests/api, tests/console, tests/wire): the pass/fail checks they print and
count, a free loopback port, a dlqd started on a config text in a directory
of its own and stopped with SIGTERM, waiting for its HTTP listener, CURVE
certificates of pyzmq's making, and a wire-protocol client."""
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


class EventStream:
    """GET path of an HTTP listener as Server-Sent Events: status, headers,
    and next() -> (event, data) of the next event (comments skipped; an
    event without "event:" is "message"), None when none came within the
    time, or when the stream ended (ended is then true). A thread reads the
    lines (a socket that timed out cannot be read on)."""

    def __init__(self, port, path, headers=None):
        import http.client
        import queue
        import threading
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.headers)
        self.ended = False
        self.lines = queue.Queue()
        if self.status == 200:
            self.conn.sock.settimeout(None)
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while True:
                line = self.response.readline()
                self.lines.put(line.decode() if line else None)
                if not line:
                    return
        except Exception:          # closed under it (close), or the connection gone
            self.lines.put(None)

    def body(self):
        return self.response.read().decode()

    def next(self, seconds=10):
        import queue
        import time
        deadline = time.time() + seconds
        event, data = "message", []
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                return None
            if line is None:
                self.ended = True
                return None
            line = line.rstrip("\n")
            if line == "":
                if data:
                    return event, "\n".join(data)
                event = "message"
            elif line.startswith(":"):
                continue
            elif line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])

    def close(self):
        """Shut the connection; the reading thread sees its end."""
        import socket
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def curve_keys(dirs, name, metadata=None, public_dir=None):
    """A pair NAME.key / NAME.key_secret made by pyzmq in dirs; into public_dir
    the public certificate with metadata, written here in the ZPL format of
    docs/security.md (pyzmq puts the metadata in the secret file only), with
    pyzmq's unquoted values. (public, secret) keys."""
    import zmq.auth
    public_file, secret_file = zmq.auth.create_certificates(dirs, name, metadata)
    os.chmod(secret_file, 0o600)
    public, secret = zmq.auth.load_certificate(secret_file)
    if public_dir:
        with open(os.path.join(public_dir, name + ".key"), "w") as f:
            f.write("#   ZeroMQ CURVE Public Certificate\nmetadata\n")
            for k, v in (metadata or {}).items():
                f.write("    %s = %s\n" % (k, v))
            f.write('curve\n    public-key = "%s"\n' % public.decode())
    return public, secret


class WireClient:
    """A DEALER speaking the wire protocol: call(verb, body) -> (status, reply);
    a CURVE client of server_public with pair (public, secret) when given."""

    def __init__(self, ctx, endpoint, timeout_ms=20000, server_public=None, pair=None):
        import zmq
        self.s = ctx.socket(zmq.DEALER)
        self.s.setsockopt(zmq.LINGER, 0)
        self.s.setsockopt(zmq.RCVTIMEO, timeout_ms)
        if server_public:
            self.s.curve_serverkey = server_public
            self.s.curve_publickey, self.s.curve_secretkey = pair
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
