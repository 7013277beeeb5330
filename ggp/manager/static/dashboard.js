// GGP manager web UI: the dashboard (running and recent matches, standings, tournaments) and a
// tournament's page.
"use strict";

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
      stat("registered players", players.length, "#/players"), stat("tournaments", tournaments.length, null)),
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
          h("a", { href: "#/tournament/" + t.id, class: "id" }, String(t.id)), t.name, t.game, statusBadge(t.status)]), { id: "tournaments", class: "list" })
          : empty("None."),
          h("p", {}, link("#/new", "Start a match or a tournament…"))))));
  if (!staticView()) reloadOnMatchEvents(ctx, null);
}

// Reload the page a moment after a match starts or ends (the dashboard feed), and every `everyMs` anyway.
function reloadOnMatchEvents(ctx, everyMs) {
  const feed = new EventSource("/api/events");
  let timer = everyMs ? setTimeout(route, everyMs) : null;
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
  if (t.status === "running" && !staticView()) reloadOnMatchEvents(ctx, 5000);  // a match starts or ends
}
