#!/usr/bin/env python3
"""console_test — an operator's tasks in the console, in a real headless
Chromium (Debian's chromium and chromium-driver, driven with selenium),
against a real dlqd filled with a mixed workload over the wire protocol:

  1. the groups page lists what is failing; the biggest group opens its
     events (every row of that fingerprint);
  2. a replay of that group by query: the preview counts exactly the
     group, the job runs to a noop sink's route and reaches DONE with every
     event replayed;
  3. an event whose delivery failed at a sink: its page shows the error,
     the stack trace and the failed delivery; "Redeliver" requeues it and
     the delivery is retried (the sink's ledger says so over the API);
  4. an event that is a replay shows its lineage (replayOf) and the
     original opens from it;
  5. the sinks page shows each sink's state and redelivers what failed;
  6. live: a failure stored while the events page is open is announced
     without the page moving (the page follows GET events/stream, Server-Sent
     Events);
  7. the page loads nothing but its own files and the API (no console
     error, no request to another origin) under its Content-Security-Policy;
  8. a gateway with security.curve: the console asks for a token (a wrong
     one is refused); signed in as a viewer there is no action to press
     (no Replay, Resolve, Fail, Redeliver, edit, replay by query), and the
     API refuses them when sent from the page with the viewer's token;
     signing out forgets the token; an operator's token shows the actions.

Each page visited is saved as a PNG in the directory given (the build's
tests/console/screenshots), for people to look at.

    console_test.py DLQD SCREENSHOT_DIR
"""
import hashlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
import urllib.request
import uuid

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "py"))
from dlqd_harness import Gateway, WireClient, check, curve_keys, failures, free_port, wait_http  # noqa: E402
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

def api(base, path):
    with urllib.request.urlopen(base + "/api/v1/" + path, timeout=10) as r:
        return json.loads(r.read())


def failed_total(base):
    """dlqd_sink_failed_total of the sink flaky, from /metrics."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line.startswith('dlqd_sink_failed_total{sink="flaky"} '):
                return float(line.split()[-1])
    return None


def put(wire, event):
    wire.send_multipart([b"PUT", event["id"].encode(), json.dumps(event).encode()])
    status, _, body = wire.recv_multipart()
    assert status == b"OK", body


def workload(wire):
    """Three kinds of failure in two streams; 'bad' is failed by the flaky sink."""
    kinds = [("Timeout", "upstream timed out after 30000 ms", 24), ("Refused", "connection refused by 10.0.0.7", 9),
             ("Schema", "field total must be a number", 5)]
    ids = {}
    for kind, message, n in kinds:
        for i in range(n):
            e = {"id": str(uuid.uuid4()), "streamName": "bad" if kind == "Schema" else "orders",
                 "error": {"type": kind, "message": message,
                           "stackTrace": "at Worker.process (worker.js:%d)\nat main (main.js:1)" % (10 + i)},
                 "fullDocument": {"order": i, "total": "12.50" if kind == "Schema" else 12.5},
                 "metadata": {"tenant": "acme"}}
            put(wire, e)
            ids.setdefault(kind, []).append(e["id"])
    return ids


class Browser:
    def __init__(self, shots):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
                    "--disable-dev-shm-usage"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.shots = shots
        self.n = 0

    def open(self, url):
        self.driver.get(url)

    def wait(self, css, seconds=15):
        return WebDriverWait(self.driver, seconds).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))

    def wait_text(self, css, text, seconds=20):
        WebDriverWait(self.driver, seconds).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))

    def click(self, css, seconds=15):
        """Click css once it is there; again when the page redrew it between
        finding and clicking (the job page redraws every second)."""
        from selenium.common.exceptions import StaleElementReferenceException
        for _ in range(10):
            try:
                return self.wait(css, seconds).click()
            except StaleElementReferenceException:
                time.sleep(0.1)
        raise SystemExit("%s went stale ten times" % css)

    def text(self, css):
        """The text of css, read again when the page redrew it meanwhile."""
        from selenium.common.exceptions import StaleElementReferenceException
        for _ in range(10):
            try:
                return self.wait(css).text
            except StaleElementReferenceException:
                time.sleep(0.1)
        raise SystemExit("%s went stale ten times" % css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def shot(self, name):
        self.n += 1
        self.driver.save_screenshot(os.path.join(self.shots, "%02d-%s.png" % (self.n, name)))

    def quit(self):
        self.driver.quit()


def main():
    dlqd, shots = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(shots, ignore_errors=True)
    os.makedirs(shots)
    work = tempfile.mkdtemp(prefix="dlqd-console-")
    port, http_port = free_port(), free_port()
    config = """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
sinks: { audit: { type = "noop"; }; flaky: { type = "scripted"; fail_stream = "bad"; }; replays: { type = "noop"; }; };
defaults: { chain = ["audit", "flaky"]; replay_route = "replays"; };
""" % (port, work, http_port)
    gateway = Gateway(dlqd, work, config)
    base = "http://127.0.0.1:%d" % http_port
    ctx = zmq.Context()
    browser = None
    try:
        wait_http(base + "/healthz")
        wire = ctx.socket(zmq.DEALER)
        wire.setsockopt(zmq.RCVTIMEO, 20000)
        wire.connect("tcp://127.0.0.1:%d" % port)
        ids = workload(wire)
        browser = Browser(shots)
        tasks(browser, base, wire, ids)
        problems = [e for e in browser.driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        check(not problems, "no console error or warning in the page (CSP included): %s" % problems)
        requests = set()
        for entry in browser.driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                requests.add(msg["params"]["request"]["url"])
        foreign = [u for u in requests if not u.startswith(base) and not u.startswith("data:")]
        check(requests and not foreign, "every request went to this dlqd (%d requests; others: %s)"
              % (len(requests), foreign))
        check(any("/api/v1/events/stream" in u for u in requests),
              "the events page follows the live events (a request to /api/v1/events/stream)")
        viewer_tasks(browser, dlqd, work, ctx)
    finally:
        if browser:
            browser.quit()
        status = gateway.stop()
        ctx.destroy(linger=0)
    check(status == 0, "dlqd exits 0 on SIGTERM")
    print("screenshots: %s" % shots)
    if failures:
        print("%d check(s) failed; dlqd's files are in %s" % (len(failures), work))
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")


def tasks(b, base, wire, ids):
    # 1. the biggest group, opened
    b.open(base + "/#/groups")
    b.wait("#groups tbody tr")
    b.shot("groups")
    rows = b.all("#groups tbody tr")
    counts = [int(r.find_elements(By.CSS_SELECTOR, "td")[1].text) for r in rows]
    check(counts == sorted(counts, reverse=True) and counts[0] == 24,
          "the groups page lists the groups largest first (%s)" % counts)
    WebDriverWait(b.driver, 20).until(lambda d: all(c.get_attribute("data-total") for c in b.all("#groups td.spark")))
    b.shot("groups-histograms")
    totals = [int(c.get_attribute("data-total")) for c in b.all("#groups td.spark")]
    check(totals == counts, "each group's histogram of the last 24 hours adds up to its count (%s)" % totals)
    fingerprint = rows[0].get_attribute("data-fingerprint")
    rows[0].click()
    b.wait("#events tbody tr")
    b.shot("group-events")
    listed = {r.get_attribute("data-id") for r in b.all("#events tbody tr")}
    check(listed == set(ids["Timeout"]), "the biggest group opens its 24 events, and only them (%d)" % len(listed))
    check("fingerprint=" + fingerprint in b.driver.current_url, "the events page is filtered on the fingerprint")

    # 2. replay that group by query
    b.driver.find_element(By.ID, "replay-query").click()
    b.wait("#filters")
    check(b.driver.find_element(By.NAME, "fingerprint").get_attribute("value") == fingerprint,
          "the replay page starts from the events' filters")
    b.driver.find_element(By.ID, "apply").click()
    b.wait("#dry-count")
    b.shot("replay-preview")
    check(b.driver.find_element(By.ID, "dry-count").text == "24" and len(b.all("#preview #events tbody tr")) == 10,
          "the preview counts the group (24) and shows a sample of 10 before anything is sent")
    put(wire, {"id": str(uuid.uuid4()), "streamName": "orders",
               "error": {"type": "Timeout", "message": "upstream timed out after 30000 ms"}})
    b.driver.find_element(By.ID, "start").click()
    b.wait_text("#job-state", "DONE", 30)
    b.shot("replay-done")
    job_id = b.driver.current_url.rsplit("/", 1)[1]
    job = api(base, "replays/" + job_id)
    check(job["state"] == "DONE" and job["total"] == 24 and job["replayed"] == 24,
          "the job replayed exactly the 24 previewed, not the one stored after the preview (%s)" % job)
    check(b.text("#job-done") == "24 / 24", "the job page shows 24 / 24")

    # 3. an event whose delivery failed; redeliver it
    bad = ids["Schema"][0]
    deadline = time.time() + 20
    while time.time() < deadline:
        states = {d["sink"]: d["state"] for d in api(base, "events/" + bad).get("deliveries", [])}
        if states.get("flaky") == "failed":
            break
        time.sleep(0.2)
    b.open(base + "/#/event/" + bad)
    b.wait("#deliveries")
    b.shot("event-failed")
    check("worker.js:10" in b.driver.find_element(By.ID, "stack").text, "the event page shows the stack trace")
    flaky_row = b.driver.find_element(By.CSS_SELECTOR, "#deliveries tr[data-sink=flaky]")
    check("failed" in flaky_row.text, "it shows the failed delivery at flaky")
    failures_before = failed_total(base)
    flaky_row.find_element(By.TAG_NAME, "button").click()
    b.wait_text("#action-result", "requeued 1 at flaky")
    b.shot("event-redelivered")
    deadline = time.time() + 20
    while failed_total(base) == failures_before and time.time() < deadline:   # its stream still fails there
        time.sleep(0.2)
    check(failed_total(base) == failures_before + 1,
          "Redeliver requeued the failed delivery: flaky tried it again, and it failed again")

    # 3b. edit the failed event's payload and replay the corrected copy
    b.open(base + "/#/event/" + bad)
    area = b.wait("#edit")
    text = area.get_attribute("value")
    check('"total": "12.50"' in text, "the editor holds the event's payload")
    area.clear()
    area.send_keys(text.replace('"total": "12.50"', '"total": 12.5'))
    b.driver.find_element(By.ID, "edit-diff").click()
    b.wait("#edit-diff-out .diff-add")
    b.shot("event-edit-diff")
    removed = [d.text for d in b.all("#edit-diff-out .diff-del")]
    added = [d.text for d in b.all("#edit-diff-out .diff-add")]
    check(removed == ['-     "total": "12.50"'] and added == ['+     "total": 12.5'],
          "the page shows the diff: %s / %s" % (removed, added))
    area.send_keys(" ")
    check(not b.driver.find_element(By.ID, "edit-replay").is_enabled(),
          "an edit after the diff was shown disables the replay until the diff is shown again")
    b.driver.find_element(By.ID, "edit-diff").click()
    b.driver.find_element(By.ID, "edit-replay").click()
    b.wait_text("#job-state", "DONE", 30)
    b.shot("event-edit-replayed")
    job = api(base, "replays/" + b.driver.current_url.rsplit("/", 1)[1])
    check(job["total"] == 1 and job["replayed"] == 1, "the corrected copy was replayed (%s)" % job)
    stored = api(base, "events/" + bad)["event"]
    check(stored["fullDocument"]["total"] == "12.50", "the stored original never changes")

    # 4. lineage: a replayed copy that failed again and came back names its original (metadata.replayOf)
    original = ids["Refused"][0]
    copy = {"id": str(uuid.uuid4()), "streamName": "orders", "metadata": {"replayOf": original, "replayCount": 1},
            "error": {"type": "Refused", "message": "connection refused by 10.0.0.7"}}
    put(wire, copy)
    b.open(base + "/#/event/" + copy["id"])
    b.wait("#lineage a")
    b.shot("event-lineage")
    link = b.driver.find_element(By.CSS_SELECTOR, "#lineage a")
    check(original in link.text, "a replayed event shows its original in the lineage")
    link.click()
    b.wait_text("h2", original)

    # 4b. a slow job paused, resumed and cancelled from its page
    b.open(base + "/#/replay?errorType=Refused")
    b.wait("#rate").clear()
    b.driver.find_element(By.ID, "rate").send_keys("1")
    b.driver.find_element(By.ID, "apply").click()
    b.wait("#start").click()
    b.click("#job-pause")
    b.wait_text("#job-state", "PAUSED")
    b.click("#job-resume")
    b.wait_text("#job-state", "RUNNING")
    b.click("#job-cancel")
    b.wait_text("#job-state", "CANCELLED")
    b.shot("job-cancelled")
    slow = api(base, "replays/" + b.driver.current_url.rsplit("/", 1)[1])
    check(slow["state"] == "CANCELLED" and slow["done"] < slow["total"],
          "a job is paused, resumed and cancelled from its page, before its end (%s)" % slow)

    # 5. sinks: state and redeliver what failed
    b.open(base + "/#/sinks")
    b.wait("#sinks tr[data-sink=flaky]")
    b.shot("sinks")
    flaky = b.driver.find_element(By.CSS_SELECTOR, "#sinks tr[data-sink=flaky]").text
    check("closed" in flaky, "the sinks page shows flaky's circuit: %s" % flaky)
    buttons = b.all("#redeliver-flaky")
    if check(bool(buttons), "flaky offers to redeliver what failed"):
        buttons[0].click()
        b.wait_text("#sink-result", "requeued")

    # 6. live: a new failure while the events page is open
    b.open(base + "/#/events?streamName=orders")
    b.wait("#events tbody tr")
    first = b.all("#events tbody tr")[0].get_attribute("data-id")
    put(wire, {"id": str(uuid.uuid4()), "streamName": "orders", "error": {"type": "Late", "message": "arrived late"}})
    WebDriverWait(b.driver, 15).until(lambda d: not d.find_element(By.ID, "live").get_attribute("hidden"))
    b.shot("events-live")
    check("1 new failure" in b.driver.find_element(By.ID, "live").text
          and b.all("#events tbody tr")[0].get_attribute("data-id") == first,
          "a new failure is announced and the page being read does not move")
    b.driver.find_element(By.ID, "show-new").click()
    b.wait_text("#events tbody tr:first-child", "Late")
    rows = b.all("#events tbody tr")
    check(rows[1].get_attribute("data-id") == first, "'show them' brings it to the top, above what was first")


def secure_gateway(dlqd, work, ctx):
    """A second dlqd with security.curve: a worker key, a viewer's and an
    operator's tokens; two events of orders and one of bad, which the
    flaky sink fails. (gateway, base, tokens, ids)"""
    secure = os.path.join(work, "secure")
    keys, clients = os.path.join(secure, "keys"), os.path.join(secure, "clients")
    os.makedirs(keys)
    os.makedirs(clients)
    server = curve_keys(keys, "gateway", {"name": "gateway"})
    tokens = {"viewer": "tv_" + secrets.token_urlsafe(32), "operator": "to_" + secrets.token_urlsafe(32)}
    for name, role in (("viewer", "viewer"), ("operator", "operator")):
        curve_keys(keys, name, {"name": name, "role": role, "streams": "*",
                                "token_sha256": hashlib.sha256(tokens[name].encode()).hexdigest()}, clients)
    worker = curve_keys(keys, "worker", {"name": "worker", "role": "worker", "streams": "*"}, clients)
    port, http_port = free_port(), free_port()
    config = """
gateway: { listen = ["tcp://127.0.0.1:%d"]; data_dir = "%s/data"; };
http: { listen = ["127.0.0.1:%d"]; };
security: { curve: { server_secret_key = "%s/gateway.key_secret"; clients = "%s"; }; };
sinks: { audit: { type = "noop"; }; flaky: { type = "scripted"; fail_stream = "bad"; }; replays: { type = "noop"; }; };
defaults: { chain = ["audit", "flaky"]; replay_route = "replays"; };
""" % (port, secure, http_port, keys, clients)
    gateway = Gateway(dlqd, secure, config)
    base = "http://127.0.0.1:%d" % http_port
    wait_http(base + "/healthz")
    client = WireClient(ctx, "tcp://127.0.0.1:%d" % port, server_public=server[0], pair=worker)
    ids = []
    for stream in ("orders", "orders", "bad"):
        e = {"id": str(uuid.uuid4()), "streamName": stream, "error": {"type": "Timeout", "message": "slow"},
             "fullDocument": {"n": len(ids)}}
        status, reply = client.call("PUT", e)
        assert status == "OK", reply
        ids.append(e["id"])
    deadline = time.time() + 20
    while time.time() < deadline:
        req = urllib.request.Request(base + "/api/v1/events/" + ids[2],
                                     headers={"Authorization": "Bearer " + tokens["operator"]})
        with urllib.request.urlopen(req, timeout=10) as r:
            got = json.loads(r.read())
        if any(d["sink"] == "flaky" and d["state"] == "failed" for d in got.get("deliveries", [])):
            break
        time.sleep(0.2)
    return gateway, base, tokens, ids, client


def sign_in(b, token):
    field = b.wait("#sign-in #token")
    field.clear()
    field.send_keys(token)
    b.driver.find_element(By.ID, "sign-in-button").click()


def page_fetch(b, method, path, body):
    """The status and code of a request the page sends itself with the tab's token."""
    return b.driver.execute_async_script("""
        const [method, path, body, done] = arguments;
        fetch ("/api/v1/" + path, { method, headers: { "Content-Type": "application/json",
               "Authorization": "Bearer " + sessionStorage.getItem ("dlqd-token") }, body: JSON.stringify (body) })
          .then (async (r) => done ([r.status, (await r.json ()).code]))
          .catch ((e) => done ([0, String (e)]));""", method, path, body)


def viewer_tasks(b, dlqd, work, ctx):
    gateway, base, tokens, ids, worker = secure_gateway(dlqd, work, ctx)
    try:
        b.open(base + "/#/events")
        b.wait("#sign-in")
        b.shot("sign-in")
        check(not b.all("#events"), "with security.curve the console asks for a token before it shows events")
        sign_in(b, "not-a-token")
        b.wait_text("#status", "not one of the gateway's")
        check(bool(b.all("#sign-in")), "a wrong token is refused and the form stays")
        sign_in(b, tokens["viewer"])
        b.wait("#events tbody tr")
        b.shot("viewer-events")
        check(b.driver.find_element(By.ID, "who-role").text == "viewer"
              and b.driver.find_element(By.ID, "who-name").text == "viewer", "the header names the viewer")
        check(not b.driver.find_element(By.ID, "nav-replay").is_displayed() and not b.all("#replay-query"),
              "a viewer has no Replay in the menu and no replay-by-query link")
        status, _ = worker.call("PUT", {"id": str(uuid.uuid4()), "streamName": "orders",
                                        "error": {"type": "Late", "message": "while the viewer looks"}})
        WebDriverWait(b.driver, 15).until(lambda d: not d.find_element(By.ID, "live").get_attribute("hidden"))
        check(status == "OK" and "1 new failure" in b.driver.find_element(By.ID, "live").text,
              "the viewer's events page hears of a new failure (its stream sends the token)")
        b.open(base + "/#/event/" + ids[2])
        b.wait_text("#deliveries", "failed")
        b.shot("viewer-event")
        present = [css for css in ("#act-replay", "#act-resolve", "#act-fail", "#editor", "#edit-replay",
                                   "button[id^=act-redeliver]") if b.all(css)]
        check(not present, "a viewer's event page has no action to press, its failed delivery included: %s"
              % present)
        b.open(base + "/#/sinks")
        b.wait("#sinks tr[data-sink=flaky]")
        b.shot("viewer-sinks")
        check(not b.all("#redeliver-flaky"), "a viewer's sinks page offers no redeliver")
        b.open(base + "/#/replay")
        b.wait("#not-allowed")
        check(not b.all("#filters"), "the replay page says a viewer may not replay and offers no form")
        refused = [page_fetch(b, "POST", "replays", {"ids": [ids[0]]}),
                   page_fetch(b, "POST", "sinks/flaky/redeliver", {}),
                   page_fetch(b, "POST", "events/%s/resolve" % ids[0], {})]
        check(all(r == [403, "FORBIDDEN"] for r in refused),
              "the API refuses the viewer's REPLAY, REDELIVER and RESOLVE sent from the page: %s" % refused)
        b.driver.find_element(By.ID, "sign-out").click()
        b.wait("#sign-in")
        check(b.driver.execute_script("return sessionStorage.getItem ('dlqd-token')") is None,
              "signing out forgets the token")
        sign_in(b, tokens["operator"])
        b.wait("#filters")          # back on the replay page, now with its form
        check(b.driver.find_element(By.ID, "who-role").text == "operator", "signed in again, as the operator")
        b.open(base + "/#/event/" + ids[2])
        b.wait("#act-replay")
        b.shot("operator-event")
        check(bool(b.all("button[id^=act-redeliver]")) and bool(b.all("#editor")),
              "an operator's event page offers replay, redeliver and edit")
    finally:
        worker.s.close()
        check(gateway.stop() == 0, "the secured dlqd exits 0 on SIGTERM")


if __name__ == "__main__":
    main()
