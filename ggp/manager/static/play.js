// GGP manager web UI: a person at the board (#/play/<match>/<role>) and the dashboard's one-click game.
"use strict";

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

// The seat's secret: from a link carrying it (kept in this tab, and taken out of the address bar), else
// the one this tab keeps. Returns the headers that authorise the seat's requests.
function seatHeaders(id, role) {
  const given = new URLSearchParams(location.hash.split("?")[1] || "").get("key");
  if (given) {
    sessionStorage.setItem(seatKey(id, role), given);
    history.replaceState(null, "", playHref(id, role));
  }
  return { "X-Seat-Secret": sessionStorage.getItem(seatKey(id, role)) || "" };
}

// GDL-II: what this role knows (its own moves and percepts), drawn where the board would be.
function roleKnowledge(view, role) {
  const own = (row) => (row.length === 1 ? row[0] : row[view.roles.indexOf(role)]);
  return h("div", { class: "role-view" }, h("h3", {}, `what you (${role}) know`),
    view.moves.length ? h("ol", { class: "percepts" }, view.moves.map((row, i) => h("li", {},
      h("span", { class: "mono" }, own(row)), " → ",
      (view.percepts[i] || []).length ? h("span", { class: "mono" }, view.percepts[i].join("  ")) : h("span", { class: "muted" }, "saw nothing"))))
      : h("p", { class: "muted" }, "only the rules and the initial state"));
}

// The moves so far, one item per step, this role's own move in bold and a timeout's random move said.
function personMoves(view, role) {
  return view.moves.map((row, i) => {
    const errors = view.errors[i] || [];
    const hidden = row.length === 1 && view.roles.length > 1;
    return h("li", {}, (hidden ? [[role, row[0], errors[0]]] : view.roles.map((r, j) => [r, row[j], errors[j]])).map(([r, move, code]) =>
      h("span", { class: "joint" + (r === role ? " mine" : "") }, `${r}: `, h("span", { class: "mono" }, move),
        code ? h("span", { class: "err" }, ` (${code}${code === "TO" ? ": random move played" : ""})`) : null, " ")));
  });
}

// The line under the title: game, players, clock, the spectator view, and the other people's seats this
// tab holds (hot seat) as links that carry their secret, for another tab too.
function seatMeta(view, id, role) {
  const players = view.roles.map((r, i) => `${r} (${view.players[i]})`).join(" vs ");
  const others = view.roles.filter((r) => r !== role && sessionStorage.getItem(seatKey(id, r)));
  return ["Game ", link("#/game/" + encodeURIComponent(view.game), view.game), ` · ${players} · you play ${role} · `,
    `play clock ${view.playClock} s · `, link("#/match/" + encodeURIComponent(id), "spectator view"),
    ...(others.length ? [h("span", { id: "other-seats" }, " · also yours: ", others.flatMap((r) =>
      [h("a", { href: playHref(id, r) + "?key=" + encodeURIComponent(sessionStorage.getItem(seatKey(id, r))) }, r), " "]))] : [])];
}

// A finished match from the person's side: won, lost or draw, why it ended, the goals, Play again.
function personResult(view, role, playAgain) {
  if (!view.completed || !view.goals) {
    return h("div", { class: "result aborted", id: "result" }, h("strong", {}, "Aborted"),
      view.abortDetail ? " — " + view.abortDetail : "", view.endReason ? ` (${view.endReason})` : "");
  }
  const mine = view.goals[view.roles.indexOf(role)];
  const best = Math.max(...view.goals.filter((_, i) => view.roles[i] !== "random"));
  const alone = view.goals.filter((g, i) => view.roles[i] !== "random" && g === best).length === 1;
  const outcome = mine === best ? (alone ? "won" : "draw") : "lost";
  const verdict = { won: "You won", draw: "Draw", lost: "You lost" }[outcome];
  return h("div", { class: "result " + outcome, id: "result" }, h("strong", {}, verdict + ". "),
    view.endWhy ? h("span", { class: "why", id: "end-why" }, view.endWhy[0].toUpperCase() + view.endWhy.slice(1) + ".") : "",
    view.roles.map((r, i) => h("span", { class: "goal" + (r === role ? " top" : "") }, `${r} ${view.goals[i]}`)),
    h("button", { type: "button", id: "play-again", onclick: playAgain }, "Play again"));
}

// The same game against the same players, the person in the same role, the same play clock.
async function playAgain(view) {
  const r = await api("/api/matches", { method: "POST", body: { game: view.game,
    players: view.roles.filter((r) => r !== "random").map((r) => view.players[view.roles.indexOf(r)]),
    startclock: 10, playclock: view.playClock } });
  openSeats(r.matchId, r.humanSeats);
}

// What the person has picked so far, and what to do next (confirm, undo, click on, pick below).
function choicePrompt(pending, picked, confirm, undo) {
  if (pending) {
    return [h("span", {}, "Your move: "), h("strong", { class: "mono", id: "pending" }, pending), " ",
      h("button", { type: "submit", id: "confirm", onclick: confirm }, "Confirm"), " ", undo];
  }
  if (picked.length) return [h("span", {}, "Picked ", h("span", { class: "mono" }, picked.join(" → ")), ": click where to go, or pick below. "), undo];
  return [h("span", { class: "muted" }, "Click on the board, or pick one of the legal moves below; then confirm.")];
}

// The legal moves the picked cells leave (all of them before a click), one button each.
function legalButtons(view, shown, pending, onPick) {
  return [h("h2", {}, `Legal moves (${shown.length} of ${view.legal.length})`),
    h("div", { class: "legal-moves" }, shown.map((move) => h("button", { class: "move mono" + (move === pending ? " chosen" : ""),
      "data-move": move, onclick: () => onPick(move) }, move)))];
}

// Long-poll the seat's view (?since=version) until the match ends or the page is left; a 403/404 means
// this tab cannot play the seat.
async function pollSeat(path, headers, stop, alive, update, fail) {
  let since = null;
  while (alive()) {
    try {
      const next = await api(path + (since === null ? "" : "?since=" + since), { headers, signal: stop.signal });
      if (!alive()) return;
      since = next.version;
      update(next);
      if (next.finished) return;
    } catch (err) {
      if (!alive()) return;
      if (fail(err)) return;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

// The seat page's parts, appended to `view`: title, meta line, status and clock, board, the choice being
// made, problems, legal moves, and the moves so far beside.
function seatLayout(view, id, role) {
  const parts = {
    meta: h("p", { class: "meta" }), status: h("div", { class: "play-status", id: "play-status" }),
    clock: h("span", { class: "clock", id: "clock" }), board: h("div", { class: "play-board", id: "play-board" }),
    choice: h("div", { class: "choice", id: "choice" }), legalList: h("div", { class: "legal", id: "legal" }),
    moves: h("ol", { class: "history", id: "play-history", start: 1 }), problem: h("p", { class: "err", id: "play-error" }),
  };
  view.append(h("h1", {}, "Playing ", h("span", { class: "mono" }, role), " in ", h("span", { class: "mono id" }, id)), parts.meta,
    h("div", { class: "match-body" },
      h("div", { class: "panel" }, h("div", { class: "play-bar" }, parts.status, parts.clock), parts.board, parts.choice,
        parts.problem, parts.legalList),
      h("div", { class: "panel side" }, h("h2", {}, "Moves"), parts.moves)));
  return parts;
}

function playPage(ctx, id, role) {
  const headers = seatHeaders(id, role);
  const path = "/api/matches/" + encodeURIComponent(id) + "/human/" + encodeURIComponent(role);
  const stop = new AbortController();
  let view = null, picked = [], candidates = [], pending = null, deadline = 0, alive = true;

  const { meta, status, clock, board, choice, legalList, moves, problem } = seatLayout(ctx.view, id, role);

  const cells = () => new Set([...board.querySelectorAll("[data-cell]")].map((c) => c.dataset.cell));
  const forget = () => { picked = []; candidates = []; pending = null; };

  function drawChoice() {
    const reachable = nextCells(candidates, picked, cells());
    for (const cell of board.querySelectorAll("[data-cell]")) {
      cell.classList.toggle("picked", picked.includes(cell.dataset.cell));
      cell.classList.toggle("target", view.yourTurn && (picked.length ? reachable.has(cell.dataset.cell) : false));
    }
    const undo = h("button", { id: "undo", onclick: () => { forget(); problem.textContent = ""; drawChoice(); } }, "Undo");
    choice.replaceChildren(...(view.yourTurn ? choicePrompt(pending, picked, confirm, undo) : []));
    const onPick = (move) => { pending = move; picked = moveCells(move, cells()); candidates = [move]; drawChoice(); };
    legalList.replaceChildren(...(view.yourTurn ? legalButtons(view, picked.length ? candidates : view.legal, pending, onPick) : []));
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
      view.yourTurn = false; forget(); problem.textContent = "";
      status.textContent = "Move sent; waiting for the other players…"; deadline = 0; drawChoice();
    } catch (err) { problem.textContent = err.message; }
  }

  function drawStatus() {
    meta.replaceChildren(...seatMeta(view, id, role));
    if (view.finished) {
      clock.textContent = "";
      status.replaceChildren(personResult(view, role, () => playAgain(view).catch((err) => { problem.textContent = err.message; })));
    } else status.replaceChildren(h("strong", {}, view.yourTurn ? "Your move" : "Waiting for the other players…"));
    deadline = view.yourTurn && view.secondsLeft !== null ? performance.now() + 1000 * view.secondsLeft : 0;
    tick();
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
    if (newTurn) forget();
    board.replaceChildren(view.state ? renderState(view.state, view.board, view.game) : roleKnowledge(view, role));
    moves.replaceChildren(...personMoves(view, role));
    moves.scrollTop = moves.scrollHeight;
    drawStatus(); drawChoice();
  }

  ctx.closers.push(() => { alive = false; stop.abort(); clearInterval(timer); });
  pollSeat(path, headers, stop, () => alive, update, (err) => seatRefused(err, id, problem, view ? null : status));
}

// A failed poll: shown as a problem; a 403/404 (this tab holds no secret for the seat) ends the polling
// and, before anything was shown (`status` given), offers the spectator view instead. True to stop.
function seatRefused(err, id, problem, status) {
  problem.textContent = err.message;
  if (err.status !== 403 && err.status !== 404) return false;
  if (status) status.replaceChildren(h("p", {}, "This tab cannot play this seat. ", link("#/match/" + encodeURIComponent(id), "Watch the match instead.")));
  return true;
}
