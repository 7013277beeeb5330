// GGP manager web UI: the site's list and form pages: the match archive, games, a game, players, and
// the new match / tournament forms.
"use strict";

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
