// The gateway console's page: polls /api/overview and renders it; Approve, Sign in and Search.
// Every value is set with textContent (never as HTML): tool definitions come from untrusted
// servers, and a link's address is http(s) only (an authorization URL comes from the server's
// authorization server).
"use strict";

const POLL_MS = 1500;
const csrf = document.querySelector('meta[name="csrf"]').content;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function replace(id, ...nodes) {
  const target = document.getElementById(id);
  target.replaceChildren(...nodes);
}

function status(text, bad) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.className = bad ? "err" : "muted";
}

async function getJSON(path) {
  const r = await fetch(path, { credentials: "same-origin" });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

function httpUrl(url) {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch (e) {
    return null;
  }
}

// A link to an authorization URL, opened in a new tab.
function signInLink(url, text, server) {
  const href = httpUrl(url);
  if (!href) return null;
  return el("a", { href, target: "_blank", rel: "noopener noreferrer", "data-sign-in-url": server,
    "data-focus": `link:${server}` }, text);
}

// Servers whose Sign in is being asked for (a second press waits for the first).
const signingIn = new Set();
async function signIn(server) {
  if (signingIn.has(server)) return;
  signingIn.add(server);
  const note = document.getElementById("sign-in-note");
  try {
    const r = await fetch("/api/sign-in", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Console-Csrf": csrf },
      body: JSON.stringify({ server }),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error || `${r.status}`);
    const how = body.opener
      ? `The sign-in page was opened with ${body.opener}; if no browser came up, `
      : "No browser could be opened here: ";
    note.replaceChildren(`Sign-in to ${server} started. ${how}`,
      signInLink(body.authorization_url, "open the sign-in page", server) || "(no usable address)",
      " (the browser comes back to the gateway's machine; it waits up to 300 s).");
    note.className = "";
  } catch (e) {
    note.textContent = `sign in to ${server}: ${e.message}`;
    note.className = "err";
  } finally {
    signingIn.delete(server);
    await refresh();
  }
}

function serverState(s) {
  const nodes = [el("span", { class: `state-${s.state.replace(/ /g, "-")}` }, s.state)];
  if (s.last_error) nodes.push(el("div", { class: "err" }, s.last_error));
  if (s.retry_in_s !== null && s.retry_in_s !== undefined && s.state === "failed") {
    nodes.push(el("div", { class: "muted" }, `next start in ${s.retry_in_s.toFixed(1)} s`));
  }
  const sign = s.sign_in;
  if (sign && s.state === "needs sign-in") {
    if (sign.authorization_url) {
      nodes.push(el("div", {}, "Waiting for the browser: ",
        signInLink(sign.authorization_url, "open the sign-in page", s.name)));
    }
    nodes.push(el("div", {}, el("button", { type: "button", "data-sign-in": s.name,
      "data-focus": `sign-in:${s.name}`, "aria-label": `Sign in to ${s.name}`,
      onclick: () => signIn(s.name) }, "Sign in")));
  }
  return nodes;
}

function renderServers(servers, pinning) {
  document.getElementById("pinning").textContent = pinning;
  // Rebuilt at every poll: the focused button or link gets the focus back.
  const focused = document.activeElement && document.activeElement.getAttribute("data-focus");
  replace("servers-body", ...servers.map((s) => el("tr", { "data-server": s.name },
    el("th", { scope: "row" }, s.name),
    el("td", {}, s.transport, el("br"), el("span", { class: "muted" }, s.target)),
    el("td", {}, ...serverState(s)),
    el("td", {}, s.tools),
    el("td", {}, s.quarantined),
    el("td", {}, s.restarts),
    el("td", { class: "muted" }, s.findings))));
  if (focused) {
    const again = [...document.querySelectorAll("#servers-body [data-focus]")]
      .find((n) => n.getAttribute("data-focus") === focused);
    if (again) again.focus();
  }
}

function diffView(diff) {
  const pre = el("pre", { class: "diff", tabindex: "0", "aria-label": "Diff of the pinned and the new definition" });
  for (const line of diff.split("\n")) {
    const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : null;
    pre.append(el("span", { class: cls }, line || " "));
  }
  return pre;
}

async function approve(target, button) {
  button.disabled = true;
  try {
    const r = await fetch("/api/approve", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Console-Csrf": csrf },
      body: JSON.stringify({ target }),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error || `${r.status}`);
    status(body.approved.join("; "));
    await refresh();
  } catch (e) {
    status(`approve ${target}: ${e.message}`, true);
    button.disabled = false;
  }
}

let quarantineKey = "";
function renderQuarantine(q) {
  if (q.error) {
    replace("quarantine-body", el("p", { class: "muted" }, q.error));
    quarantineKey = "";
    return;
  }
  // Re-rendered only when it changed, so that focus and scroll stay put between polls.
  const key = JSON.stringify(q.tools.map((t) => [t.target, t.new_hash]));
  if (key === quarantineKey) return;
  quarantineKey = key;
  if (q.tools.length === 0) {
    replace("quarantine-body", el("p", { class: "muted" }, "Nothing is quarantined."));
    return;
  }
  const servers = [...new Set(q.tools.map((t) => t.server))];
  const nodes = servers.map((server) => el("div", { class: "server-actions" },
    el("button", { class: "secondary", type: "button", "data-approve": server,
      onclick: (e) => approve(server, e.currentTarget) }, `Approve every tool of ${server}`)));
  for (const t of q.tools) {
    nodes.push(el("article", { class: "card", "data-tool": t.target },
      el("h3", {}, t.target, " ", el("span", { class: "badge" }, t.reasons.join(", "))),
      t.findings.length ? el("ul", {}, ...t.findings.map((f) =>
        el("li", {}, el("strong", {}, `${f.severity} ${f.rule}`), ` in ${f.field}: `, el("code", {}, f.excerpt)))) : null,
      el("p", { class: "muted" }, `pinned ${t.pinned_hash || "(none)"} → now ${t.new_hash}`),
      diffView(t.diff),
      el("button", { type: "button", "data-approve": t.target,
        onclick: (e) => approve(t.target, e.currentTarget) }, `Approve ${t.target}`)));
  }
  replace("quarantine-body", ...nodes);
}

let toolsCache = [];
let toolsKey = "";
function renderTools(tools, force) {
  // A gateway may front thousands of tools: the table is rebuilt only when they changed.
  const key = JSON.stringify(tools.map((t) => [t.name, t.status]));
  if (!force && key === toolsKey) return;
  toolsKey = key;
  toolsCache = tools;
  const f = document.getElementById("tools-filter").value.trim().toLowerCase();
  const shown = tools.filter((t) => !f || t.name.toLowerCase().includes(f) || t.server.toLowerCase().includes(f));
  replace("tools-body", ...shown.map((t) => el("tr", { "data-tool": t.name },
    el("th", { scope: "row" }, t.name),
    el("td", {}, t.server),
    el("td", {}, el("span", { class: "badge" }, t.status)),
    el("td", { class: "muted" }, t.description || t.why || ""))));
}

function renderCalls(calls) {
  replace("calls-body", ...calls.map((c) => el("tr", { "data-call": c.tool },
    el("td", {}, new Date(c.at_ms).toLocaleTimeString()),
    el("td", {}, c.session),
    el("th", { scope: "row" }, c.tool),
    el("td", {}, `${c.latency_ms} ms`),
    el("td", { class: c.ok ? "state-running" : "err" }, c.ok ? "ok" : c.error || "error"))));
}

function renderReload(r) {
  const p = document.getElementById("reload");
  p.textContent = r
    ? `Last live reload (${new Date(r.at_ms).toLocaleTimeString()}): ${r.ok ? "applied" : "refused"}: ${r.outcome}`
    : "The config was not reloaded since the gateway started.";
}

async function refresh() {
  try {
    const o = await getJSON("/api/overview");
    renderServers(o.servers, o.pinning);
    renderQuarantine(o.quarantine);
    renderTools(o.tools);
    renderCalls(o.calls);
    renderReload(o.reload);
    if (!document.getElementById("status").classList.contains("err")) {
      status(`updated ${new Date().toLocaleTimeString()}`);
    }
  } catch (e) {
    status(`cannot reach the gateway: ${e.message}`, true);
  }
}

async function loadConfig() {
  try {
    const c = await getJSON("/api/config");
    document.getElementById("config-body").textContent =
      c.error ? `${c.path}: ${c.error}` : `${c.path}\n\n${JSON.stringify(c.config, null, 2)}`;
  } catch (e) {
    document.getElementById("config-body").textContent = e.message;
  }
}

async function search(event) {
  event.preventDefault();
  const q = document.getElementById("search-q").value;
  try {
    const r = await getJSON(`/api/search?q=${encodeURIComponent(q)}`);
    document.getElementById("search-note").textContent =
      `${r.hits.length} hits (${r.profile}, ${r.took_ms.toFixed(1)} ms)`;
    replace("search-hits", ...r.hits.map((h) => el("li", { "data-hit": h.name },
      el("strong", {}, h.name), ` score ${h.score.toFixed(3)}`, h.deferred ? " (deferred)" : "",
      el("div", {}, h.description),
      el("div", { class: "reason" }, h.reason || ""),
      h.terms.length ? el("div", { class: "reason" }, "matched: " +
        h.terms.map((t) => `${t.token} (${t.fields.join(", ")}) ${Number(t.score).toFixed(2)}`).join("; ")) : null)));
  } catch (e) {
    document.getElementById("search-note").textContent = e.message;
  }
}

document.getElementById("search-form").addEventListener("submit", search);
document.getElementById("tools-filter").addEventListener("input", () => renderTools(toolsCache, true));
refresh();
loadConfig();
setInterval(refresh, POLL_MS);
setInterval(loadConfig, 10 * POLL_MS);
