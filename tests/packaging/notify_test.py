#!/usr/bin/env python3
"""notify_test — dlqd under a service manager, as systemd runs it with
Type=notify (docs/operations.md, "Running under systemd"): a datagram
socket of our own is its NOTIFY_SOCKET, WATCHDOG_USEC asks for a watchdog,
JOURNAL_STREAM names its stderr.

  - READY=1 comes once the listener answers (a PING sent when it comes is
    answered), with a STATUS= line; WATCHDOG=1 comes again and again;
  - SIGHUP reads the file's log_level again: at "error", an INFO line is
    no longer written;
  - log lines start with their syslog priority ("<6>" for INFO);
  - SIGTERM: STOPPING=1, then exit 0.

    notify_test.py DLQD
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import WireClient, check, failures, free_port  # noqa: E402


def messages(sock, seconds):
    """The notify datagrams that come within seconds, as lists of lines."""
    got, deadline = [], time.time() + seconds
    while time.time() < deadline:
        sock.settimeout(max(0.01, deadline - time.time()))
        try:
            got.append(sock.recv(4096).decode().split("\n"))
        except socket.timeout:
            break
    return got


def wait_for(sock, line, seconds):
    """Datagrams until one holds line (or seconds pass): (found, all)."""
    seen, deadline = [], time.time() + seconds
    while time.time() < deadline:
        batch = messages(sock, min(0.2, deadline - time.time()))
        seen += batch
        if any(line in m for m in batch):
            return True, seen
    return False, seen


def wait_log(path, line, count, seconds=10):
    """Wait until path holds line count times (or seconds pass); whether it does."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if open(path).read().count(line) >= count:
            return True
        time.sleep(0.05)
    return False


def main():
    import zmq
    dlqd = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="dlqd-notify-")
    port = free_port()
    conf = os.path.join(work, "dlqd.conf")

    def write_conf(level):
        with open(conf, "w") as f:
            f.write('gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };\nlog_level = "%s";\n'
                    % (port, work, level))
    write_conf("info")
    notify_path = os.path.join(work, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(notify_path)
    log_path = os.path.join(work, "dlqd.log")
    log = open(log_path, "w")
    st = os.fstat(log.fileno())
    env = dict(os.environ, NOTIFY_SOCKET=notify_path, WATCHDOG_USEC="600000",
               JOURNAL_STREAM="%d:%d" % (st.st_dev, st.st_ino))
    proc = subprocess.Popen([dlqd, "-c", conf], stdout=log, stderr=log, env=env)
    ctx = zmq.Context()
    try:
        ready, seen = wait_for(sock, "READY=1", 30)
        check(ready, "READY=1 comes (%s)" % seen)
        client = WireClient(ctx, "tcp://127.0.0.1:%d" % port, timeout_ms=2000)
        status, pong = client.call("PING", {})
        check(status == "OK" and pong["pong"], "when READY=1 comes, the listener answers a PING")
        check(any(line.startswith("STATUS=serving tcp://127.0.0.1:%d" % port) for m in seen for line in m),
              "READY=1 comes with a STATUS= line naming the endpoint")
        later = messages(sock, 2.0)
        dogs = sum(1 for m in later if "WATCHDOG=1" in m)
        check(dogs >= 4, "WATCHDOG=1 comes every 300 ms with WATCHDOG_USEC=600000 (%d in 2 s)" % dogs)

        write_conf("error")
        # each reload logs "SIGHUP: log_level X" at INFO before it applies X, so at "error" the
        # second reload's line is not written; a third, of a file that no longer loads, logs an
        # ERROR after it (signals are taken in order): once that is there, the second was read.
        proc.send_signal(signal.SIGHUP)
        check(wait_log(log_path, "SIGHUP: log_level error", 1), "the first SIGHUP reads log_level error")
        proc.send_signal(signal.SIGHUP)
        with open(conf, "w") as f:
            f.write("gateway: { listen = [ }\n")
        proc.send_signal(signal.SIGHUP)
        check(wait_log(log_path, "no longer loads, the log level stays", 1),
              "a SIGHUP of a file that no longer loads keeps the level, with an ERROR line")
        check(open(log_path).read().count("SIGHUP: log_level error") == 1,
              "SIGHUP reads log_level again: at \"error\" the second reload's INFO line is not written")
        lines = [line for line in open(log_path).read().splitlines() if line]
        check(lines and all(line[:3] in ("<7>", "<6>", "<4>", "<3>") for line in lines)
              and any(line.startswith("<6>") and " INFO " in line for line in lines),
              "with JOURNAL_STREAM naming stderr, each line starts with its syslog priority (<6> for INFO)")
        client.s.close()

        proc.send_signal(signal.SIGTERM)
        stopping, seen = wait_for(sock, "STOPPING=1", 30)
        check(stopping, "SIGTERM: STOPPING=1 comes")
        check(proc.wait(30) == 0, "dlqd exits 0")
    finally:
        if proc.poll() is None:
            proc.kill()
        ctx.destroy(linger=0)
        log.close()
    if failures:
        print("%d check(s) failed; dlqd's files are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


if __name__ == "__main__":
    main()
