// GGP manager web UI: a small hash-routed page over the JSON API. No build step, no framework.
// Every piece of data from the server goes into the page through textContent (never innerHTML),
// so player names, game keys and game text are always escaped.
"use strict";

const main = document.getElementById("main");
const tokenInput = document.getElementById("token");
tokenInput.value = localStorage.getItem("ggp-token") || "";
tokenInput.addEventListener("change", () => localStorage.setItem("ggp-token", tokenInput.value));
document.getElementById("token-form").addEventListener("submit", (e) => e.preventDefault());

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
function matchLink(id) { return link("#/match/" + encodeURIComponent(id), id); }
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

// ---------------------------------------------------------------------------------------- pages
// Each page gets a context {view, closers}: it fills ctx.view (shown once the page function
// returns) and registers in ctx.closers whatever must stop when the user leaves (event streams,
// timers). A page that finishes loading after the user moved on is thrown away.

async function dashboard(ctx) {
  const [running, recent, ratings, tournaments, games, players, agon] = await Promise.all([
    api("/api/matches?status=running&limit=50"), api("/api/matches?limit=30"), api("/api/ratings"),
    api("/api/tournaments"), api("/api/games"), api("/api/players"), api("/api/ratings?system=agon")]);
  const finished = recent.filter((m) => m.status !== "running").slice(0, 20);
  const stat = (label, value, href) => h(href ? "a" : "div", { class: "stat", href }, h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label));
  const standings = [...ratings.ratings].sort((a, b) => b.elo - a.elo);
  ctx.view.append(
    h("h1", {}, "Dashboard"), playCard(games, players) ?? "",
    h("div", { class: "stats" }, stat("running", running.length, "#/matches?status=running"),
      stat("recent results", finished.length, "#/matches"), stat("games", games.length, "#/games"),
      stat("players", players.length, "#/players"), stat("tournaments", tournaments.length, null)),
    h("div", { class: "columns" },
      h("div", {},
        section("Running matches", matchRows(running, "running")),
        section("Recent results", matchRows(finished, "recent"))),
      h("div", {},
        section("Standings (Elo, all games)", standings.length ? table(["#", "player", "Elo", "rated matches"],
          standings.map((r, i) => [String(i + 1), r.player, r.elo.toFixed(1), r.matches]), { id: "standings", class: "list" })
          : empty("No rated matches yet.")),
        section("Agon skill (all games)", agonTable(agon, "agon-standings")),
        section("Tournaments", tournaments.length ? table(["id", "name", "game", "status"], tournaments.map((t) => [
          link("#/tournament/" + t.id, String(t.id)), t.name, t.game, statusBadge(t.status)]), { id: "tournaments", class: "list" })
          : empty("None."),
          h("p", {}, link("#/new", "Start a match or a tournament…"))))));
  const feed = new EventSource("/api/events");
  let timer = null;
  feed.addEventListener("match", () => { clearTimeout(timer); timer = setTimeout(route, 300); });
  ctx.closers.push(() => { feed.close(); clearTimeout(timer); });
}

// Agon ratings (GET /api/ratings?system=agon): players by skill, then roles by difficulty.
function agonTable(agon, id) {
  if (!agon.ratings.length) return empty("No rated matches yet.");
  return h("div", {}, table(["#", "player", "skill", "rated seats"],
    agon.ratings.map((r, i) => [String(i + 1), r.player, r.skill.toFixed(1), r.matches]), { id, class: "list" }),
    h("details", {}, h("summary", {}, "Role difficulty"), table(["game", "role", "difficulty", "rated seats"],
      agon.roles.map((r) => [r.game, r.role, r.difficulty.toFixed(1), r.matches]), { id: id + "-roles", class: "list" })));
}

// The archive (GET /api/archive): filters by game, player, dates and outcome, 50 matches a page.
async function matchesPage(ctx) {
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  const filters = [...params.entries()].filter(([k]) => k !== "page" && k !== "per_page").map(([k, v]) => `${k} = ${v}`).join(", ");
  if (params.has("status")) { params.set("outcome", params.get("status")); params.delete("status"); }
  const data = await api("/api/archive?" + params.toString());
  const field = (name, attrs) => h("input", Object.assign({ name, value: params.get(name) || "" }, attrs || {}));
  const inputs = { game: field("game"), player: field("player"), since: field("since", { placeholder: "2026-11-27" }),
    until: field("until", { placeholder: "2026-11-28" }),
    outcome: h("select", { name: "outcome" }, ["", "completed", "aborted", "running", "errors"].map((o) =>
      h("option", { value: o, selected: (params.get("outcome") || "") === o }, o || "any outcome"))) };
  const form = h("form", { class: "card filters", id: "archive-filters", onsubmit: (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [name, input] of Object.entries(inputs)) if (input.value) next.set(name, input.value);
    location.hash = "#/matches?" + next.toString();
  } }, Object.entries(inputs).map(([name, input]) => h("label", {}, name + " ", input)), h("button", { type: "submit" }, "Filter"));
  const pages = Math.max(1, Math.ceil(data.total / data.per_page));
  const goto = (page) => { const p = new URLSearchParams(params); p.set("page", String(page)); return "#/matches?" + p.toString(); };
  const rows = data.matches.length ? table(["match", "game", "players", "status", "goals", "errors", "started", "JSON"], data.matches.map((m) => [
    matchLink(m.matchId), m.game, m.players.join(" vs "), statusBadge(m.status), m.goals ? m.goals.join(" / ") : "",
    m.stepsWithErrors ? String(m.stepsWithErrors) : "", when(m.created), link("/matches/" + encodeURIComponent(m.matchId) + ".json", "json")]),
  { id: "matches", class: "list matches" }) : empty("None.");
  // Import ggp.org match JSON (one object, or JSON lines as the export writes them): each match is
  // replayed under its game's rules by the server and refused with its first bad step.
  const file = h("input", { type: "file", name: "file", accept: ".json,.jsonl,application/json" });
  const importGame = h("input", { name: "game", placeholder: "only for records without gameMetaURL" });
  const importOut = h("div", { class: "out" });
  const importForm = h("form", { class: "card", id: "import-matches", onsubmit: async (e) => {
    e.preventDefault();
    if (!file.files.length) return;
    const text = await file.files[0].text();
    const lines = text.trim().startsWith("{") && !text.includes("\n{") ? [text] : text.split("\n").filter((l) => l.trim());
    const results = [];
    for (const line of lines) {
      try {
        const query = importGame.value ? "?game=" + encodeURIComponent(importGame.value) : "";
        const r = await api("/api/archive/import" + query, { method: "POST", body: line, headers: { "Content-Type": "application/json" } });
        results.push(h("p", { class: "ok" }, `${r.matchId}: ${r.imported ? "imported" : "already in the archive"}`));
      } catch (err) {
        results.push(errorBox(err));
      }
    }
    importOut.replaceChildren(...results);
  } }, h("h2", {}, "Import match JSON"), h("label", {}, "file ", file), h("label", {}, "game key ", importGame),
    h("button", { type: "submit" }, "Check and import"), importOut);
  ctx.view.append(h("h1", {}, "Matches"),
    filters ? h("p", { class: "muted" }, "Filtered by ", filters, " · ", link("#/matches", "show all")) : "", form,
    section(`${data.total} match${data.total === 1 ? "" : "es"}`, rows,
      h("p", { class: "pager" }, data.page > 1 ? link(goto(data.page - 1), "« newer") : "", ` page ${data.page} of ${pages} `,
        data.page < pages ? link(goto(data.page + 1), "older »") : "")), importForm);
}

// The URL of a piece's generated picture (SBG games; board.js shows the letter when there is none).
function pieceImageFor(gameKey) {
  return (piece, owner) => `/api/games/${encodeURIComponent(gameKey)}/pieces/${encodeURIComponent(piece)}-${encodeURIComponent(owner)}.svg`;
}

function fluentList(items, title) {
  return h("div", { class: "fluents" }, title ? h("div", { class: "muted" }, title) : null,
    items.length ? items.map((f) => h("div", { class: "fluent" }, fluentText(f))) : h("div", { class: "muted" }, "(none)"));
}

// A state on the game's board (geometry from the server), with the fluents that are not on it listed
// beside; a game without a board shows its fluents only.
function renderState(text, board, gameKey, options) {
  const fluents = parseState(text);
  if (!board) return fluentList(fluents, "state");
  const holder = h("div", { class: "board-holder" });
  const rest = drawBoard(holder, board, fluents, Object.assign({ pieceImage: pieceImageFor(gameKey) }, options || {}));
  return h("div", { class: "grid" }, holder, fluentList(rest, "other fluents"));
}

function matchStatus(record) { return record.isCompleted ? "completed" : record.isAborted ? "aborted" : "running"; }

function matchPage(ctx, id) {
  let record = null, shown = 0, follow = true;
  const view = h("div", { class: "match-view" });
  const header = h("div", { class: "match-header" });
  const history = h("ol", { class: "history", start: 0 });
  const stepInfo = h("span", { class: "stepinfo", id: "stepinfo" });
  const go = (step, live) => { follow = live; show(step); };
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "step", oninput: () => go(+slider.value, false) });
  const controls = h("div", { class: "controls" },
    h("button", { "aria-label": "first step", title: "first step (Home)", onclick: () => go(0, false) }, "« first"),
    h("button", { "aria-label": "previous step", title: "previous step (←)", onclick: () => go(shown - 1, false) }, "‹ back"),
    h("button", { "aria-label": "next step", title: "next step (→)", onclick: () => go(shown + 1, false) }, "next ›"),
    h("button", { "aria-label": "last step", title: "last step, then follow the match (End)", onclick: () => go(record.states.length - 1, true) }, "last »"),
    slider, stepInfo);
  const abortButton = h("button", { class: "danger", onclick: async () => {
    try { await api("/api/matches/" + encodeURIComponent(id) + "/abort", { method: "POST" }); } catch (e) { abortButton.after(errorBox(e)); }
  } }, "Abort match");
  ctx.view.append(h("h1", {}, "Match ", h("span", { class: "mono" }, id)), header,
    h("div", { class: "match-body" }, h("div", { class: "panel" }, controls, view), h("div", { class: "panel side" }, h("h2", {}, "Moves"), history)));
  const connecting = h("p", { class: "muted" }, "Connecting…");
  ctx.view.append(connecting);

  const onKey = (e) => {
    if (!record || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
    if (e.key === "ArrowLeft") go(shown - 1, false);
    else if (e.key === "ArrowRight") go(shown + 1, false);
    else if (e.key === "Home") go(0, false);
    else if (e.key === "End") go(record.states.length - 1, true);
  };
  document.addEventListener("keydown", onKey);
  ctx.closers.push(() => document.removeEventListener("keydown", onKey));

  function show(step) {
    if (!record) return;
    const last = record.states.length - 1;
    shown = Math.max(0, Math.min(step, last));
    slider.max = last;
    slider.value = shown;
    const errors = record.errors[shown] || [];
    const move = shown > 0 ? record.moves[shown - 1] : null;
    stepInfo.textContent = `step ${shown} of ${last}` + (follow && matchStatus(record) === "running" ? " · following live" : "");
    view.replaceChildren(
      withPerceptViews(renderState(record.states[shown], record["x-board"], record["x-gameKey"]), record, shown),
      table(["role", "player", shown > 0 ? `move into step ${shown}` : "move", "error"], record["x-roles"].map((role, i) => [
        role, record.playerNamesFromHost[i], move ? h("span", { class: "mono" }, move[i]) : "—",
        errors[i] ? h("span", { class: "err" }, errors[i]) : ""]), { class: "moves" }));
    for (const item of history.children) item.classList.toggle("current", +item.dataset.step === shown);
    const current = history.children[shown];  // keep the current move in the list's view
    if (current && (current.offsetTop < history.scrollTop || current.offsetTop + current.offsetHeight > history.scrollTop + history.clientHeight)) {
      history.scrollTop = current.offsetTop - history.clientHeight / 2;
    }
  }

  function drawHistory() {
    history.replaceChildren(...record.states.map((_, step) => h("li", { "data-step": step, onclick: () => go(step, false) },
      step === 0 ? h("span", { class: "muted" }, "initial state") : h("span", { class: "mono" }, (record.moves[step - 1] || []).join("  ·  ")))));
  }

  function drawHeader() {
    const status = matchStatus(record);
    const goals = record.goalValues;
    let result = null;
    if (status === "completed" && goals) {
      const top = Math.max(...goals);
      const winners = record["x-roles"].filter((_, i) => goals[i] === top);
      result = h("div", { class: "result", id: "result" }, h("strong", {}, "Result: "),
        record["x-roles"].map((role, i) => h("span", { class: "goal" + (goals[i] === top ? " top" : "") },
          `${role} (${record.playerNamesFromHost[i]}) ${goals[i]}`)),
        h("span", { class: "verdict" }, winners.length === goals.length ? "draw" : winners.join(" and ") + " won"));
    } else if (status === "aborted") {
      result = h("div", { class: "result aborted", id: "result" }, h("strong", {}, "Aborted"),
        record["x-abortDetail"] ? " — " + record["x-abortDetail"] : "", record["x-endReason"] ? ` (${record["x-endReason"]})` : "");
    }
    header.replaceChildren(h("p", { class: "meta" },
      "Game ", link("#/game/" + encodeURIComponent(record["x-gameKey"]), record["x-gameKey"]),
      ` · ${record.playerNamesFromHost.join(" vs ")} · clocks ${record.startClock}/${record.playClock} s · seed ${record["x-seed"]} · `,
      statusBadge(status), " · ",
      h("a", { href: "/api/matches/" + encodeURIComponent(id) + "?download=1" }, "export JSON"), " ",
      status === "running" ? abortButton : null),
      record["x-sealed"] ? h("p", { class: "muted", id: "sealed" }, "A person plays this GDL-II match: its states, moves and percepts are hidden until it ends.") : "",
      result || "");
  }

  function load(data) {
    record = data;
    connecting.remove();
    drawHeader(); drawHistory(); show(follow ? record.states.length - 1 : shown);
  }

  const events = new EventSource("/api/matches/" + encodeURIComponent(id) + "/events");
  ctx.closers.push(() => events.close());
  events.addEventListener("snapshot", (e) => load(JSON.parse(e.data)));
  events.addEventListener("start", (e) => { record.errors[0] = JSON.parse(e.data).errors; show(shown); });
  events.addEventListener("step", (e) => {
    const s = JSON.parse(e.data);
    record.states[s.step] = s.state; record.moves[s.step - 1] = s.moves; record.errors[s.step] = s.errors;
    record.stateTimes[s.step] = s.time;
    if (s.percepts) (record["x-percepts"] = record["x-percepts"] || [])[s.step - 1] = s.percepts;
    drawHistory();
    show(follow ? s.step : shown);
  });
  events.addEventListener("end", (e) => { events.close(); load(JSON.parse(e.data)); });
  // Before any data arrived an error means an unknown match; later ones are dropped connections,
  // which EventSource retries by itself (the server then sends a fresh snapshot).
  events.onerror = () => {
    if (record) return;
    events.close();
    ctx.view.replaceChildren(h("h1", {}, "Match ", id), errorBox("Unknown match " + id));
  };
}

async function gamesPage(ctx) {
  const response = await fetch("/api/games");
  const games = await response.json();
  const formats = (response.headers.get("X-Game-Formats") || "kif").split(",");
  const repository = await api("/api/repository");
  const key = h("input", { name: "key", required: true, pattern: "[A-Za-z0-9][A-Za-z0-9_\\-]*" });
  const name = h("input", { name: "name" });
  const format = h("select", { name: "format" }, formats.map((f) => h("option", { value: f }, f.toUpperCase())));
  const kif = h("textarea", { name: "kif", required: true, spellcheck: "false" });
  const out = h("div", { class: "out" });
  const form = h("form", { class: "card", id: "add-game", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const g = await api("/api/games", { method: "POST", body: { key: key.value, name: name.value, [format.value]: kif.value } });
      out.replaceChildren(h("p", { class: "ok" }, `Stored ${g.key} v${g.version}; roles ${g.roles.join(", ")}`));
      setTimeout(route, 800);
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  } }, h("h2", {}, "Add a game (KIF or SBG)"), h("label", {}, "key ", key), h("label", {}, "name ", name),
    h("label", {}, "format ", format), h("label", {}, "rules", kif), h("button", { type: "submit" }, "Validate and add"), out);
  ctx.view.append(h("h1", {}, "Games"),
    section(`${games.length} game${games.length === 1 ? "" : "s"}`, games.length ? table(["key", "name", "version", "roles"],
      games.map((g) => [link("#/game/" + encodeURIComponent(g.key), g.key), g.name, "v" + g.version, g.roles.join(", ")]), { id: "games", class: "list" })
      : empty("No games yet.")),
    h("p", { class: "muted" }, "Served to GGP tools as a ggp.org game repository at ", h("span", { class: "mono" }, location.origin + "/games/")),
    repository.broken.length ? section(`${repository.broken.length} broken game${repository.broken.length === 1 ? "" : "s"} (not served)`,
      table(["key", "file", "error"], repository.broken.map((b) => [b.key, h("span", { class: "mono" }, b.path), h("span", { class: "err" }, b.error)]),
        { id: "broken-games", class: "list" })) : "",
    form);
}

async function gamePage(ctx, key) {
  const [g, agon] = await Promise.all([api("/api/games/" + encodeURIComponent(key)),
    api("/api/ratings?system=agon&game=" + encodeURIComponent(key))]);
  ctx.view.append(h("h1", {}, g.name), h("p", { class: "meta" }, h("span", { class: "mono" }, g.key), ` · version ${g.version} · roles `, g.roles.join(", "),
    " · ", link("#/matches?game=" + encodeURIComponent(g.key), "matches of this game"), " · ", link("#/new?game=" + encodeURIComponent(g.key), "start a match")),
    h("p", { class: "meta", id: "board-size" }, g.board
      ? `Board: ${g.board.xs.length}` + (g.board.ys.length ? ` × ${g.board.ys.length}` : " squares in a row") + ` (${g.board.layers.map((l) => l.relation).join(", ")})`
      : "No board: states are shown as fluent lists."),
    section("Agon ratings on this game", agonTable(agon, "game-agon")),
    section("Rules", h("pre", { class: "kif" }, g.kif)));
}

async function playersPage(ctx) {
  const response = await fetch("/api/players");
  const players = await response.json();
  const schedule = await api("/api/schedule");
  const scheduled = Object.fromEntries(schedule.players.map((p) => [p.name, p.state]));
  const types = (response.headers.get("X-Builtin-Types") || "random").split(",");
  const name = h("input", { name: "name", required: true });
  const url = h("input", { name: "url", placeholder: "http://127.0.0.1:9147/" });
  const builtin = h("select", { name: "builtin" }, h("option", { value: "" }, "(remote URL)"), types.map((t) => h("option", { value: t }, t)));
  const out = h("div", { class: "out" });
  const form = h("form", { class: "card", id: "add-player", onsubmit: async (e) => {
    e.preventDefault();
    const body = builtin.value ? { name: name.value, builtin: builtin.value } : { name: name.value, url: url.value };
    try { await api("/api/players", { method: "POST", body }); route(); } catch (err) { out.replaceChildren(errorBox(err)); }
  } }, h("h2", {}, "Register a player"), h("label", {}, "name ", name), h("label", {}, "built-in type ", builtin),
    h("label", {}, "or remote URL ", url), h("button", { type: "submit" }, "Register"), out);
  const ping = (p) => h("button", { class: "small", onclick: async (e) => {
    const cell = e.target.parentNode;
    try { const r = await api(`/api/players/${encodeURIComponent(p.name)}/ping`); cell.replaceChildren(r.status + (r.name ? ` (${r.name})` : "")); }
    catch (err) { cell.replaceChildren(errorBox(err)); }
  } }, "ping");
  const status = (p) => p.suspended
    ? h("span", {}, h("span", { class: "err" }, `suspended (${p.failStreak} failures) `),
      h("button", { class: "small", onclick: async (e) => { try { await api(`/api/players/${encodeURIComponent(p.name)}/unsuspend`, { method: "POST" }); route(); } catch (err) { e.target.after(errorBox(err)); } } }, "unsuspend"))
    : p.failStreak ? `${p.failStreak} failed in a row` : h("span", { class: "ok" }, "ok");
  // Continuous scheduling (ggp serve --schedule) seats remote players; pausing keeps one out of it.
  const scheduleCell = (p) => {
    const state = scheduled[p.name];
    if (!state) return "";
    const action = state === "paused" ? "resume" : "pause";
    return h("span", {}, state + " ", h("button", { class: "small", onclick: async (e) => {
      try { await api(`/api/players/${encodeURIComponent(p.name)}/${action}`, { method: "POST" }); route(); } catch (err) { e.target.after(errorBox(err)); }
    } }, action));
  };
  ctx.view.append(h("h1", {}, "Players"),
    h("p", { class: "muted", id: "schedule-state" }, schedule.running
      ? `Continuous scheduling is on: a round every ${schedule.settings.round_s} s.`
      : "Continuous scheduling is off (ggp serve --schedule turns it on)."),
    section(`${players.length} player${players.length === 1 ? "" : "s"}`,
      table(["name", "kind", "url / type", "Elo", "status", "schedule", "INFO"], players.map((p) => [
        link("#/matches?player=" + encodeURIComponent(p.name), p.name), p.kind, h("span", { class: "mono" }, p.url || p.builtin || ""),
        p.elo.toFixed(1), status(p), scheduleCell(p), ping(p)]), { id: "players", class: "list" })),
    form);
}

async function newPage(ctx) {
  const [games, players] = await Promise.all([api("/api/games"), api("/api/players")]);
  const wanted = new URLSearchParams(location.hash.split("?")[1] || "").get("game");
  // The chance role "random" is the manager's own seat: preselect the random player there.
  const playerOptions = (role) => players.filter((p) => !p.suspended).map((p) => h("option", { value: p.name, selected: role === "random" && p.name === "random" }, p.name));
  const game = h("select", { name: "game" }, games.map((g) => h("option", { value: g.key, selected: g.key === wanted }, `${g.name} (${g.roles.length} roles)`)));
  const seats = h("div", { class: "seats" });
  const drawSeats = () => {
    const g = games.find((x) => x.key === game.value);
    seats.replaceChildren(...(g ? g.roles : []).map((role) => h("label", {}, role, " ", h("select", { "data-role": role }, playerOptions(role)))));
  };
  game.addEventListener("change", drawSeats);
  drawSeats();
  const start = h("input", { type: "number", name: "startclock", min: 1, value: 10 }), play = h("input", { type: "number", name: "playclock", min: 1, value: 5 });
  const seed = h("input", { type: "number", name: "seed", min: 0, placeholder: "random" });
  const out = h("div", { class: "out" });
  const matchForm = h("form", { class: "card", id: "new-match", onsubmit: async (e) => {
    e.preventDefault();
    const body = { game: game.value, players: [...seats.querySelectorAll("select")].map((s) => s.value),
      startclock: +start.value, playclock: +play.value };
    if (seed.value !== "") body.seed = +seed.value;
    try { const r = await api("/api/matches", { method: "POST", body }); openSeats(r.matchId, r.humanSeats); }
    catch (err) { out.replaceChildren(errorBox(err)); }
  } }, h("h2", {}, "Start a match"), h("label", {}, "game ", game), seats, h("label", {}, "start clock (s) ", start),
    h("label", {}, "play clock (s) ", play), h("label", {}, "seed ", seed), h("button", { type: "submit" }, "Start"), out);

  const tGame = h("select", { name: "game" }, games.map((g) => h("option", { value: g.key, selected: g.key === wanted }, g.name)));
  const tPlayers = h("select", { name: "players", multiple: true, size: 6 }, playerOptions());
  const perPairing = h("input", { type: "number", name: "matches_per_pairing", min: 1, value: 2 });
  const tStart = h("input", { type: "number", name: "startclock", min: 1, value: 10 }), tPlay = h("input", { type: "number", name: "playclock", min: 1, value: 5 });
  const tOut = h("div", { class: "out" });
  const tournamentForm = h("form", { class: "card", id: "new-tournament", onsubmit: async (e) => {
    e.preventDefault();
    const body = { game: tGame.value, players: [...tPlayers.selectedOptions].map((o) => o.value),
      matches_per_pairing: +perPairing.value, startclock: +tStart.value, playclock: +tPlay.value };
    try { const r = await api("/api/tournaments", { method: "POST", body }); location.hash = "#/tournament/" + r.id; }
    catch (err) { tOut.replaceChildren(errorBox(err)); }
  } }, h("h2", {}, "Start a round-robin tournament"), h("label", {}, "game ", tGame), h("label", {}, "players (Ctrl-click for several) ", tPlayers),
    h("label", {}, "matches per pairing ", perPairing), h("label", {}, "start clock (s) ", tStart),
    h("label", {}, "play clock (s) ", tPlay), h("button", { type: "submit" }, "Start tournament"), tOut);
  ctx.view.append(h("h1", {}, "New match or tournament"), h("div", { class: "cards" }, matchForm, tournamentForm));
}

// A player some of whose moves the manager played (timeouts, errors, illegal replies) is ranked on moves it
// did not choose: its row gets a star and this note says how many.
function fallbackNote(standings) {
  const marked = standings.filter((s) => s.fallbacks);
  return marked.length ? h("p", { class: "meta fallbacks" }, "* moves played by the fallback, not chosen by the player: ",
    marked.map((s) => `${s.player} ${s.fallbacks}`).join(", ")) : "";
}

async function tournamentPage(ctx, id) {
  const t = await api("/api/tournaments/" + encodeURIComponent(id));
  ctx.view.append(h("h1", {}, "Tournament ", t.name), h("p", { class: "meta" }, "Game ", t.game, " · ", statusBadge(t.status),
    ` · ${t.matches.length} of ${t.config.scheduled} matches`),
    section("Standings", t.standings.length ? h("div", {}, table(["player", "matches", "wins", "mean goal"], t.standings.map((s) => [s.fallbacks ? s.player + " *" : s.player, s.matches, s.wins, s.mean.toFixed(1)]), { class: "list" }),
      fallbackNote(t.standings)) : empty("No finished matches yet.")),
    section("Matches", matchRows(t.matches, "tournament-matches")));
  if (t.status === "running") {  // reload when one of its matches starts or ends (and every 5 s anyway)
    const feed = new EventSource("/api/events");
    let timer = setTimeout(route, 5000);
    feed.addEventListener("match", () => { clearTimeout(timer); timer = setTimeout(route, 300); });
    ctx.closers.push(() => { feed.close(); clearTimeout(timer); });
  }
}

// ---------------------------------------------------------------------------------------- a person at the board
// A match seat of kind "human" is played from this page (ggp/manager/human.py): the page long-polls
// the seat's view, the person picks a move by clicking cells (human.js) or from the legal moves,
// confirms it, and the page posts it with the seat's secret. The secrets live in sessionStorage,
// so only the tab that started the match (or opened a link carrying a secret) can move.

function seatKey(id, role) { return "ggp-seat " + id + " " + role; }

function playHref(id, role) { return "#/play/" + encodeURIComponent(id) + "/" + encodeURIComponent(role); }

// After POST /api/matches: keep the people's secrets in this tab, then open the first person's seat.
function openSeats(matchId, humanSeats) {
  const roles = Object.keys(humanSeats || {});
  for (const role of roles) sessionStorage.setItem(seatKey(matchId, role), humanSeats[role]);
  location.hash = roles.length ? playHref(matchId, roles[0]) : "#/match/" + encodeURIComponent(matchId);
}

// One click on the dashboard: a registered person against a built-in player (mcts when there is one).
function playCard(games, players) {
  const person = players.find((p) => p.kind === "human" && !p.suspended);
  if (!person || !games.length) return null;
  const others = players.filter((p) => p.kind !== "human" && !p.suspended);
  const preferred = others.find((p) => p.name === "mcts") || others.find((p) => p.kind === "builtin") || others[0];
  const game = h("select", { name: "game", "aria-label": "game" }, games.map((g) =>
    h("option", { value: g.key, selected: g.key === "ticTacToe" }, g.name)));
  const opponent = h("select", { name: "opponent", "aria-label": "opponent" }, others.map((p) =>
    h("option", { value: p.name, selected: p === preferred }, p.name)));
  const clock = h("select", { name: "playclock", "aria-label": "play clock" }, [15, 30, 60, 120].map((s) =>
    h("option", { value: s, selected: s === 30 }, `${s} s a move`)));
  const out = h("div", { class: "out" });
  const form = h("form", { class: "play-form", id: "play-form", onsubmit: async (e) => {
    e.preventDefault();
    const g = games.find((x) => x.key === game.value);
    const players = g.roles.filter((r) => r !== "random").map((r, i) => (i === 0 ? person.name : opponent.value));
    try {
      const r = await api("/api/matches", { method: "POST", body: { game: g.key, players, startclock: 10, playclock: +clock.value } });
      openSeats(r.matchId, r.humanSeats);
    } catch (err) { out.replaceChildren(h("p", { class: "err" }, err.message)); }
  } }, h("label", {}, "game ", game), h("label", {}, "against ", opponent), h("label", {}, clock),
    h("button", { type: "submit", id: "play-button" }, `Play as ${person.name}`), out);
  return section("Play a game yourself", form);
}

function playPage(ctx, id, role) {
  const given = new URLSearchParams(location.hash.split("?")[1] || "").get("key");
  if (given) {  // a link carrying the secret: keep it in this tab and take it out of the address bar
    sessionStorage.setItem(seatKey(id, role), given);
    history.replaceState(null, "", playHref(id, role));
  }
  const headers = { "X-Seat-Secret": sessionStorage.getItem(seatKey(id, role)) || "" };
  const path = "/api/matches/" + encodeURIComponent(id) + "/human/" + encodeURIComponent(role);
  const stop = new AbortController();
  let view = null, picked = [], candidates = [], pending = null, deadline = 0, alive = true;

  const meta = h("p", { class: "meta" });
  const status = h("div", { class: "play-status", id: "play-status" });
  const clock = h("span", { class: "clock", id: "clock" });
  const board = h("div", { class: "play-board", id: "play-board" });
  const choice = h("div", { class: "choice", id: "choice" });
  const legalList = h("div", { class: "legal", id: "legal" });
  const moves = h("ol", { class: "history", id: "play-history", start: 1 });
  const problem = h("p", { class: "err", id: "play-error" });
  ctx.view.append(h("h1", {}, "Playing ", h("span", { class: "mono" }, role), " in ", h("span", { class: "mono" }, id)), meta,
    h("div", { class: "match-body" },
      h("div", { class: "panel" }, h("div", { class: "play-bar" }, status, clock), board, choice, problem, legalList),
      h("div", { class: "panel side" }, h("h2", {}, "Moves"), moves)));

  const cells = () => new Set([...board.querySelectorAll("[data-cell]")].map((c) => c.dataset.cell));
  const own = (row) => (row.length === 1 ? row[0] : row[view.roles.indexOf(role)]);

  function drawChoice() {
    const reachable = nextCells(candidates, picked, cells());
    for (const cell of board.querySelectorAll("[data-cell]")) {
      cell.classList.toggle("picked", picked.includes(cell.dataset.cell));
      cell.classList.toggle("target", view.yourTurn && (picked.length ? reachable.has(cell.dataset.cell) : false));
    }
    const undo = h("button", { id: "undo", onclick: () => { picked = []; candidates = []; pending = null; problem.textContent = ""; drawChoice(); } }, "Undo");
    if (!view.yourTurn) choice.replaceChildren();
    else if (pending) {
      choice.replaceChildren(h("span", {}, "Your move: "), h("strong", { class: "mono", id: "pending" }, pending), " ",
        h("button", { type: "submit", id: "confirm", onclick: confirm }, "Confirm"), " ", undo);
    } else if (picked.length) {
      choice.replaceChildren(h("span", {}, "Picked ", h("span", { class: "mono" }, picked.join(" → ")), ": click where to go, or pick below. "), undo);
    } else choice.replaceChildren(h("span", { class: "muted" }, "Click on the board, or pick one of the legal moves below; then confirm."));
    const shown = picked.length ? candidates : view.legal;
    legalList.replaceChildren(...(view.yourTurn ? [h("h2", {}, `Legal moves (${shown.length} of ${view.legal.length})`),
      h("div", { class: "legal-moves" }, shown.map((move) => h("button", { class: "move mono" + (move === pending ? " chosen" : ""),
        "data-move": move, onclick: () => { pending = move; picked = moveCells(move, cells()); candidates = [move]; drawChoice(); } }, move)))] : []));
  }

  function onCell(cell) {
    if (!view || !view.yourTurn) return;
    const step = clickCell(view.legal, picked, cell, cells());
    if (!step.candidates.length) { problem.textContent = `No legal move uses ${cell} now.`; return; }
    problem.textContent = "";
    picked = step.picked; candidates = step.candidates;
    pending = step.chosen.length === 1 ? step.chosen[0] : null;
    if (step.chosen.length > 1) candidates = step.chosen;  // several moves on these cells: pick one below
    drawChoice();
  }
  board.addEventListener("click", (e) => { const cell = e.target.closest("[data-cell]"); if (cell && board.contains(cell)) onCell(cell.dataset.cell); });

  async function confirm() {
    if (!pending || !view.yourTurn) return;
    const turn = view.turn;
    try {
      await api(path + "/move", { method: "POST", body: { move: pending, turn }, headers });
      if (!view.yourTurn || view.turn !== turn) return;  // the long poll already brought the next turn
      view.yourTurn = false; picked = []; candidates = []; pending = null; problem.textContent = "";
      status.textContent = "Move sent; waiting for the other players…"; deadline = 0; drawChoice();
    } catch (err) { problem.textContent = err.message; }
  }

  function drawPersonBoard() {
    if (view.state) {  // drawn as the match page draws a state: the one call to change with the board code
      board.replaceChildren(renderState(view.state, view.board, view.game));
    } else {  // GDL-II: only what this role knows
      board.replaceChildren(h("div", { class: "role-view" }, h("h3", {}, `what you (${role}) know`),
        view.moves.length ? h("ol", { class: "percepts" }, view.moves.map((row, i) => h("li", {},
          h("span", { class: "mono" }, own(row)), " → ",
          (view.percepts[i] || []).length ? h("span", { class: "mono" }, view.percepts[i].join("  ")) : h("span", { class: "muted" }, "saw nothing"))))
          : h("p", { class: "muted" }, "only the rules and the initial state")));
    }
  }

  function drawMoves() {
    moves.replaceChildren(...view.moves.map((row, i) => {
      const errors = view.errors[i] || [];
      const hidden = row.length === 1 && view.roles.length > 1;
      return h("li", {}, (hidden ? [[role, row[0], errors[0]]] : view.roles.map((r, j) => [r, row[j], errors[j]])).map(([r, move, code]) =>
        h("span", { class: "joint" + (r === role ? " mine" : "") }, `${r}: `, h("span", { class: "mono" }, move),
          code ? h("span", { class: "err" }, ` (${code}${code === "TO" ? ": random move played" : ""})`) : null, " ")));
    }));
    moves.scrollTop = moves.scrollHeight;
  }

  function drawStatus() {
    const players = view.roles.map((r, i) => `${r} (${view.players[i]})`).join(" vs ");
    // Other people's seats this tab holds (hot seat): links that carry their secret, for another tab too.
    const others = view.roles.filter((r) => r !== role && sessionStorage.getItem(seatKey(id, r)));
    meta.replaceChildren("Game ", link("#/game/" + encodeURIComponent(view.game), view.game), ` · ${players} · you play ${role} · `,
      `play clock ${view.playClock} s · `, link("#/match/" + encodeURIComponent(id), "spectator view"),
      ...(others.length ? [h("span", { id: "other-seats" }, " · also yours: ", others.flatMap((r) =>
        [h("a", { href: playHref(id, r) + "?key=" + encodeURIComponent(sessionStorage.getItem(seatKey(id, r))) }, r), " "]))] : []));
    if (view.finished) {
      clock.textContent = "";
      if (view.completed && view.goals) {
        const mine = view.goals[view.roles.indexOf(role)];
        const best = Math.max(...view.goals.filter((_, i) => view.roles[i] !== "random"));
        const alone = view.goals.filter((g, i) => view.roles[i] !== "random" && g === best).length === 1;
        const outcome = mine === best ? (alone ? "won" : "draw") : "lost";
        const verdict = { won: "You won", draw: "Draw", lost: "You lost" }[outcome];
        status.replaceChildren(h("div", { class: "result " + outcome, id: "result" }, h("strong", {}, verdict + ". "),
          view.endWhy ? h("span", { class: "why", id: "end-why" }, view.endWhy[0].toUpperCase() + view.endWhy.slice(1) + ".") : "",
          view.roles.map((r, i) => h("span", { class: "goal" + (r === role ? " top" : "") }, `${r} ${view.goals[i]}`)),
          h("button", { type: "button", id: "play-again", onclick: playAgain }, "Play again")));
      } else {
        status.replaceChildren(h("div", { class: "result aborted", id: "result" }, h("strong", {}, "Aborted"),
          view.abortDetail ? " — " + view.abortDetail : "", view.endReason ? ` (${view.endReason})` : ""));
      }
    } else status.replaceChildren(h("strong", {}, view.yourTurn ? "Your move" : "Waiting for the other players…"));
    deadline = view.yourTurn && view.secondsLeft !== null ? performance.now() + 1000 * view.secondsLeft : 0;
    tick();
  }

  // The same game against the same players, the person in the same role, the same play clock.
  async function playAgain() {
    try {
      const r = await api("/api/matches", { method: "POST", body: { game: view.game,
        players: view.roles.filter((r) => r !== "random").map((r) => view.players[view.roles.indexOf(r)]),
        startclock: 10, playclock: view.playClock } });
      openSeats(r.matchId, r.humanSeats);
    } catch (err) { problem.textContent = err.message; }
  }

  function tick() {
    if (!deadline) { if (!view || !view.finished) clock.textContent = ""; return; }
    const left = Math.max(0, (deadline - performance.now()) / 1000);
    clock.textContent = `${left.toFixed(1)} s left`;
    clock.classList.toggle("low", left < 5);
  }
  const timer = setInterval(tick, 100);

  function update(next) {
    const newTurn = !view || next.turn !== view.turn || !next.yourTurn;
    view = next;
    if (newTurn) { picked = []; candidates = []; pending = null; }
    drawPersonBoard(); drawMoves(); drawStatus(); drawChoice();
  }

  ctx.closers.push(() => { alive = false; stop.abort(); clearInterval(timer); });
  (async () => {
    let since = null;
    while (alive) {
      try {
        const next = await api(path + (since === null ? "" : "?since=" + since), { headers, signal: stop.signal });
        if (!alive) return;
        since = next.version;
        update(next);
        if (next.finished) return;
      } catch (err) {
        if (!alive) return;
        problem.textContent = err.message;
        if (err.status === 403 || err.status === 404) {
          if (!view) status.replaceChildren(h("p", {}, "This tab cannot play this seat. ", link("#/match/" + encodeURIComponent(id), "Watch the match instead.")));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
}

// ---------------------------------------------------------------------------------------- routing

let current = null;  // the page on screen (or loading): {view, closers, active}

async function route() {
  if (current) { current.active = false; current.closers.forEach((close) => close()); }
  const ctx = { view: h("div", { class: "page" }), closers: [], active: true };
  current = ctx;
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const section = parts[0] || "dashboard";
  for (const a of document.querySelectorAll("header nav a")) a.classList.toggle("active", a.dataset.page === section);
  document.title = (parts.length ? parts.join(" ") + " · " : "") + "GGP manager";
  try {
    if (parts.length === 0) await dashboard(ctx);
    else if (parts[0] === "matches") await matchesPage(ctx);
    else if (parts[0] === "match" && parts[1]) matchPage(ctx, parts[1]);
    else if (parts[0] === "play" && parts[1] && parts[2]) playPage(ctx, parts[1], parts[2]);
    else if (parts[0] === "games") await gamesPage(ctx);
    else if (parts[0] === "game" && parts[1]) await gamePage(ctx, parts[1]);
    else if (parts[0] === "players") await playersPage(ctx);
    else if (parts[0] === "new") await newPage(ctx);
    else if (parts[0] === "tournament" && parts[1]) await tournamentPage(ctx, parts[1]);
    else ctx.view.append(h("h1", {}, "No such page"), h("p", {}, link("#/", "Back to the dashboard")));
  } catch (err) {
    ctx.view.replaceChildren(errorBox(err));
  }
  if (!ctx.active) { ctx.closers.forEach((close) => close()); return; }  // the user moved on meanwhile
  main.replaceChildren(ctx.view);
}

window.addEventListener("hashchange", route);
route();
