// GGP manager web UI: a small hash-routed page over the JSON API. No build step, no framework.
// Every piece of data from the server goes into the page through textContent (never innerHTML),
// so player names, game keys and game text are always escaped.
"use strict";

const main = document.getElementById("main");
const tokenInput = document.getElementById("token");
tokenInput.value = localStorage.getItem("ggp-token") || "";
tokenInput.addEventListener("change", () => localStorage.setItem("ggp-token", tokenInput.value));

let cleanup = [];  // functions closing the current page's event streams

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
function when(seconds) { return seconds ? new Date(seconds * 1000).toLocaleString() : ""; }

function table(headers, rows) {
  return h("table", {}, h("tr", {}, headers.map((x) => h("th", {}, x))),
    rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cell)))));
}

function matchRows(matches) {
  return table(["match", "game", "players", "status", "goals", "started"], matches.map((m) => [
    matchLink(m.matchId), m.game, m.players.join(", "),
    h("span", { class: "status-" + m.status }, m.status), m.goals ? m.goals.join(" / ") : "", when(m.created)]));
}

// ---------------------------------------------------------------------------------------- pages

async function dashboard() {
  const [running, recent, ratings, tournaments] = await Promise.all([
    api("/api/matches?status=running&limit=50"), api("/api/matches?limit=20"), api("/api/ratings"),
    api("/api/tournaments")]);
  main.replaceChildren(
    h("h2", {}, "Running matches"), running.length ? matchRows(running) : h("p", {}, "None."),
    h("h2", {}, "Recent results"), recent.length ? matchRows(recent.filter((m) => m.status !== "running")) : h("p", {}, "None yet."),
    h("h2", {}, "Standings (Elo, all games)"),
    ratings.ratings.length ? table(["player", "Elo", "rated matches"],
      ratings.ratings.map((r) => [r.player, r.elo, r.matches])) : h("p", {}, "No rated matches yet."),
    h("h2", {}, "Tournaments"),
    tournaments.length ? table(["id", "name", "game", "status"], tournaments.map((t) => [
      link("#/tournament/" + t.id, String(t.id)), t.name, t.game, t.status])) : h("p", {}, "None."));
  const feed = new EventSource("/api/events");
  let timer = null;
  feed.addEventListener("match", () => { clearTimeout(timer); timer = setTimeout(route, 300); });
  cleanup.push(() => feed.close());
}

async function matchesPage() {
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  const matches = await api("/api/matches?" + params.toString());
  main.replaceChildren(h("h2", {}, "Matches"), matchRows(matches));
}

const BLANK = new Set(["b", "blank", "empty", "e", "0"]);

function renderState(text, layout) {
  const fluents = parseState(text);
  const grid = findGrid(fluents, layout);
  const list = (items) => h("div", { class: "fluents" }, items.map((f) => h("div", {}, fluentText(f))));
  if (!grid) return list(fluents);
  const rows = grid.ys.map((y, yi) => h("tr", {}, h("th", {}, y), grid.xs.map((x, xi) => {
    const value = grid.cells.get(x + " " + y);
    return h("td", { class: (xi + yi) % 2 ? "dark" : null, title: `(${grid.name} ${x} ${y} ${value ?? ""})` },
      value === undefined || BLANK.has(value) ? "" : value);
  })));
  return h("div", { class: "grid" },
    h("table", { class: "board" }, h("tr", {}, h("th", {}), grid.xs.map((x) => h("th", {}, x))), rows),
    list(grid.rest));
}

async function matchPage(id) {
  let record = null, shown = 0, follow = true, tracker = new GridTracker();
  const track = (text) => tracker.add(parseState(text));
  const view = h("div", {});
  const header = h("div", {});
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, oninput: () => { follow = false; show(+slider.value); } });
  const controls = h("div", { class: "controls" },
    h("button", { onclick: () => { follow = false; show(0); } }, "⏮"),
    h("button", { onclick: () => { follow = false; show(shown - 1); } }, "◀"),
    h("button", { onclick: () => { follow = false; show(shown + 1); } }, "▶"),
    h("button", { onclick: () => { follow = true; show(record.states.length - 1); } }, "⏭ live"),
    slider, " ", h("span", { id: "stepinfo" }));
  const abortButton = h("button", { onclick: async () => {
    try { await api("/api/matches/" + encodeURIComponent(id) + "/abort", { method: "POST" }); } catch (e) { alert(e.message); }
  } }, "Abort match");
  main.replaceChildren(h("h2", {}, "Match ", id), header, controls, view);

  function show(step) {
    if (!record) return;
    shown = Math.max(0, Math.min(step, record.states.length - 1));
    slider.max = record.states.length - 1;
    slider.value = shown;
    const errors = record.errors[shown] || [];
    const move = shown > 0 ? record.moves[shown - 1] : null;
    document.getElementById("stepinfo").textContent = `step ${shown} of ${record.states.length - 1}`;
    view.replaceChildren(
      table(["role", "player", "move into this state", "error"], record["x-roles"].map((role, i) => [
        role, record.playerNamesFromHost[i], move ? h("span", { class: "mono" }, move[i]) : "—",
        errors[i] ? h("span", { class: "err" }, errors[i]) : ""])),
      renderState(record.states[shown], tracker.layout()));
  }

  function drawHeader() {
    const status = record.isCompleted ? "completed" : record.isAborted ? "aborted" : "running";
    header.replaceChildren(h("p", {},
      "Game ", h("strong", {}, record["x-gameKey"]), ` · clocks ${record.startClock}/${record.playClock} s · seed ${record["x-seed"]} · `,
      h("span", { class: "status-" + status }, status),
      record.goalValues ? " · goals " + record.goalValues.join(" / ") : "",
      record["x-abortDetail"] ? " (" + record["x-abortDetail"] + ")" : "", " · ",
      h("a", { href: "/api/matches/" + encodeURIComponent(id) + "?download=1" }, "export JSON"), " ",
      status === "running" ? abortButton : null));
  }

  const events = new EventSource("/api/matches/" + encodeURIComponent(id) + "/events");
  cleanup.push(() => events.close());
  events.addEventListener("snapshot", (e) => {
    record = JSON.parse(e.data); record.states.forEach(track); drawHeader(); show(record.states.length - 1);
  });
  events.addEventListener("start", (e) => { record.errors[0] = JSON.parse(e.data).errors; if (follow) show(shown); });
  events.addEventListener("step", (e) => {
    const s = JSON.parse(e.data);
    record.states[s.step] = s.state; track(s.state); record.moves[s.step - 1] = s.moves; record.errors[s.step] = s.errors;
    record.stateTimes[s.step] = s.time;
    if (follow) show(s.step); else show(shown);
  });
  events.addEventListener("end", (e) => {
    record = JSON.parse(e.data); tracker = new GridTracker(); record.states.forEach(track); drawHeader(); show(follow ? record.states.length - 1 : shown); events.close(); });
  events.onerror = () => { if (!record) main.replaceChildren(h("p", { class: "err" }, "Unknown match ", id)); events.close(); };
}

async function gamesPage() {
  const games = await api("/api/games");
  const key = h("input", { name: "key", required: true, pattern: "[a-z0-9][a-z0-9_-]*" });
  const name = h("input", { name: "name" });
  const kif = h("textarea", { name: "kif", required: true });
  const out = h("div", {});
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const g = await api("/api/games", { method: "POST", body: { key: key.value, name: name.value, kif: kif.value } });
      out.replaceChildren(h("p", { class: "ok" }, `Stored ${g.key} v${g.version}; roles ${g.roles.join(", ")}`));
      setTimeout(route, 800);
    } catch (err) {
      out.replaceChildren(h("p", { class: "err" }, err.message), h("div", { class: "problems" }, err.problems.join("\n")));
    }
  } }, h("h3", {}, "Add a game (KIF)"), h("label", {}, "key ", key), h("label", {}, "name ", name),
    h("label", {}, "rules", h("br"), kif), h("button", { type: "submit" }, "Validate and add"), out);
  main.replaceChildren(h("h2", {}, "Games"),
    table(["key", "name", "version", "roles"], games.map((g) => [link("#/game/" + encodeURIComponent(g.key), g.key), g.name, g.version, g.roles.join(", ")])),
    form);
}

async function gamePage(key) {
  const g = await api("/api/games/" + encodeURIComponent(key));
  main.replaceChildren(h("h2", {}, g.name, " (", g.key, " v", g.version, ")"), h("p", {}, "Roles: ", g.roles.join(", ")),
    h("p", {}, link("#/matches?game=" + encodeURIComponent(g.key), "matches of this game")),
    h("pre", { class: "fluents" }, g.kif));
}

async function playersPage() {
  const response = await fetch("/api/players");
  const players = await response.json();
  const types = (response.headers.get("X-Builtin-Types") || "random").split(",");
  const name = h("input", { name: "name", required: true });
  const url = h("input", { name: "url", placeholder: "http://127.0.0.1:9147/" });
  const builtin = h("select", { name: "builtin" }, h("option", { value: "" }, "(remote URL)"), types.map((t) => h("option", { value: t }, t)));
  const out = h("div", {});
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const body = builtin.value ? { name: name.value, builtin: builtin.value } : { name: name.value, url: url.value };
    try { await api("/api/players", { method: "POST", body }); route(); } catch (err) { out.replaceChildren(h("p", { class: "err" }, err.message)); }
  } }, h("h3", {}, "Register a player"), h("label", {}, "name ", name), h("label", {}, "built-in type ", builtin),
    h("label", {}, "or remote URL ", url), h("button", { type: "submit" }, "Register"), out);
  main.replaceChildren(h("h2", {}, "Players"),
    table(["name", "kind", "url / type", "Elo", "status", "INFO"], players.map((p) => [
      link("#/matches?player=" + encodeURIComponent(p.name), p.name), p.kind, p.url || p.builtin || "", p.elo,
      p.suspended ? h("span", {}, h("span", { class: "err" }, `suspended (${p.failStreak} failures) `),
        h("button", { onclick: async () => { try { await api(`/api/players/${encodeURIComponent(p.name)}/unsuspend`, { method: "POST" }); route(); } catch (err) { alert(err.message); } } }, "unsuspend"))
        : p.failStreak ? `${p.failStreak} failed in a row` : "ok",
      h("button", { onclick: async (e) => {
        const cell = e.target.parentNode;
        try { const r = await api(`/api/players/${encodeURIComponent(p.name)}/ping`); cell.replaceChildren(r.status + (r.name ? ` (${r.name})` : "")); }
        catch (err) { cell.replaceChildren(h("span", { class: "err" }, err.message)); }
      } }, "ping")])),
    form);
}

async function newPage() {
  const [games, players] = await Promise.all([api("/api/games"), api("/api/players")]);
  const playerOptions = () => players.filter((p) => !p.suspended).map((p) => h("option", { value: p.name }, p.name));
  const game = h("select", { name: "game" }, games.map((g) => h("option", { value: g.key }, `${g.name} (${g.roles.length} roles)`)));
  const seats = h("div", {});
  const drawSeats = () => {
    const g = games.find((x) => x.key === game.value);
    seats.replaceChildren(...(g ? g.roles : []).map((role) => h("label", {}, role, " ", h("select", { "data-role": role }, playerOptions()))));
  };
  game.addEventListener("change", drawSeats);
  drawSeats();
  const start = h("input", { type: "number", min: 1, value: 10 }), play = h("input", { type: "number", min: 1, value: 5 });
  const seed = h("input", { type: "number", min: 0, placeholder: "random" });
  const out = h("div", {});
  const matchForm = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const body = { game: game.value, players: [...seats.querySelectorAll("select")].map((s) => s.value),
      startclock: +start.value, playclock: +play.value };
    if (seed.value !== "") body.seed = +seed.value;
    try { const r = await api("/api/matches", { method: "POST", body }); location.hash = "#/match/" + encodeURIComponent(r.matchId); }
    catch (err) { out.replaceChildren(h("p", { class: "err" }, err.message)); }
  } }, h("h3", {}, "Start a match"), h("label", {}, "game ", game), seats, h("label", {}, "start clock (s) ", start),
    h("label", {}, "play clock (s) ", play), h("label", {}, "seed ", seed), h("button", { type: "submit" }, "Start"), out);

  const tGame = h("select", {}, games.map((g) => h("option", { value: g.key }, g.name)));
  const tPlayers = h("select", { multiple: true, size: 6 }, playerOptions());
  const perPairing = h("input", { type: "number", min: 1, value: 2 });
  const tStart = h("input", { type: "number", min: 1, value: 10 }), tPlay = h("input", { type: "number", min: 1, value: 5 });
  const tOut = h("div", {});
  const tournamentForm = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const body = { game: tGame.value, players: [...tPlayers.selectedOptions].map((o) => o.value),
      matches_per_pairing: +perPairing.value, startclock: +tStart.value, playclock: +tPlay.value };
    try { const r = await api("/api/tournaments", { method: "POST", body }); location.hash = "#/tournament/" + r.id; }
    catch (err) { tOut.replaceChildren(h("p", { class: "err" }, err.message)); }
  } }, h("h3", {}, "Start a round-robin tournament"), h("label", {}, "game ", tGame), h("label", {}, "players ", tPlayers),
    h("label", {}, "matches per pairing ", perPairing), h("label", {}, "start clock (s) ", tStart),
    h("label", {}, "play clock (s) ", tPlay), h("button", { type: "submit" }, "Start tournament"), tOut);
  main.replaceChildren(h("h2", {}, "New"), matchForm, " ", tournamentForm);
}

async function tournamentPage(id) {
  const t = await api("/api/tournaments/" + encodeURIComponent(id));
  main.replaceChildren(h("h2", {}, "Tournament ", t.name), h("p", {}, `Game ${t.game} · ${t.status} · ${t.matches.length} of ${t.config.scheduled} matches`),
    h("h3", {}, "Standings"), table(["player", "matches", "wins", "mean goal"], t.standings.map((s) => [s.player, s.matches, s.wins, s.mean])),
    h("h3", {}, "Matches"), matchRows(t.matches));
  if (t.status === "running") { const timer = setTimeout(route, 2000); cleanup.push(() => clearTimeout(timer)); }
}

// ---------------------------------------------------------------------------------------- routing

async function route() {
  for (const close of cleanup) close();
  cleanup = [];
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 0) await dashboard();
    else if (parts[0] === "matches") await matchesPage();
    else if (parts[0] === "match" && parts[1]) await matchPage(parts[1]);
    else if (parts[0] === "games") await gamesPage();
    else if (parts[0] === "game" && parts[1]) await gamePage(parts[1]);
    else if (parts[0] === "players") await playersPage();
    else if (parts[0] === "new") await newPage();
    else if (parts[0] === "tournament" && parts[1]) await tournamentPage(parts[1]);
    else main.replaceChildren(h("p", {}, "No such page."));
  } catch (err) {
    main.replaceChildren(h("p", { class: "err" }, "Error: ", err.message));
  }
}

window.addEventListener("hashchange", route);
route();
