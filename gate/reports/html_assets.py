"""The HTML report's own style and script, inlined into the page (``gate.reports.html``), which
allows exactly these two by their hashes.

The script reads the cases from the page's JSON block and builds the case list: the filters (kinds of
case, suite, tag, a search by id; kept in the address's ``#`` part, so a filtered view can be linked),
a page of matching cases at a time, and a case's reasons and transcripts when it is opened. It writes
every text with ``textContent``: nothing from the report becomes markup, a link or a request.
"""

from __future__ import annotations

STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --soft: #f6f8fa;
  --red: #cf222e; --green: #1a7f37; --amber: #9a6700; --blue: #0969da; --purple: #8250df; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); }
main, header { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
header.verdict { border-bottom: 4px solid var(--muted); padding-bottom: 8px; margin-bottom: 16px; }
header.passed { border-color: var(--green); } header.failed { border-color: var(--red); }
header.incomplete, header.unverified { border-color: var(--amber); }
h1 { font-size: 24px; margin: 16px 0 8px; } h2 { font-size: 18px; margin: 24px 0 8px; }
h3, h4, h5 { margin: 12px 0 4px; } h5 { font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); }
tr.regressed td:first-child, tr.failed td:first-child { color: var(--red); }
tr.fixed td:first-child, tr.passed td:first-child { color: var(--green); }
tr.incomplete td:first-child { color: var(--amber); }
code, pre { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); border: 1px solid var(--line);
  border-radius: 4px; padding: 6px 8px; margin: 4px 0; max-height: 480px; overflow: auto; }
.warning { color: var(--amber); font-weight: 600; } .when, .cases, .at, .meta { color: var(--muted); }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 8px 0;
  position: sticky; top: 0; background: var(--bg); padding: 8px 0; border-bottom: 1px solid var(--line); }
.chips { display: flex; flex-wrap: wrap; gap: 6px; }
.chip { border: 1px solid var(--line); border-radius: 12px; background: var(--soft); padding: 2px 10px;
  cursor: pointer; font: inherit; }
.chip[aria-pressed="true"] { background: var(--blue); border-color: var(--blue); color: #fff; }
.chip span { font-weight: 600; }
details.case { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; }
details.case > summary { padding: 6px 8px; cursor: pointer; display: flex; flex-wrap: wrap; gap: 4px 10px;
  align-items: baseline; }
details.case[open] > summary { background: var(--soft); border-bottom: 1px solid var(--line); }
.body { padding: 8px 12px; }
.badge { border-radius: 10px; padding: 0 8px; font-size: 12px; color: #fff; background: var(--muted); }
.badge.failed, .badge.regressed { background: var(--red); }
.badge.passed, .badge.fixed { background: var(--green); }
.badge.error, .badge.flaky { background: var(--amber); }
.badge.non-gating, .badge.skipped { background: var(--purple); }
.badge.new, .badge.removed { background: var(--blue); }
.summary-why { color: var(--red); flex-basis: 100%; } .summary-note { color: var(--muted); flex-basis: 100%; }
.sides.two { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.side { min-width: 0; } .trial { border-left: 3px solid var(--line); padding-left: 8px; margin: 8px 0; }
.trial.failed { border-color: var(--red); } .trial.passed { border-color: var(--green); }
.trial.error { border-color: var(--amber); }
.msg { margin: 6px 0; } .label { color: var(--muted); font-size: 12px; }
.call { margin: 4px 0 4px 16px; border-left: 2px solid var(--blue); padding-left: 8px; }
.call.given { border-color: var(--purple); } pre.error, .bad { color: var(--red); }
pre.thinking { color: var(--muted); }
.tool { margin: 4px 0 4px 8px; } .tool.differs { border-left: 3px solid var(--amber); padding-left: 6px; }
.change.regressed strong { color: var(--red); } .change.fixed strong { color: var(--green); }
ul.fails li, ul.why li { color: var(--red); } td.ok { color: var(--green); } td.bad { color: var(--red); }
.fix { border-left: 4px solid var(--muted); padding-left: 12px; margin: 12px 0; }
.fix.passed { border-color: var(--green); } .fix.failed { border-color: var(--amber); }
pre.diff .add { color: var(--green); background: #dafbe1; }
pre.diff .del { color: var(--red); background: #ffebe9; }
pre.diff span { display: block; }
tr.verified td:nth-child(3) { color: var(--green); } tr.broke td:nth-child(3) { color: var(--red); }
#more { margin: 8px 0 32px; }
@media (max-width: 800px) { .sides.two { grid-template-columns: 1fr; } }
"""

SCRIPT = """
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var suites = data.suites, prompts = data.prompts, cases = data.cases;
  var descriptions = data.descriptions, toolsets = data.toolsets;
  var PAGE = 200;
  var KINDS = data.kinds;
  var state = {kinds: [], suite: "", tag: "", q: "", shown: PAGE};
  var list = document.getElementById("case-list");
  var count = document.getElementById("count");
  var more = document.getElementById("more");
  var chips = Array.prototype.slice.call(document.querySelectorAll(".chip"));
  var suiteSelect = document.getElementById("suite");
  var tagSelect = document.getElementById("tag");
  var search = document.getElementById("search");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null && text !== "") node.textContent = String(text);
    return node;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function kind(k) { return KINDS.indexOf(k) >= 0 ? k : "other"; }

  function matches(c) {
    if (state.kinds.length && !c.k.some(function (k) { return state.kinds.indexOf(k) >= 0; })) return false;
    if (state.suite !== "" && String(c.s) !== state.suite) return false;
    if (state.tag !== "" && c.tags.indexOf(state.tag) < 0) return false;
    if (state.q !== "" && (suites[c.s].name + "/" + c.id).toLowerCase().indexOf(state.q) < 0) return false;
    return true;
  }

  function summary(c) {
    var s = el("summary");
    c.k.forEach(function (k) { add(s, el("span", "badge " + kind(k), k)); });
    add(s, el("code", "id", suites[c.s].name + " / " + c.id));
    add(s, el("span", "at", c.at));
    add(s, el("span", "meta", "score " + c.score.toFixed(2) + (c.trials ? " · " + c.trials : "")));
    var why = c.why.length ? c.why[0] : (c.change && c.change.says) || "";
    if (why) add(s, el("span", c.why.length ? "summary-why" : "summary-note", why));
    return s;
  }

  function row(c) {
    var d = el("details", "case");
    d.setAttribute("data-case", suites[c.s].name + "/" + c.id);
    add(d, summary(c));
    var body = add(d, el("div", "body"));
    d.addEventListener("toggle", function () { if (d.open && !body.firstChild) caseBody(body, c); });
    return d;
  }

  function caseBody(body, c) {
    add(body, el("p", "at", "Case at " + c.at + (c.tags.length ? " · tags: " + c.tags.join(", ") : "")));
    if (c.ng) add(body, el("p", "note", "Non-gating (known flaky, never counted): " + c.ng));
    if (c.skip) add(body, el("p", "note", "Skipped: " + c.skip));
    if (c.change) change(body, c.change);
    if (c.why.length) {
      add(body, el("h4", "", "Why it " + (c.status === "error" ? "could not be evaluated" : "failed")));
      var ul = add(body, el("ul", "why"));
      c.why.forEach(function (w) { add(ul, el("li", "", w)); });
    }
    if (c.expected) { add(body, el("h4", "", "Expected")); add(body, el("pre", "expected", c.expected)); }
    var sides = add(body, el("div", c.head && c.base ? "sides two" : "sides"));
    if (c.head) side(sides, c.base ? "head (this run)" : "trials", c.head, "base");
    if (c.base) side(sides, c.head ? "base (compared with)" : "base (the case was removed)", c.base, "head");
  }

  function change(body, ch) {
    var p = add(body, el("p", "change " + kind(ch.status)));
    add(p, el("strong", "", ch.status));
    var text = ch.says || ch.what || ch.note || "";
    if (text) p.appendChild(document.createTextNode(": " + text));
    if (ch.p) p.appendChild(document.createTextNode(" (p = " + ch.p + ")"));
    if (ch.line) {
      p.appendChild(document.createTextNode(" · changed line: "));
      add(p, el("code", "", ch.line));
    }
  }

  function side(parent, label, trials, other) {
    var box = add(parent, el("div", "side"));
    add(box, el("h4", "", label));
    if (!trials.length) add(box, el("p", "label", "no trial ran"));
    trials.forEach(function (t) { trial(box, t, other); });
  }

  function offered(div, items, other) {
    var differ = items.filter(function (x) { return x[2]; }).length;
    var d = add(div, el("details", "msg offered"));
    d.open = differ > 0;
    var what = "tools offered to the model: " + items.length;
    if (differ) what += " (" + differ + " not as on the " + other + " side)";
    add(d, el("summary", "label", what));
    items.forEach(function (x) {
      var row = add(d, el("div", "tool" + (x[2] ? " differs" : "")));
      add(row, el("code", "name", x[0]));
      if (x[2] === "differs") add(row, el("span", "label", " described otherwise on the " + other + " side"));
      if (x[2] === "absent") add(row, el("span", "label", " not offered on the " + other + " side"));
      add(row, el("pre", "description", descriptions[x[1]] || "(no description)"));
    });
  }

  function trial(box, t, other) {
    var div = add(box, el("div", "trial " + kind(t.status)));
    var title = "trial " + t.i + ": " + t.status + " · score " + t.score.toFixed(2) + " · " + t.head;
    add(div, el("h5", "", title));
    if (toolsets[t.tools].length) offered(div, toolsets[t.tools], other);
    var last = -1;  // the message that is the final answer, labelled so instead of shown twice
    t.msgs.forEach(function (m, i) { if (m.r === "assistant" && !m.g && (m.t || "") === t.out) last = i; });
    t.msgs.forEach(function (m, i) { message(div, m, t, i === last); });
    t.loose.forEach(function (i) { call(div, t.calls[i]); });
    if (t.log) {
      add(div, el("div", "label", "program log (standard error)"));
      add(div, el("pre", "", t.log));
    }
    if (t.error) { add(div, el("div", "label", "error")); add(div, el("pre", "error", t.error)); }
    if (last < 0) {
      add(div, el("div", "label", "final answer"));
      add(div, el("pre", "output", t.out || "(empty)"));
    }
    if (t.fails.length) {
      var ul = add(div, el("ul", "fails"));
      t.fails.forEach(function (f) { add(ul, el("li", "", f)); });
    }
    if (t.checks.length) checks(div, t.checks);
  }

  function message(div, m, t, final) {
    if (m.r === "system") {
      var d = add(div, el("details", "msg system"));
      add(d, el("summary", "label", "system prompt"));
      add(d, el("pre", "", prompts[m.p]));
      return;
    }
    if (m.r === "tool" && !m.g) return;
    var role = m.r === "user" || m.r === "assistant" || m.r === "tool" ? m.r : "other";
    var box = add(div, el("div", "msg " + role));
    var label = m.r === "tool" ? "result of " + (m.n || "a call") + (m.err ? " (error)" : "") : m.r;
    if (final) label = "assistant: final answer";
    if (m.g) label += " (given in the case)";
    if (m.sim) label += " (simulated user)";
    if (m.cut) label += " (cut at the token limit: " + m.cut + ")";
    add(box, el("div", "label", label));
    if (m.th) { add(box, el("div", "label", "thinking")); add(box, el("pre", "thinking", m.th)); }
    var look = final ? "output" : m.r === "tool" && m.err ? "error" : "";
    if (m.t || final) add(box, el("pre", look, m.t || "(empty)"));
    (m.gc || []).forEach(function (g) {
      var c = add(box, el("div", "call given"));
      add(c, el("span", "label", "called before the trial: "));
      add(c, el("code", "name", g[0]));
      add(c, el("pre", "args", g[1]));
    });
    (m.c || []).forEach(function (i) { call(box, t.calls[i]); });
  }

  function call(parent, c) {
    var box = add(parent, el("div", "call"));
    add(box, el("span", "label", "call "));
    add(box, el("code", "name", c.n));
    add(box, el("pre", "args", c.a));
    if (c.bad) add(box, el("div", "bad", "invalid arguments: " + c.bad));
    add(box, el("div", "label", (c.err ? "error result" : "result") + " (mock: " + c.mock + ")"));
    add(box, el("pre", c.err ? "result error" : "result", c.res));
  }

  function checks(div, items) {
    var table = add(div, el("table", "checks"));
    var head = add(table, el("tr"));
    ["check", "score", "", "detail", "judge's rationale"].forEach(function (h) {
      add(head, el("th", "", h));
    });
    items.forEach(function (c) {
      var tr = add(table, el("tr"));
      add(tr, el("td", "", c.k));
      add(tr, el("td", "", c.score.toFixed(2)));
      add(tr, el("td", c.ok ? "ok" : "bad", c.ok ? "passed" : "failed"));
      add(tr, el("td", "", c.d));
      add(tr, el("td", "why", c.why));
    });
  }

  function render() {
    var hits = [];
    for (var i = 0; i < cases.length; i++) if (matches(cases[i])) hits.push(cases[i]);
    var page = document.createDocumentFragment();
    hits.slice(0, state.shown).forEach(function (c) { page.appendChild(row(c)); });
    list.textContent = "";
    list.appendChild(page);
    var shown = Math.min(state.shown, hits.length);
    count.textContent =
      "Showing " + shown + " of " + hits.length + " matching cases (" + cases.length + " in all).";
    more.hidden = hits.length <= state.shown;
    writeAddress();
  }

  function writeAddress() {
    var parts = [];
    if (state.kinds.length) parts.push("status=" + encodeURIComponent(state.kinds.join(",")));
    if (state.suite !== "") parts.push("suite=" + encodeURIComponent(suites[Number(state.suite)].name));
    if (state.tag !== "") parts.push("tag=" + encodeURIComponent(state.tag));
    if (state.q !== "") parts.push("q=" + encodeURIComponent(state.q));
    try { history.replaceState(null, "", "#" + parts.join("&")); } catch (e) { /* a page that may not */ }
  }

  function decoded(text) {
    // A link cut short (#q=%E0%A4%A) is no reason to stop the page: what decodes is decoded.
    try { return decodeURIComponent(text); } catch (e) { /* a broken escape somewhere */ }
    return text.replace(/(%[0-9A-Fa-f]{2})+/g, function (run) {
      try { return decodeURIComponent(run); } catch (e) { return run; }
    });
  }

  function readAddress() {
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 0) return;
      var key = part.slice(0, at), value = decoded(part.slice(at + 1));
      if (key === "status") {
        state.kinds = value.split(",").filter(function (k) { return KINDS.indexOf(k) >= 0; });
      }
      if (key === "suite") suites.forEach(function (s, i) { if (s.name === value) state.suite = String(i); });
      if (key === "tag") state.tag = value;
      if (key === "q") state.q = value.toLowerCase();
    });
    chips.forEach(function (b) {
      b.setAttribute("aria-pressed", String(state.kinds.indexOf(b.getAttribute("data-kind")) >= 0));
    });
    suiteSelect.value = state.suite;
    tagSelect.value = state.tag;
    if (tagSelect.value !== state.tag) state.tag = "";
    search.value = state.q;
  }

  function refilter() { state.shown = PAGE; render(); }
  chips.forEach(function (b) {
    b.addEventListener("click", function () {
      var k = b.getAttribute("data-kind"), at = state.kinds.indexOf(k);
      if (at >= 0) state.kinds.splice(at, 1); else state.kinds.push(k);
      b.setAttribute("aria-pressed", String(at < 0));
      refilter();
    });
  });
  suiteSelect.addEventListener("change", function () { state.suite = suiteSelect.value; refilter(); });
  tagSelect.addEventListener("change", function () { state.tag = tagSelect.value; refilter(); });
  search.addEventListener("input", function () { state.q = search.value.trim().toLowerCase(); refilter(); });
  document.getElementById("clear").addEventListener("click", function () {
    state.kinds = []; state.suite = ""; state.tag = ""; state.q = "";
    chips.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
    suiteSelect.value = ""; tagSelect.value = ""; search.value = "";
    refilter();
  });
  more.addEventListener("click", function () { state.shown += PAGE; render(); });
  readAddress();
  render();
  document.body.setAttribute("data-ready", "true");
})();
"""
