// GGP manager web UI: routing. The page's scripts (index.html) load the helpers (ui.js) and each page
// kind first; this one maps the address's #/... to a page and swaps it in.
"use strict";

// Each page gets a context {view, closers}: it fills ctx.view (shown once the page function
// returns) and registers in ctx.closers whatever must stop when the user leaves (event streams,
// timers). A page that finishes loading after the user moved on is thrown away.

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
