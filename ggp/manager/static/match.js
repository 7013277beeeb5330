// GGP manager web UI: a match as a spectator sees it (#/match/<id>): the state on its board, the moves,
// step controls, and the live event stream while it runs.
"use strict";

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

// The step controls: first, back, next, last (then follow the live match), a slider and the step text.
// `go(step, live)` shows a step; `at()` is the step shown, `last()` the last one.
function stepControls(go, at, last) {
  const slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "step", oninput: () => go(+slider.value, false) });
  const stepInfo = h("span", { class: "stepinfo", id: "stepinfo" });
  const controls = h("div", { class: "controls" },
    h("button", { "aria-label": "first step", title: "first step (Home)", onclick: () => go(0, false) }, "« first"),
    h("button", { "aria-label": "previous step", title: "previous step (←)", onclick: () => go(at() - 1, false) }, "‹ back"),
    h("button", { "aria-label": "next step", title: "next step (→)", onclick: () => go(at() + 1, false) }, "next ›"),
    h("button", { "aria-label": "last step", title: "last step, then follow the match (End)", onclick: () => go(last(), true) }, "last »"),
    slider, stepInfo);
  return { controls, slider, stepInfo };
}

// Arrow keys, Home and End step through the match while this page is shown.
function stepKeys(ctx, go, at, last, ready) {
  const onKey = (e) => {
    if (!ready() || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
    if (e.key === "ArrowLeft") go(at() - 1, false);
    else if (e.key === "ArrowRight") go(at() + 1, false);
    else if (e.key === "Home") go(0, false);
    else if (e.key === "End") go(last(), true);
  };
  document.addEventListener("keydown", onKey);
  ctx.closers.push(() => document.removeEventListener("keydown", onKey));
}

// The banner of a finished match: each role's goal, who won and, when the server can tell, why the game
// ended (x-endWhy: "white's P reached 2 4"); an aborted match's reason. `null` while it runs.
function matchResult(record) {
  const status = matchStatus(record);
  const goals = record.goalValues;
  if (status === "completed" && goals) {
    const top = Math.max(...goals);
    const winners = record["x-roles"].filter((_, i) => goals[i] === top);
    const why = record["x-endWhy"];
    return h("div", { class: "result", id: "result" }, h("strong", {}, "Result: "),
      record["x-roles"].map((role, i) => h("span", { class: "goal" + (goals[i] === top ? " top" : "") },
        `${role} (${record.playerNamesFromHost[i]}) ${goals[i]}`)),
      why ? h("span", { class: "why", id: "end-why" }, why[0].toUpperCase() + why.slice(1) + ".") : "",
      h("span", { class: "verdict" }, winners.length === goals.length ? "draw" : winners.join(" and ") + " won"));
  }
  if (status === "aborted") {
    return h("div", { class: "result aborted", id: "result" }, h("strong", {}, "Aborted"),
      record["x-abortDetail"] ? " — " + record["x-abortDetail"] : "", record["x-endReason"] ? ` (${record["x-endReason"]})` : "");
  }
  return null;
}

// The line under the title: game, players, clocks, seed, status, export link and, while the match
// runs, the abort button (hidden from a visitor without the admin token: matchPage).
function matchMeta(record, id, abortButton) {
  const status = matchStatus(record);
  return h("p", { class: "meta" },
    "Game ", link("#/game/" + encodeURIComponent(record["x-gameKey"]), record["x-gameKey"]),
    ` · ${record.playerNamesFromHost.join(" vs ")} · clocks ${record.startClock}/${record.playClock} s · seed ${record["x-seed"]} · `,
    statusBadge(status), " · ",
    h("a", { href: "/api/matches/" + encodeURIComponent(id) + "?download=1" }, "export JSON"), " ",
    status === "running" ? abortButton : null);
}

// What each player reported choosing for the match by itself in its reply to START (x-configurations: the
// default mcts's self-configuration), one line per role that reported one; null when none did.
function matchConfigurations(record) {
  const lines = record["x-configurations"] || [];
  const rows = record["x-roles"].map((role, i) => [role, record.playerNamesFromHost[i], lines[i] || ""]).filter((row) => row[2]);
  if (!rows.length) return null;
  return h("div", { class: "configurations muted", id: "configurations" }, h("strong", {}, "Self-configuration: "),
    rows.map(([role, name, line]) => h("div", {}, `${role} (${name}): `, h("span", { class: "mono" }, line))));
}

// One step: its state (on the board), each role's move into it and error.
function stepView(record, shown) {
  const errors = record.errors[shown] || [];
  const move = shown > 0 ? record.moves[shown - 1] : null;
  return [withPerceptViews(renderState(record.states[shown], record["x-board"], record["x-gameKey"]), record, shown),
    table(["role", "player", shown > 0 ? `move into step ${shown}` : "move", "error"], record["x-roles"].map((role, i) => [
      role, record.playerNamesFromHost[i], move ? h("span", { class: "mono" }, move[i]) : "—",
      errors[i] ? h("span", { class: "err" }, errors[i]) : ""]), { class: "moves" })];
}

// The live event stream of a match (snapshot, start, step, end); `?static=1` in the address reads the
// record once instead (GET /api/matches/<id>), so a headless browser's screenshot sees a finished page.
function followMatch(ctx, id, on) {
  const path = "/api/matches/" + encodeURIComponent(id);
  if (staticView()) {
    api(path + "?view=1").then(on.load, () => on.unknown());
    return;
  }
  const events = new EventSource(path + "/events");
  ctx.closers.push(() => events.close());
  events.addEventListener("snapshot", (e) => on.load(JSON.parse(e.data)));
  events.addEventListener("start", (e) => on.start(JSON.parse(e.data)));
  events.addEventListener("step", (e) => on.step(JSON.parse(e.data)));
  events.addEventListener("end", (e) => { events.close(); on.load(JSON.parse(e.data)); });
  // Before any data arrived an error means an unknown match; later ones are dropped connections,
  // which EventSource retries by itself (the server then sends a fresh snapshot).
  events.onerror = () => { if (on.unknown()) events.close(); };
}

function matchPage(ctx, id) {
  let record = null, shown = 0, follow = true;
  const view = h("div", { class: "match-view" });
  const header = h("div", { class: "match-header" });
  const history = h("ol", { class: "history", start: 0 });
  const go = (step, live) => { follow = live; show(step); };
  const at = () => shown, last = () => record.states.length - 1;
  const { controls, slider, stepInfo } = stepControls(go, at, last);
  const abortButton = h("button", { class: "danger", onclick: async () => {
    try { await api("/api/matches/" + encodeURIComponent(id) + "/abort", { method: "POST" }); } catch (e) { abortButton.after(errorBox(e)); }
  } }, "Abort match");
  const connecting = h("p", { class: "muted" }, "Connecting…");
  ctx.view.append(h("h1", {}, "Match ", h("span", { class: "mono id" }, id)), header,
    h("div", { class: "match-body" }, h("div", { class: "panel" }, controls, view), h("div", { class: "panel side" }, h("h2", {}, "Moves"), history)),
    connecting);
  stepKeys(ctx, go, at, last, () => record !== null);
  // Shown only to whoever can use it; toggled in place, as typing the token and then clicking the button
  // must find the button where it was.
  const onToken = () => { abortButton.hidden = !canAdmin(); };
  onToken();
  tokenInput.addEventListener("input", onToken);
  tokenInput.addEventListener("change", onToken);
  ctx.closers.push(() => { tokenInput.removeEventListener("input", onToken); tokenInput.removeEventListener("change", onToken); });

  function show(step) {
    if (!record) return;
    shown = Math.max(0, Math.min(step, last()));
    slider.max = last();
    slider.value = shown;
    stepInfo.textContent = `step ${shown} of ${last()}` + (follow && matchStatus(record) === "running" ? " · following live" : "");
    view.replaceChildren(...stepView(record, shown));
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
    header.replaceChildren(matchMeta(record, id, abortButton),
      record["x-sealed"] ? h("p", { class: "muted", id: "sealed" }, "A person plays this GDL-II match: its states, moves and percepts are hidden until it ends.") : "",
      matchResult(record) || "", matchConfigurations(record) || "");
  }

  function load(data) {
    record = data;
    connecting.remove();
    drawHeader(); drawHistory(); show(follow ? last() : shown);
  }

  followMatch(ctx, id, {
    load,
    start: (data) => {
      record.errors[0] = data.errors;
      if (data.configurations) { record["x-configurations"] = data.configurations; drawHeader(); }
      show(shown);
    },
    step: (s) => {
      record.states[s.step] = s.state; record.moves[s.step - 1] = s.moves; record.errors[s.step] = s.errors;
      record.stateTimes[s.step] = s.time;
      if (s.percepts) (record["x-percepts"] = record["x-percepts"] || [])[s.step - 1] = s.percepts;
      drawHistory();
      show(follow ? s.step : shown);
    },
    unknown: () => {
      if (record) return false;
      ctx.view.replaceChildren(h("h1", {}, "Match ", id), errorBox("Unknown match " + id));
      return true;
    },
  });
}
