// Drawing a game state on its board. The geometry comes from the server (ggp/manager/boards.py reads it
// from the rules), so a board has its full size from the first state. Public API:
//
//   parseState(text)          "( (cell 1 1 x) (control o) )" -> fluents, each a list of words (or nested lists)
//   fluentText(fluent)        a fluent back to KIF text
//   placeFluents(geometry, fluents) -> {cells: Map("x y" -> [{fluent, layer, piece, owner, label}]), rest}
//                             which fluents fall on which square; `rest` are the fluents that are not on the board
//   isEmpty(entry)            true for an entry that means "nothing here" ((cell 1 1 b), (blank a board1))
//   drawBoard(element, geometry, fluents, options) -> rest
//                             replaces element's children with <table class="board">; every square is a
//                             <td class="cell" data-cell="X Y"> (data-cell="X" on a 1-D board) holding the GDL
//                             coordinate symbols. Options (all optional):
//                               onCellClick(x, y)        called when a square is clicked (y is null on a 1-D board)
//                               pieceImage(piece, owner) URL of a piece's picture, for boards whose cells hold
//                                                        (owner type); the piece's letter shows at once and
//                                                        the picture replaces it once loaded (never if it fails)
//
// geometry (JSON from GET /api/games/{key} "board", and the match stream's "x-board"):
//   {xs: [column symbols, left to right], ys: [row symbols, top to bottom; [] for a 1-D board],
//    layers: [{relation, arity, x, y, owner, piece}]}  argument positions (y, owner, piece may be null);
//   the first layer is the board's cell relation, later ones are other fluents drawn on the same squares.
//
// No DOM is touched before drawBoard is called, so node tests load this file alone; the DOM is built with
// createElement and textContent only (the page's Content-Security-Policy allows no inline styles or code).
"use strict";

function parseState(text) {
  const tokens = text.match(/\(|\)|[^\s()]+/g) || [];
  let i = 0;
  function item() {
    const token = tokens[i++];
    if (token !== "(") return token;
    const list = [];
    while (i < tokens.length && tokens[i] !== ")") list.push(item());
    i++;
    return list;
  }
  const top = item();
  return Array.isArray(top) ? top : [];
}

function fluentText(f) { return Array.isArray(f) ? "(" + f.map(fluentText).join(" ") + ")" : f; }

// Cell contents that mean "nothing here".
const BLANK = new Set(["b", "blank", "empty", "e", "0", "none"]);

function squareKey(geometry, x, y) { return geometry.ys.length ? x + " " + y : x; }

function placeFluents(geometry, fluents) {
  const cells = new Map();
  const rest = [];
  const xs = new Set(geometry.xs), ys = new Set(geometry.ys);
  for (const f of fluents) {
    const layer = Array.isArray(f) ? geometry.layers.find((l) => f[0] === l.relation && f.length === l.arity + 1) : null;
    const at = (position) => (position === null || position === undefined ? null : f[position + 1]);
    const x = layer && at(layer.x), y = layer && at(layer.y);
    if (!layer || !xs.has(x) || (geometry.ys.length && !ys.has(y))) { rest.push(f); continue; }
    const used = new Set([layer.x, layer.y, layer.owner, layer.piece]);
    const others = f.slice(1).filter((_, i) => !used.has(i)).map(fluentText);
    const piece = layer.piece === null ? null : fluentText(at(layer.piece));
    const entry = { fluent: f, layer, piece, owner: at(layer.owner),
      // A layer without a piece argument (wall x y) shows its relation's name.
      label: piece === null ? [layer.relation, ...others].join(" ") : [piece, ...others].join(" ") };
    const key = squareKey(geometry, x, y);
    if (!cells.has(key)) cells.set(key, []);
    cells.get(key).push(entry);
  }
  return { cells, rest };
}

// An owned piece is never blank (SBG's bishop is (cell x y white b)); a lone content can be, and so can a
// layer named for emptiness ((blank a board1) marks an empty square).
function isEmpty(entry) {
  if (entry.owner !== null) return false;
  return BLANK.has((entry.piece === null ? entry.layer.relation : entry.piece).toLowerCase());
}

// A stable colour class per piece name, so x and o (or wp and bp) look different on any board.
function pieceClass(value) {
  let hash = 0;
  for (const c of value) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return "piece piece-" + (hash % 6);
}

// Pieces named after a colour (connect four's red and black, breakthrough's white) are drawn as discs.
const DISCS = { red: "#d0342c", black: "#23272e", white: "#ffffff", blue: "#2456b8", green: "#1e8a4c",
  yellow: "#f2c200", orange: "#e67e22", brown: "#8b5a2b" };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Chess pieces written as words ((cell e 1 white king)) get their usual letter.
const CHESS_LETTERS = { king: "k", queen: "q", rook: "r", bishop: "b", knight: "n", pawn: "p" };

// An owned piece (SBG's (cell x y white p)): its letter in the owner's colour, white pieces upper case.
function pieceLetter(entry) {
  const name = entry.piece.toLowerCase();
  const short = CHESS_LETTERS[name] || (name.length > 2 ? name[0] : name);
  const letter = entry.owner === "white" ? short.toUpperCase() : short;
  const node = element("span", "piece-letter owner-" + entry.owner, letter);
  node.title = entry.owner + " " + entry.piece;
  return node;
}

// ggp.org chess writes a piece as colour and letter in one word (wk, bp): drawn like an owned piece.
const CHESS_WORD = /^([wb])([kqrbnp])$/;

// Piece pictures by URL: "loaded", "failed", or the letters waiting for it while it loads. A picture can
// take minutes to make on the server (an uploaded game's first request), so the board never waits for one:
// it draws the letter at once and swaps the picture in when it has loaded.
const PICTURES = new Map();
// Pictures not yet asked for, per game, fetched one at a time so a slow game never holds more than one of
// the browser's few connections to the manager (its API calls and event streams share them).
const PICTURE_QUEUES = new Map();

function pictureNode(entry, url) {
  const img = element("img", "piece-img owner-" + entry.owner);
  img.alt = entry.owner + " " + entry.piece;
  img.src = url;
  return img;
}

function settlePicture(url, ok) {
  const waiting = PICTURES.get(url);
  PICTURES.set(url, ok ? "loaded" : "failed");
  if (ok && waiting instanceof Set) {
    for (const { node, entry } of waiting) if (node.isConnected) node.replaceWith(pictureNode(entry, url));
  }
}

function loadNextPicture(queueKey) {
  const queue = PICTURE_QUEUES.get(queueKey);
  if (!queue || queue.busy || !queue.urls.length) return;
  const url = queue.urls.shift();
  queue.busy = true;
  const probe = new Image();
  const done = (ok) => { settlePicture(url, ok); queue.busy = false; loadNextPicture(queueKey); };
  probe.addEventListener("load", () => done(true), { once: true });
  probe.addEventListener("error", () => done(false), { once: true });
  probe.src = url;
}

function pieceNode(entry, options) {
  if (entry.owner !== null && entry.piece !== null) {
    if (!options.pieceImage) return pieceLetter(entry);
    const url = options.pieceImage(entry.piece, entry.owner);
    const known = PICTURES.get(url);
    if (known === "loaded") return pictureNode(entry, url);
    const letter = pieceLetter(entry);
    if (known === "failed") return letter;
    letter.classList.add("picture-pending");
    if (known instanceof Set) {
      known.add({ node: letter, entry });
    } else {
      PICTURES.set(url, new Set([{ node: letter, entry }]));
      const queueKey = url.slice(0, url.lastIndexOf("/"));
      if (!PICTURE_QUEUES.has(queueKey)) PICTURE_QUEUES.set(queueKey, { busy: false, urls: [] });
      PICTURE_QUEUES.get(queueKey).urls.push(url);
      loadNextPicture(queueKey);
    }
    return letter;
  }
  const chess = CHESS_WORD.exec(entry.label);
  if (chess) return pieceLetter({ owner: chess[1] === "w" ? "white" : "black", piece: chess[2] });
  const colour = DISCS[entry.label.toLowerCase()];
  if (colour) {
    const disc = element("span", "disc");
    disc.setAttribute("role", "img");
    disc.setAttribute("aria-label", entry.label);
    disc.style.backgroundColor = colour;  // through the CSSOM: the policy refuses style attributes
    return disc;
  }
  const text = entry.label.length > 3 ? entry.label.slice(0, 3) : entry.label;
  return element("span", pieceClass(entry.label) + (entry.label.length > 2 ? " long" : ""), text);
}

function drawBoard(target, geometry, fluents, options) {
  options = options || {};
  const { cells, rest } = placeFluents(geometry, fluents);
  const rows = geometry.ys.length ? geometry.ys : [null];
  const table = element("table", "board" + (geometry.ys.length ? "" : " line"));
  const head = element("tr");
  head.append(element("th"), ...geometry.xs.map((x) => element("th", null, x)));
  table.append(element("thead"));
  table.tHead.append(head);
  const body = element("tbody");
  rows.forEach((y, yi) => {
    const tr = element("tr");
    tr.append(element("th", null, y === null ? "" : y));
    geometry.xs.forEach((x, xi) => {
      const entries = cells.get(squareKey(geometry, x, y)) || [];
      const shown = entries.filter((e) => !isEmpty(e));
      // The bottom-left square is dark, as a1 is on a chess board.
      const dark = (xi + rows.length - 1 - yi) % 2 === 0;
      const td = element("td", "cell" + (dark ? " dark" : " light") + (shown.length ? " filled" : ""));
      td.dataset.cell = y === null ? x : x + " " + y;
      td.title = entries.length ? entries.map((e) => fluentText(e.fluent)).join(" ") : (y === null ? x : x + " " + y);
      td.append(...shown.map((e) => pieceNode(e, options)));
      if (options.onCellClick) {
        td.classList.add("clickable");
        td.addEventListener("click", () => options.onCellClick(x, y));
      }
      tr.append(td);
    });
    body.append(tr);
  });
  table.append(body);
  target.replaceChildren(table);
  return rest;
}

if (typeof module !== "undefined") module.exports = { parseState, fluentText, placeFluents, isEmpty };
