/* console.js — the operator console (docs/console.md): one page, views
 * chosen by the URL's hash, every figure read from the HTTP API under
 * /api/v1/ (docs/api.md) and every action sent to it. Text from events is
 * only ever set as text (textContent), never as HTML. With security.curve
 * it asks for a token (kept in this tab's sessionStorage, sent as
 * Authorization: Bearer) and shows only the actions the token's role may
 * take (whoami's verbs); the API refuses the others anyway. */
"use strict";

const API = "/api/v1/";
const FILTERS = ["streamName", "status", "errorType", "fingerprint", "createdAfter", "createdBefore",
                 "attemptsMin", "attemptsMax", "messageContains"];
const GROUP_FILTERS = ["streamName", "status", "errorType", "createdAfter", "createdBefore", "messageContains"];
const PAGE = 50;
const RECONNECT_MS = 3000;

const TOKEN_KEY = "dlqd-token";

let timers = [];                    /* the current view's pollers, stopped when the view changes */
let streams = [];                   /* the current view's event streams: each a function that stops it */
let me = null;                      /* whoami's principal; null without security.curve: every action */

/* ---- helpers ---------------------------------------------------------------------- */

function el (tag, props, ...kids) {
  const node = document.createElement (tag);
  for (const [k, v] of Object.entries (props || {})) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k.startsWith ("on")) node.addEventListener (k.slice (2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute (k, v === true ? "" : v);
  }
  for (const kid of kids.flat ())
    if (kid !== null && kid !== undefined)
      node.append (kid instanceof Node ? kid : document.createTextNode (String (kid)));
  return node;
}

function show (...nodes) {
  const main = document.getElementById ("main");
  main.replaceChildren (...nodes);
}

function status (text, error) {
  const s = document.getElementById ("status");
  s.textContent = text || "";
  s.className = error ? "error" : "";
}

async function api (method, path, options) {
  const opts = options || {};
  let url = API + path;
  if (opts.query) {
    const q = new URLSearchParams ();
    for (const [k, v] of Object.entries (opts.query))
      if (v !== undefined && v !== null && v !== "") q.append (k, v);
    if ([...q].length) url += "?" + q.toString ();
  }
  const init = { method, headers: {} };
  const token = sessionStorage.getItem (TOKEN_KEY);
  if (token)
    init.headers["Authorization"] = "Bearer " + token;
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";      /* also without a body: the API wants it */
    if (opts.body !== undefined)
      init.body = JSON.stringify (opts.body);
  }
  const response = await fetch (url, init);
  let data = null;
  try { data = await response.json (); } catch (e) { data = null; }
  if (!response.ok) {
    const why = data && data.message ? data.code + ": " + data.message : "HTTP " + response.status;
    const err = new Error (why);
    err.status = response.status;
    err.body = data;
    if (response.status === 401 && !opts.signingIn)
      signIn (why);
    throw err;
  }
  return data;
}

/* Follow GET path (an event stream, docs/api.md "Live events") with the
 * query: on (event, data) for each event; reconnects after RECONNECT_MS
 * when it ends, until the view changes. fetch, not EventSource: only
 * fetch can send the token. */
function follow (path, query, on) {
  const controller = new AbortController ();
  let stopped = false;
  streams.push (() => { stopped = true; controller.abort (); });
  const q = new URLSearchParams ();
  for (const [k, v] of Object.entries (query))
    if (v !== undefined && v !== null && v !== "") q.append (k, v);
  const url = API + path + ([...q].length ? "?" + q.toString () : "");
  const block = (text) => {
    let event = "message";
    const data = [];
    for (const line of text.split ("\n")) {
      if (line.startsWith ("event: ")) event = line.slice (7);
      else if (line.startsWith ("data: ")) data.push (line.slice (6));
    }
    if (data.length) on (event, data.join ("\n"));
  };
  (async () => {
    while (!stopped) {
      try {
        const headers = {};
        const token = sessionStorage.getItem (TOKEN_KEY);
        if (token) headers["Authorization"] = "Bearer " + token;
        const response = await fetch (url, { headers, signal: controller.signal });
        if (response.status === 401) { signIn ("the gateway refused this tab's token"); return; }
        if (response.ok) {
          const reader = response.body.getReader ();
          const decoder = new TextDecoder ();
          let text = "";
          for (;;) {
            const { value, done } = await reader.read ();
            if (done) break;
            text += decoder.decode (value, { stream: true });
            for (let end; (end = text.indexOf ("\n\n")) >= 0; text = text.slice (end + 2))
              block (text.slice (0, end));
          }
        }
      } catch (e) { /* aborted, or the connection lost: the loop decides */ }
      if (!stopped) await new Promise ((done) => setTimeout (done, RECONNECT_MS));
    }
  }) ();
}

/* Stop the current view's pollers and streams. */
function stopLive () {
  for (const t of timers) clearInterval (t);
  timers = [];
  for (const stop of streams) stop ();
  streams = [];
}

/* May the signed-in principal call verb? Without security.curve, yes. */
function may (verb) { return !me || me.verbs.includes (verb); }

/* ---- signing in (security.curve) ---------------------------------------------------- */

/* Who the token is (whoami), in the header; false when the gateway wants
 * a token this tab does not have (or one it refused). */
async function whoami () {
  try {
    const got = await api ("GET", "whoami", { signingIn: true });
    me = got.principal || null;
  } catch (e) {
    if (e.status === 401) return false;
    throw e;
  }
  const who = document.getElementById ("who");
  who.replaceChildren ();
  if (me)
    who.append (el ("span", { id: "who-name", text: me.name }), " ", el ("span", { id: "who-role", class: "muted",
                text: me.role }), " ", el ("button", { class: "secondary", id: "sign-out", onclick: () => {
                  sessionStorage.removeItem (TOKEN_KEY);
                  me = null;
                  signIn ("");
                } }, "Sign out"));
  for (const [id, verb] of [["nav-replay", "REPLAY"]])
    document.getElementById (id).hidden = !may (verb);
  return true;
}

/* The sign-in form instead of the view: a principal's token (dlqctl keygen --token). */
function signIn (why) {
  stopLive ();
  document.getElementById ("who").replaceChildren ();
  const input = el ("input", { type: "password", id: "token", name: "token", size: 60, autocomplete: "off",
                               placeholder: "dlqd_…" });
  const form = el ("form", { id: "sign-in", class: "filters", onsubmit: async (ev) => {
    ev.preventDefault ();
    sessionStorage.setItem (TOKEN_KEY, input.value.trim ());
    try {
      if (await whoami ()) { status (""); route (); }
      else { sessionStorage.removeItem (TOKEN_KEY); status ("this token is not one of the gateway's", true); }
    } catch (e) { status (e.message, true); }
  } }, el ("label", {}, "token", input), el ("button", { type: "submit", id: "sign-in-button" }, "Sign in"));
  show (el ("h2", { text: "Sign in" }),
        el ("p", { class: "muted", text: "This gateway authenticates its clients: give a token of yours " +
                                          "(dlqctl keygen NAME --role viewer|operator --token). It is kept in " +
                                          "this tab only, until the tab is closed or you sign out." }), form);
  status (why || "", !!why);
  input.focus ();
}

function params () {
  const hash = location.hash.replace (/^#/, "") || "/events";
  const [path, query] = hash.split ("?");
  return { path, query: new URLSearchParams (query || "") };
}

function go (path, query) {
  const q = query ? new URLSearchParams (query).toString () : "";
  location.hash = "#" + path + (q ? "?" + q : "");
}

function pick (query, names) {
  const out = {};
  for (const n of names)
    if (query.get (n)) out[n] = query.get (n);
  for (const [k, v] of query)
    if (k.startsWith ("metadata.") && v) out[k] = v;
  return out;
}

function when (iso) { return iso ? iso.replace ("T", " ").replace (/\.\d+Z$/, "Z") : ""; }

function short (text, n) {
  const s = text || "";
  return s.length > n ? s.slice (0, n - 1) + "…" : s;
}

function badge (state) { return el ("span", { class: "state-" + state, text: state }); }

function guard (view) {
  return async (...args) => {
    try { status ("…"); await view (...args); status (""); }
    catch (e) { status (e.message, true); }
  };
}

/* A filter form over names, filled from values; submit calls done (values). */
function filterForm (names, values, label, done, extra) {
  const inputs = {};
  const form = el ("form", { class: "filters", id: "filters" });
  for (const n of names) {
    inputs[n] = el ("input", { name: n, value: values[n] || "", size: n.startsWith ("attempts") ? 4 : 18,
                               placeholder: n.startsWith ("created") ? "2026-12-01T00:00:00Z" : "" });
    form.append (el ("label", {}, n, inputs[n]));
  }
  const meta = el ("input", { name: "metadata", size: 18, placeholder: "key=value, ...",
                               value: Object.entries (values).filter (([k]) => k.startsWith ("metadata."))
                                 .map (([k, v]) => k.slice (9) + "=" + v).join (", ") });
  form.append (el ("label", {}, "metadata", meta));
  if (extra)
    form.append (...extra);
  form.append (el ("button", { type: "submit", id: "apply" }, label));
  form.addEventListener ("submit", (ev) => {
    ev.preventDefault ();
    const out = {};
    for (const n of names)
      if (inputs[n].value.trim ()) out[n] = inputs[n].value.trim ();
    for (const pair of meta.value.split (",")) {
      const at = pair.indexOf ("=");
      if (at > 0) out["metadata." + pair.slice (0, at).trim ()] = pair.slice (at + 1).trim ();
    }
    done (out);
  });
  return form;
}

function eventRows (events) {
  return events.map ((e) => el ("tr", { class: "clickable", "data-id": e.id, onclick: () => go ("/event/" + e.id) },
    el ("td", { class: "mono", text: when (e.createdAt) }),
    el ("td", { text: e.streamName }),
    el ("td", {}, badge (e.status)),
    el ("td", { text: e.error ? e.error.type || "" : "" }),
    el ("td", { text: short (e.error ? e.error.message : "", 90) }),
    el ("td", { class: "num", text: e.attempts === undefined ? "" : e.attempts })));
}

function eventTable (events) {
  return el ("table", { id: "events" },
    el ("thead", {}, el ("tr", {}, ["created", "stream", "status", "error type", "message", "attempts"]
      .map ((h) => el ("th", { text: h, class: h === "attempts" ? "num" : "" })))),
    el ("tbody", {}, eventRows (events)));
}

/* ---- events ------------------------------------------------------------------------ */

async function viewEvents (query) {
  const filters = pick (query, FILTERS);
  const cursor = query.get ("cursor") || "";
  const page = await api ("GET", "events", { query: Object.assign ({ limit: PAGE, cursor }, filters) });
  const banner = el ("div", { class: "banner", id: "live", hidden: true });
  const older = el ("button", { class: "secondary", id: "older", disabled: !page.nextCursor,
    onclick: () => go ("/events", Object.assign ({}, filters, { cursor: page.nextCursor })) }, "Older →");
  const newest = el ("button", { class: "secondary", id: "newest", disabled: !cursor,
    onclick: () => go ("/events", filters) }, "⇤ Newest");
  show (el ("h2", { text: "Events" }),
        filterForm (FILTERS, filters, "Filter", (f) => go ("/events", f)),
        el ("div", { class: "actions" },
          may ("REPLAY") ? el ("a", { href: "#/replay?" + new URLSearchParams (filters).toString (),
                                      id: "replay-query" }, "Replay everything that matches…") : null,
          el ("a", { href: "#/groups?" + new URLSearchParams (pick (query, GROUP_FILTERS)).toString () },
              "Group these")),
        banner,
        page.events.length ? eventTable (page.events) : el ("p", { class: "muted", text: "No events match." }),
        el ("div", { class: "pager" }, newest, older));
  if (cursor)
    return;
  /* live (Server-Sent Events): new failures are announced, the page being read stays as it is */
  const seen = new Set (page.events.map ((e) => e.id));
  let more = false;
  follow ("events/stream", filters, (event, data) => {
    if (event === "failure") {
      try { seen.add (JSON.parse (data).id); } catch (e) { return; }
    } else if (event === "overflow") more = true;
    else if (event === "error") {             /* the stream's look refused: a revoked token, say */
      let err = {};
      try { err = JSON.parse (data); } catch (e) { /* shown as it came */ }
      if (err.code === "UNAUTHENTICATED") signIn (err.code + ": " + err.message);
      else status (err.message ? err.code + ": " + err.message : data, true);
      return;
    }
    else return;
    const n = seen.size - page.events.length;
    if (n <= 0) return;
    banner.hidden = false;
    banner.replaceChildren (n + (n === 1 ? " new failure" : " new failures") + (more ? " or more" : "") + " ",
      el ("a", { href: "#", id: "show-new", onclick: (ev) => { ev.preventDefault (); route (); } }, "show them"));
  });
}

/* ---- one event --------------------------------------------------------------------- */

/* The replayOf of an event (metadata.replayOf: a replayed copy names its original). */
function replayOf (event) {
  return event && event.metadata && typeof event.metadata.replayOf === "string" ? event.metadata.replayOf : null;
}

/* The chain of originals of event, nearest first (at most 10 steps). */
async function lineage (event) {
  const chain = [];
  let at = event;
  while (replayOf (at) && chain.length < 10) {
    try {
      const got = await api ("GET", "events/" + encodeURIComponent (replayOf (at)));
      chain.push (got.event);
      at = got.event;
    } catch (e) {
      chain.push ({ id: replayOf (at), missing: true });
      break;
    }
  }
  return chain;
}

async function viewEvent (id) {
  const got = await api ("GET", "events/" + encodeURIComponent (id));
  const e = got.event;
  const chain = await lineage (e);
  const result = el ("div", { id: "action-result", class: "muted" });
  const act = (label, cls, fn) => el ("button", { class: cls, id: "act-" + label.toLowerCase ().replace (/\W+/g, "-"),
    onclick: async () => {
      try { result.textContent = await fn (); status (""); }
      catch (err) { status (err.message, true); }
    } }, label);
  const deliveries = (got.deliveries || []).map ((d) => el ("tr", { "data-sink": d.sink },
    el ("td", { text: d.sink }), el ("td", {}, badge (d.state)), el ("td", { class: "num", text: d.attempts }),
    el ("td", { class: "mono", text: when (d.nextAttemptAt) }), el ("td", { text: d.lastError || "" }),
    el ("td", {}, d.state === "failed" && may ("REDELIVER") ? act ("Redeliver to " + d.sink, "secondary", async () => {
      const r = await api ("POST", "sinks/" + encodeURIComponent (d.sink) + "/redeliver", { body: { id: e.id } });
      return "requeued " + r.requeued + " at " + d.sink;
    }) : "")));
  const payload = {};
  for (const k of ["fullDocument", "documentKey", "metadata", "operationType"])
    if (e[k] !== undefined) payload[k] = e[k];
  show (el ("h2", {}, "Event ", el ("span", { class: "mono", text: e.id })),
    el ("div", { class: "actions" },
      may ("REPLAY") ? act ("Replay", "", async () => {
        const job = await api ("POST", "replays", { body: { ids: [e.id] } });
        go ("/job/" + job.job);
        return "";
      }) : null,
      may ("RESOLVE") ? act ("Resolve", "secondary", async () => {
        const r = await api ("POST", "events/" + e.id + "/resolve", { body: {} });
        return "status " + r.status;
      }) : null,
      may ("FAIL") ? act ("Fail", "secondary", async () => {
        const r = await api ("POST", "events/" + e.id + "/fail", { body: {} });
        return "status " + r.status + ", retry " + r.retryCount + " after " + when (r.retryAfter);
      }) : null),
    result,
    el ("div", { class: "grid2" },
      el ("div", {},
        el ("table", { id: "summary" }, el ("tbody", {},
          [["stream", e.streamName], ["status", e.status], ["created", when (e.createdAt)],
           ["expires", when (e.expiresAt)], ["attempts", e.attempts],
           ["replay count", got.replay ? got.replay.replayCount : ""],
           ["retry count", got.replay ? got.replay.retryCount : ""]]
            .map (([k, v]) => el ("tr", {}, el ("th", { text: k }), el ("td", { text: v === undefined ? "" : v }))))),
        el ("h3", { text: "Error" }),
        el ("p", {}, el ("strong", { text: e.error ? e.error.type || "" : "" }), " ",
           el ("span", { text: e.error ? e.error.message || "" : "" })),
        e.error && e.error.stackTrace ? el ("pre", { id: "stack", text: e.error.stackTrace }) : null,
        el ("h3", { text: "Deliveries" }),
        deliveries.length ? el ("table", { id: "deliveries" },
          el ("thead", {}, el ("tr", {}, ["sink", "state", "attempts", "next attempt", "last error", ""]
            .map ((h) => el ("th", { text: h })))), el ("tbody", {}, deliveries))
          : el ("p", { class: "muted", text: "No sink in its stream's chain." }),
        el ("h3", { text: "Lineage" }),
        chain.length ? el ("ol", { id: "lineage" }, chain.map ((c) => el ("li", {},
          c.missing ? el ("span", { class: "muted", text: c.id + " (no longer stored)" })
                    : el ("a", { href: "#/event/" + c.id, text: c.id + " — " + when (c.createdAt) }))))
          : el ("p", { class: "muted", text: "An original: not a replay of another event." })),
      el ("div", {},
        el ("h3", { text: "Payload" }),
        el ("pre", { id: "payload", text: JSON.stringify (payload, null, 2) }),
        may ("REPLAY") ? editor (e) : null,
        el ("h3", { text: "The whole event" }),
        el ("pre", { id: "event-json", text: JSON.stringify (e, null, 2) }))));
}

/* ---- edit and replay --------------------------------------------------------------- */

/* The lines of a and b as a diff: [kind, line] with kind " ", "-" or "+"
 * (the longest common subsequence of lines kept). */
function diffLines (a, b) {
  const x = a.split ("\n"), y = b.split ("\n");
  const n = x.length, m = y.length;
  const keep = Array.from ({ length: n + 1 }, () => new Array (m + 1).fill (0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      keep[i][j] = x[i] === y[j] ? keep[i + 1][j + 1] + 1 : Math.max (keep[i + 1][j], keep[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push ([" ", x[i]]); i++; j++; }
    else if (i < n && (j === m || keep[i + 1][j] >= keep[i][j + 1])) out.push (["-", x[i++]]);
    else out.push (["+", y[j++]]);
  }
  return out;
}

/* Edit an event's fullDocument and metadata, see the changes, and replay
 * the corrected copy (REPLAY of its id with a replacement): the stored
 * event never changes; the copy carries the lineage. */
function editor (e) {
  const editable = { fullDocument: e.fullDocument, metadata: e.metadata };
  const original = JSON.stringify (editable, null, 2);
  const diff = el ("pre", { id: "edit-diff-out", hidden: true });
  let replacement = null;
  let send = null;
  const area = el ("textarea", { id: "edit", spellcheck: "false" });
  area.value = original;
  area.addEventListener ("input", () => {       /* what is replayed is what the diff showed, no other */
    replacement = null;
    send.disabled = true;
    diff.hidden = true;
  });
  send = el ("button", { id: "edit-replay", class: "danger", disabled: true, onclick: async () => {
    try {
      send.disabled = true;
      const job = await api ("POST", "replays", { body: { ids: [e.id], replacement } });
      go ("/job/" + job.job);
    } catch (err) { status (err.message, true); send.disabled = false; }
  } }, "Replay the corrected copy");
  const show = el ("button", { id: "edit-diff", class: "secondary", onclick: () => {
    let edited;
    try { edited = JSON.parse (area.value); }
    catch (err) { status ("the edit is not JSON: " + err.message, true); send.disabled = true; return; }
    const extra = edited && typeof edited === "object" && !Array.isArray (edited)
      ? Object.keys (edited).filter ((k) => k !== "fullDocument" && k !== "metadata") : null;
    if (!extra || extra.length) {
      status ("the edit must be an object of fullDocument and metadata" + (extra && extra.length
              ? " (not " + extra.join (", ") + ")" : ""), true);
      send.disabled = true;
      return;
    }
    status ("");
    replacement = Object.assign ({}, e);
    for (const k of ["fullDocument", "metadata"]) {
      if (edited[k] === undefined || edited[k] === null) delete replacement[k];
      else replacement[k] = edited[k];
    }
    const lines = diffLines (original, JSON.stringify (edited, null, 2));
    diff.hidden = false;
    diff.replaceChildren (...lines.map (([kind, line]) => el ("div", {
      class: kind === "-" ? "diff-del" : kind === "+" ? "diff-add" : "", text: kind + " " + line })));
    send.disabled = !lines.some (([kind]) => kind !== " ");
  } }, "Show the changes");
  return el ("div", { id: "editor" },
    el ("h3", { text: "Edit and replay" }),
    el ("p", { class: "muted", text: "Correct the payload, check the changes, and replay the corrected copy. " +
                                       "The stored event never changes; the copy carries its lineage." }),
    area, el ("div", { class: "actions" }, show, send), diff);
}

/* ---- groups ------------------------------------------------------------------------ */

async function viewGroups (query) {
  const filters = pick (query, GROUP_FILTERS);
  const got = await api ("GET", "groups", { query: Object.assign ({ limit: 50 }, filters) });
  const rows = got.groups.map ((g) => el ("tr", { class: "clickable", "data-fingerprint": g.fingerprint,
      onclick: () => go ("/events", Object.assign ({}, filters, { fingerprint: g.fingerprint })) },
    el ("td", { class: "mono", text: g.fingerprint }), el ("td", { class: "num", text: g.count }),
    el ("td", { text: g.errorType || "" }), el ("td", { text: short (g.message, 80) }),
    el ("td", { text: (g.streams || []).join (", ") }),
    el ("td", { class: "mono", text: when (g.firstSeen) }), el ("td", { class: "mono", text: when (g.lastSeen) }),
    el ("td", { class: "spark", title: "the last 24 hours, an hour a bar" })));
  show (el ("h2", { text: "What is failing" }),
        filterForm (GROUP_FILTERS, filters, "Group", (f) => go ("/groups", f)),
        rows.length ? el ("table", { id: "groups" },
          el ("thead", {}, el ("tr", {}, ["fingerprint", "count", "error type", "message", "streams", "first seen",
                                          "last seen", "last 24 h"].map ((h) => el ("th", { text: h, class: h === "count" ? "num" : "" })))),
          el ("tbody", {}, rows))
          : el ("p", { class: "muted", text: "Nothing matches." }));
  /* drawn after the table, which is usable meanwhile */
  histograms (got.groups.slice (0, HISTOGRAM_GROUPS), rows, filters).catch ((e) => status (e.message, true));
}

const HISTOGRAM_GROUPS = 10;        /* the largest groups get one */
const HOURS = 24;

/* Each group's count per hour of the last 24 hours (COUNT by fingerprint and
 * hour, a few at a time), drawn as bars in its row's last cell. */
async function histograms (groups, rows, filters) {
  const end = Math.ceil (Date.now () / 3600e3) * 3600e3;
  const jobs = [];
  groups.forEach ((g, i) => {
    for (let h = 0; h < HOURS; h++)
      jobs.push ({ i, h, query: Object.assign ({}, filters, { fingerprint: g.fingerprint,
        createdAfter: new Date (end - (HOURS - h) * 3600e3).toISOString (),
        createdBefore: new Date (end - (HOURS - h - 1) * 3600e3).toISOString () }) });
  });
  const counts = groups.map (() => new Array (HOURS).fill (0));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      try { counts[job.i][job.h] = (await api ("GET", "count", { query: job.query })).count; }
      catch (e) { counts[job.i][job.h] = 0; }
    }
  };
  await Promise.all ([1, 2, 3, 4, 5, 6].map (worker));
  groups.forEach ((g, i) => {
    const top = Math.max (1, ...counts[i]);
    const cell = rows[i].lastChild;
    cell.replaceChildren (el ("div", { class: "bars" }, counts[i].map ((n, h) => {
      const bar = el ("span", { title: n + " in the hour from " + new Date (end - (HOURS - h) * 3600e3).toISOString ()
                                  .slice (11, 16) + " UTC", "data-count": n });
      bar.style.height = Math.max (n ? 2 : 0, Math.round (18 * n / top)) + "px";
      return bar;
    })));
    cell.setAttribute ("data-total", counts[i].reduce ((a, b) => a + b, 0));
  });
}

/* ---- replay by query ---------------------------------------------------------------- */

async function viewReplay (query) {
  if (!may ("REPLAY")) {
    show (el ("h2", { text: "Replay by query" }),
          el ("p", { class: "muted", id: "not-allowed", text: "The role " + me.role + " may not replay." }));
    return;
  }
  const filters = pick (query, FILTERS);
  const target = el ("select", { name: "target", id: "target" }, el ("option", { value: "route" }, "each stream's replay_route"),
                     el ("option", { value: "endpoint" }, "the replay endpoint"));
  const rate = el ("input", { name: "rate", id: "rate", size: 6, value: query.get ("rate") || "100" });
  const all = el ("input", { type: "checkbox", id: "all" });
  const preview = el ("div", { id: "preview" });
  const form = filterForm (FILTERS, filters, "Preview", async (f) => {
    try {
      status ("…");
      await runPreview (f, { target: target.value, rate: Number (rate.value), all: all.checked }, preview);
      status ("");
    } catch (e) { status (e.message, true); }
  }, [el ("label", {}, "target", target), el ("label", {}, "rate (events/s)", rate),
      el ("label", {}, "every event", all)]);
  show (el ("h2", { text: "Replay by query" }),
        el ("p", { class: "muted", text: "The job replays every stored event that matches — not the rows on a screen. " +
                                          "The preview counts them and shows a sample; the job's selection is fixed " +
                                          "at the preview's instant." }),
        form, preview);
}

/* The body of a REPLAY for filters f (query-string form) and the options. */
function replayBody (f, opts, extra) {
  const body = Object.assign ({}, extra);
  const metadata = {};
  for (const [k, v] of Object.entries (f)) {
    if (k.startsWith ("metadata.")) metadata[k.slice (9)] = /^-?\d+(\.\d+)?$/.test (v) ? Number (v)
                                                            : v === "true" ? true : v === "false" ? false : v;
    else body[k] = k.startsWith ("attempts") ? Number (v) : v;
  }
  if (Object.keys (metadata).length) body.metadata = metadata;
  if (opts.all) body.all = true;
  body.target = opts.target;
  body.rate = opts.rate;
  return body;
}

async function runPreview (f, opts, into) {
  const pinned = Object.assign ({}, f);
  if (!pinned.createdBefore)
    pinned.createdBefore = new Date (Date.now () + 1).toISOString ();   /* what exists now, and not what comes */
  const dry = await api ("POST", "replays", { body: replayBody (pinned, opts, { dryRun: true, sample: 10 }) });
  const start = el ("button", { id: "start", class: "danger", onclick: async () => {
    try {
      start.disabled = true;
      const job = await api ("POST", "replays", { body: replayBody (pinned, opts, {}) });
      go ("/job/" + job.job);
    } catch (e) { status (e.message, true); start.disabled = false; }
  }, disabled: dry.count === 0 }, "Replay " + dry.count + (dry.count === 1 ? " event" : " events"));
  into.replaceChildren (
    el ("h3", {}, el ("span", { id: "dry-count", text: String (dry.count) }), " events match (up to ",
       el ("span", { class: "mono", text: when (pinned.createdBefore) }), ")"),
    dry.sample.length ? eventTable (dry.sample) : null,
    el ("div", { class: "actions" }, start));
}

/* ---- jobs ------------------------------------------------------------------------- */

async function viewJob (id) {
  const body = el ("div", {});
  show (el ("h2", {}, "Replay job ", el ("span", { class: "mono", text: id })), body);
  const draw = async () => {
    const j = await api ("GET", "replays/" + encodeURIComponent (id));
    const pct = j.total ? Math.round (100 * j.done / j.total) : 100;
    const bar = el ("div", {});
    bar.style.width = pct + "%";
    const left = j.total - j.done, eta = j.state === "RUNNING" && j.rate ? Math.ceil (left / j.rate) : null;
    const control = (label, verb) => el ("button", { class: "secondary", id: "job-" + verb, onclick: async () => {
      try { await api ("POST", "replays/" + id + "/" + verb); await draw (); }
      catch (e) { status (e.message, true); }
    } }, label);
    body.replaceChildren (
      el ("p", {}, "State ", el ("strong", { id: "job-state" }, badge (j.state)), " — ",
         el ("span", { id: "job-done", text: j.done + " / " + j.total }), " done, at ", j.rate, " events/s",
         eta !== null ? ", about " + eta + " s left" : ""),
      el ("div", { class: "progress" }, bar),
      el ("table", {}, el ("tbody", {}, [["replayed", j.replayed], ["skipped", j.skipped],
        ["quarantined", j.quarantined], ["failed", j.failed], ["target", j.target], ["created", when (j.createdAt)],
        ["updated", when (j.updatedAt)], ["last error", j.lastError || ""]]
        .map (([k, v]) => el ("tr", {}, el ("th", { text: k }), el ("td", { text: v })))) ),
      el ("div", { class: "actions" },
        j.state === "RUNNING" && may ("REPLAY.PAUSE") ? control ("Pause", "pause") : null,
        j.state === "PAUSED" && may ("REPLAY.RESUME") ? control ("Resume", "resume") : null,
        (j.state === "RUNNING" || j.state === "PAUSED") && may ("REPLAY.CANCEL") ? control ("Cancel", "cancel") : null,
        el ("a", { href: "#/jobs" }, "All jobs")));
    return j.state;
  };
  const first = await draw ();
  if (first === "RUNNING" || first === "PAUSED")
    timers.push (setInterval (() => draw ().catch ((e) => status (e.message, true)), 1000));
}

async function viewJobs () {
  const got = await api ("GET", "replays");
  show (el ("h2", { text: "Replay jobs" }),
    got.jobs.length ? el ("table", { id: "jobs" },
      el ("thead", {}, el ("tr", {}, ["job", "state", "done", "total", "rate", "created"].map ((h) => el ("th", { text: h })))),
      el ("tbody", {}, got.jobs.map ((j) => el ("tr", { class: "clickable", onclick: () => go ("/job/" + j.job) },
        el ("td", { class: "mono", text: j.job }), el ("td", {}, badge (j.state)), el ("td", { class: "num", text: j.done }),
        el ("td", { class: "num", text: j.total }), el ("td", { class: "num", text: j.rate }),
        el ("td", { class: "mono", text: when (j.createdAt) })))))
      : el ("p", { class: "muted", text: "No replay job yet." }));
}

/* ---- sinks ------------------------------------------------------------------------ */

async function viewSinks () {
  const stats = await api ("GET", "stats");
  const result = el ("p", { id: "sink-result", class: "muted" });
  const rows = Object.entries (stats.sinks).map (([name, s]) => el ("tr", { "data-sink": name },
    el ("td", { text: name }), el ("td", { text: s.type }), el ("td", {}, badge (s.circuit)),
    el ("td", { class: "num", text: s.backlog }), el ("td", { class: "num", text: s.retrying }),
    el ("td", { class: "num", text: s.failed }), el ("td", { class: "num", text: s.delivered }),
    el ("td", { text: s.lastError || "" }), el ("td", { class: "mono", text: when (s.lastErrorAt) }),
    el ("td", {}, s.failed && may ("REDELIVER") ? el ("button", { class: "secondary", id: "redeliver-" + name, onclick: async () => {
      try {
        const r = await api ("POST", "sinks/" + encodeURIComponent (name) + "/redeliver", { body: {} });
        result.textContent = "requeued " + r.requeued + " at " + name;
      } catch (e) { status (e.message, true); }
    } }, "Redeliver " + s.failed + " failed") : "")));
  show (el ("h2", { text: "Sinks" }), result,
    rows.length ? el ("table", { id: "sinks" },
      el ("thead", {}, el ("tr", {}, ["sink", "type", "circuit", "backlog", "retrying", "failed", "delivered",
                                      "last error", "at", ""].map ((h) => el ("th", { text: h })))),
      el ("tbody", {}, rows))
      : el ("p", { class: "muted", text: "No sinks are configured." }));
}

/* ---- routing ---------------------------------------------------------------------- */

const views = [
  [/^\/events$/, (m, q) => viewEvents (q), "events"],
  [/^\/event\/([^/]+)$/, (m) => viewEvent (decodeURIComponent (m[1])), "events"],
  [/^\/groups$/, (m, q) => viewGroups (q), "groups"],
  [/^\/replay$/, (m, q) => viewReplay (q), "replay"],
  [/^\/job\/([^/]+)$/, (m) => viewJob (decodeURIComponent (m[1])), "jobs"],
  [/^\/jobs$/, () => viewJobs (), "jobs"],
  [/^\/sinks$/, () => viewSinks (), "sinks"],
];

function route () {
  stopLive ();
  const { path, query } = params ();
  for (const [re, view, nav] of views) {
    const m = path.match (re);
    if (!m) continue;
    for (const a of document.querySelectorAll ("nav a")) a.classList.toggle ("current", a.id === "nav-" + nav);
    guard (view) (m, query);
    return;
  }
  go ("/events");
}

/* Start: who the token is (or the sign-in form), then the view of the hash. */
async function start () {
  try {
    if (await whoami ()) route ();
    else signIn ("");
  } catch (e) { status (e.message, true); }
}

window.addEventListener ("hashchange", () => { if (!document.getElementById ("sign-in")) route (); });
window.addEventListener ("DOMContentLoaded", start);
