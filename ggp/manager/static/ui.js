// GGP manager web UI, shared helpers: building DOM nodes, calling the JSON API, small tables and boxes.
// No build step, no framework; the page loads ui.js first, then one script per page kind (match.js,
// play.js, dashboard.js, pages.js) and app.js, which routes. Every piece of data from the server goes
// into the page through textContent (never innerHTML), so player names, game keys and game text are
// always escaped.
"use strict";

const main = document.getElementById("main");
const tokenInput = document.getElementById("token");
tokenInput.value = localStorage.getItem("ggp-token") || "";
tokenInput.addEventListener("change", () => localStorage.setItem("ggp-token", tokenInput.value));
document.getElementById("token-form").addEventListener("submit", (e) => e.preventDefault());

// Whether this visitor can do what needs the admin token: the server asks for none (a loopback manager
// without --token), or the visitor has typed one. Buttons that can only fail without it are not shown.
const tokenRequired = document.body.dataset.adminToken !== "none";
function canAdmin() { return !tokenRequired || Boolean(tokenInput.value); }

// `?static=1` (before the # or in the page's own query, #/match/<id>?static=1): render the page once from
// the API and open no live stream, so a headless browser's screenshot (--virtual-time-budget) can finish.
function staticView() {
  const hashQuery = new URLSearchParams(location.hash.split("?")[1] || "");
  return new URLSearchParams(location.search).get("static") === "1" || hashQuery.get("static") === "1";
}

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (options.body !== undefined && typeof options.body !== "string") {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(options.body);
  }
  if (tokenInput.value) headers["Authorization"] = "Bearer " + tokenInput.value;
  const response = await fetch(path, Object.assign({}, options, { headers }));
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.problems = data.problems || [];
    error.status = response.status;
    throw error;
  }
  return data;
}

function link(href, text) { return h("a", { href }, text); }
function matchLink(id) { return h("a", { href: "#/match/" + encodeURIComponent(id), class: "id" }, id); }
function when(seconds) {
  if (!seconds) return "";
  const date = new Date(seconds * 1000);
  const time = date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return date.toDateString() === new Date().toDateString() ? time : date.toLocaleDateString([], { month: "short", day: "numeric" }) + " " + time;
}
function statusBadge(status) { return h("span", { class: "badge status-" + status }, status); }

function table(headers, rows, attrs) {
  return h("table", attrs || {}, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cell))))));
}

function empty(text) { return h("p", { class: "empty" }, text); }

// The one way an error shows anywhere in the UI: a red box with the message, and a rejected game's
// problems one per line. `err` is an Error from api() (message, problems) or a plain text.
function errorBox(err) {
  const message = typeof err === "string" ? err : err.message || String(err);
  const problems = (typeof err === "object" && err.problems) || [];
  return h("div", { class: "error-box err", role: "alert" }, h("p", {}, message),
    problems.length ? h("div", { class: "problems" }, problems.join("\n")) : null);
}

function matchRows(matches, id) {
  if (!matches.length) return empty("None.");
  return table(["match", "game", "players", "status", "goals", "started"], matches.map((m) => [
    matchLink(m.matchId), m.game, m.players.join(" vs "), statusBadge(m.status),
    m.goals ? m.goals.join(" / ") : "", when(m.created)]), { id, class: "list matches" });
}

function section(title, ...content) { return h("section", { class: "panel" }, h("h2", {}, title), content); }
