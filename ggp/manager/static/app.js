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
  const [running, recent, ratings, tournaments, games, players] = await Promise.all([
    api("/api/matches?status=running&limit=50"), api("/api/matches?limit=30"), api("/api/ratings"),
    api("/api/tournaments"), api("/api/games"), api("/api/players")]);
  const finished = recent.filter((m) => m.status !== "running").slice(0, 20);
  const stat = (label, value, href) => h(href ? "a" : "div", { class: "stat", href }, h("span", { class: "value" }, String(value)), h("span", { class: "label" }, label));
  const standings = [...ratings.ratings].sort((a, b) => b.elo - a.elo);
  ctx.view.append(
    h("h1", {}, "Dashboard"),
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
        section("Tournaments", tournaments.length ? table(["id", "name", "game", "status"], tournaments.map((t) => [
          link("#/tournament/" + t.id, String(t.id)), t.name, t.game, statusBadge(t.status)]), { id: "tournaments", class: "list" })
          : empty("None."),
          h("p", {}, link("#/new", "Start a match or a tournament…"))))));
  const feed = new EventSource("/api/events");
  let timer = null;
  feed.addEventListener("match", () => { clearTimeout(timer); timer = setTimeout(route, 300); });
  ctx.closers.push(() => { feed.close(); clearTimeout(timer); });
}

async function matchesPage(ctx) {
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  const matches = await api("/api/matches?" + params.toString());
  const filters = [...params.entries()].map(([k, v]) => `${k} = ${v}`).join(", ");
  ctx.view.append(h("h1", {}, "Matches"), filters ? h("p", { class: "muted" }, "Filtered by ", filters, " · ", link("#/matches", "show all")) : "",
    section(`${matches.length} match${matches.length === 1 ? "" : "es"}`, matchRows(matches, "matches")));
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
      status === "running" ? abortButton : null), result || "");
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
    form);
}

async function gamePage(ctx, key) {
  const g = await api("/api/games/" + encodeURIComponent(key));
  ctx.view.append(h("h1", {}, g.name), h("p", { class: "meta" }, h("span", { class: "mono" }, g.key), ` · version ${g.version} · roles `, g.roles.join(", "),
    " · ", link("#/matches?game=" + encodeURIComponent(g.key), "matches of this game"), " · ", link("#/new?game=" + encodeURIComponent(g.key), "start a match")),
    h("p", { class: "meta", id: "board-size" }, g.board
      ? `Board: ${g.board.xs.length}` + (g.board.ys.length ? ` × ${g.board.ys.length}` : " squares in a row") + ` (${g.board.layers.map((l) => l.relation).join(", ")})`
      : "No board: states are shown as fluent lists."),
    section("Rules", h("pre", { class: "kif" }, g.kif)));
}

async function playersPage(ctx) {
  const response = await fetch("/api/players");
  const players = await response.json();
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
  ctx.view.append(h("h1", {}, "Players"),
    section(`${players.length} player${players.length === 1 ? "" : "s"}`,
      table(["name", "kind", "url / type", "Elo", "status", "INFO"], players.map((p) => [
        link("#/matches?player=" + encodeURIComponent(p.name), p.name), p.kind, h("span", { class: "mono" }, p.url || p.builtin || ""),
        p.elo.toFixed(1), status(p), ping(p)]), { id: "players", class: "list" })),
    form);
}

async function newPage(ctx) {
  const [games, players] = await Promise.all([api("/api/games"), api("/api/players")]);
  const wanted = new URLSearchParams(location.hash.split("?")[1] || "").get("game");
  const playerOptions = () => players.filter((p) => !p.suspended).map((p) => h("option", { value: p.name }, p.name));
  const game = h("select", { name: "game" }, games.map((g) => h("option", { value: g.key, selected: g.key === wanted }, `${g.name} (${g.roles.length} roles)`)));
  const seats = h("div", { class: "seats" });
  const drawSeats = () => {
    const g = games.find((x) => x.key === game.value);
    seats.replaceChildren(...(g ? g.roles : []).map((role) => h("label", {}, role, " ", h("select", { "data-role": role }, playerOptions()))));
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
    try { const r = await api("/api/matches", { method: "POST", body }); location.hash = "#/match/" + encodeURIComponent(r.matchId); }
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

async function tournamentPage(ctx, id) {
  const t = await api("/api/tournaments/" + encodeURIComponent(id));
  ctx.view.append(h("h1", {}, "Tournament ", t.name), h("p", { class: "meta" }, "Game ", t.game, " · ", statusBadge(t.status),
    ` · ${t.matches.length} of ${t.config.scheduled} matches`),
    section("Standings", t.standings.length ? table(["player", "matches", "wins", "mean goal"], t.standings.map((s) => [s.player, s.matches, s.wins, s.mean.toFixed(1)]), { class: "list" })
      : empty("No finished matches yet.")),
    section("Matches", matchRows(t.matches, "tournament-matches")));
  if (t.status === "running") {  // reload when one of its matches starts or ends (and every 5 s anyway)
    const feed = new EventSource("/api/events");
    let timer = setTimeout(route, 5000);
    feed.addEventListener("match", () => { clearTimeout(timer); timer = setTimeout(route, 300); });
    ctx.closers.push(() => { feed.close(); clearTimeout(timer); });
  }
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
