#!/usr/bin/env python3
"""console_pages — how long each page of the operator console takes to be
interactive in a real browser (headless Chromium, selenium) on a big store.

One dlqd of the build on a temporary directory, an HTTP listener; N events
(default 1,000,000: three error kinds, two streams, ~1 KB each) PUT
pipelined over the wire protocol; once indexed, each page is opened K times
(default 5) in a fresh load of the page: the events page, the biggest
group's events, the groups page (with its histograms), one event, the
sinks page and the replay form. A page counts as interactive when its
table (or the event's JSON) is drawn from the API's answers and the status
line is empty; the groups page is timed twice: until its table is there
(its rows open their group), and until every histogram is drawn (24 COUNTs
for each of the 10 largest groups, filled in after the table). Prints p50 / max seconds
per page and the target: every page at most 1 s.

    contrib/bench/console_pages.py [--events N] [--repeat K] [--dlqd PATH]
Needs chromium, chromium-driver and python3-selenium (install-deps --test).
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

import zmq
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "support", "py"))
from dlqd_harness import Gateway, free_port, http, wait_http  # noqa: E402

TARGET_S = 1.0
WINDOW = 2000                   # PUTs in flight during the preload


def preload(endpoint, n):
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.RCVTIMEO, 60000)
    s.connect(endpoint)
    kinds = [("Timeout", "upstream timed out after 30000 ms"), ("Refused", "connection refused by 10.0.0.7"),
             ("Schema", "field total must be a number")]
    pad = "x" * 700
    sent = got = 0
    start = time.monotonic()
    while got < n:
        while sent < n and sent - got < WINDOW:
            kind, message = kinds[sent % 7 % 3]
            e = {"id": str(uuid.uuid4()), "streamName": "orders" if sent % 2 else "billing",
                 "error": {"type": kind, "message": message}, "fullDocument": {"n": sent, "note": pad}}
            s.send_multipart([b"PUT", b"", json.dumps(e).encode()])
            sent += 1
        status, _, body = s.recv_multipart()
        if status != b"OK":
            raise SystemExit("PUT refused: %s" % body)
        got += 1
        if got % 100000 == 0:
            print("preloaded %d of %d events" % (got, n), flush=True)
    print("preload: %d events in %.1f s" % (n, time.monotonic() - start), flush=True)
    s.close()
    ctx.destroy()


def indexed(base, n, seconds=1200):
    deadline = time.time() + seconds
    while time.time() < deadline:
        _, _, body = http(base + "/api/v1/stats")
        stats = json.loads(body)
        if stats["events"] == n and stats["spool"]["indexLagEvents"] == 0:
            return
        time.sleep(1)
    raise SystemExit("the store did not index the events in time")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def ready(driver, css, all_spark=False):
    def done(d):
        if d.find_element(By.ID, "status").text:
            return False
        if not d.find_elements(By.CSS_SELECTOR, css):
            return False
        return not all_spark or all(c.get_attribute("data-total") for c in d.find_elements(By.CSS_SELECTOR,
                                                                                             "td.spark"))
    WebDriverWait(driver, 60, poll_frequency=0.01).until(done)


def time_page(driver, url, css, repeat, all_spark=False):
    times = []
    for _ in range(repeat):
        driver.get("about:blank")
        start = time.monotonic()
        driver.get(url)
        ready(driver, css, all_spark)
        times.append(time.monotonic() - start)
    return statistics.median(times), max(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1000000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dlqd", default=os.path.join(HERE, "..", "..", "build", "router", "dlqd"))
    o = parser.parse_args()
    work = tempfile.mkdtemp(prefix="dlqd-console-pages-")
    port, http_port = free_port(), free_port()
    gateway = Gateway(os.path.abspath(o.dlqd), work, """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
sinks: { audit: { type = "noop"; }; };
defaults: { chain = ["audit"]; };
""" % (port, work, http_port))
    base = "http://127.0.0.1:%d" % http_port
    driver = None
    met = True
    try:
        wait_http(base + "/healthz")
        preload("tcp://127.0.0.1:%d" % port, o.events)
        indexed(base, o.events)
        groups = json.loads(http(base + "/api/v1/groups?limit=1")[2])["groups"]
        one = json.loads(http(base + "/api/v1/events?limit=1")[2])["events"][0]["id"]
        driver = browser()
        pages = [
            ("events, first page", "/#/events", "#events tbody tr", False, True),
            ("the biggest group's events", "/#/events?fingerprint=" + groups[0]["fingerprint"],
             "#events tbody tr", False, True),
            ("groups", "/#/groups", "#groups tbody tr", False, True),
            ("groups, histograms drawn", "/#/groups", "#groups tbody tr", True, False),
            ("one event", "/#/event/" + one, "#event-json", False, True),
            ("sinks", "/#/sinks", "#sinks tbody tr", False, True),
            ("replay preview form", "/#/replay", "#filters", False, True),
        ]
        print("\nthe console's pages, %d loads each, on %d stored events (seconds until interactive):"
              % (o.repeat, o.events))
        for label, path, css, spark, targeted in pages:
            p50, worst = time_page(driver, base + path, css, o.repeat, spark)
            ok = worst <= TARGET_S
            met = met and (ok or not targeted)
            verdict = ("  (target <= 1 s: %s)" % ("met" if ok else "MISSED")) if targeted else "  (drawn after the table)"
            print("  %-28s p50 %5.2f s  max %5.2f s%s" % (label, p50, worst, verdict))
        print("target (every page interactive within 1 s): %s" % ("met" if met else "MISSED"))
    finally:
        if driver:
            driver.quit()
        gateway.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
