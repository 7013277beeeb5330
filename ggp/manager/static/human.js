// A person's move by clicks on the board: which legal moves the clicked cells select.
// No DOM here (node tests load this file alone); the play page in app.js draws and sends.
// A cell is named by its board attribute data-cell="X Y" (the GDL coordinate symbols). A legal
// move selects the cells named by consecutive argument pairs that are board cells, in order:
// (mark 1 1) selects "1 1" (one click), (move 0 1 0 2) selects "0 1" then "0 2" (from-square,
// to-square). A move with no such pair but one argument that is a column, like (drop 3),
// selects any cell of that column.
"use strict";

function moveWords(text) {
  const tokens = text.match(/\(|\)|[^\s()]+/g) || [];
  return tokens.filter((t) => t !== "(" && t !== ")").slice(tokens[0] === "(" ? 1 : tokens.length);
}

// The cells a move names, as "X Y" keys, or ["X *"] for a whole column; [] when none.
function moveCells(move, cells) {
  const args = moveWords(move);
  const found = [];
  for (let i = 0; i + 1 < args.length; i++) {
    const key = args[i] + " " + args[i + 1];
    if (cells.has(key)) { found.push(key); i++; }
  }
  if (found.length || args.length !== 1) return found;
  const column = [...cells].some((cell) => cell.split(" ")[0] === args[0]);
  return column ? [args[0] + " *"] : [];
}

function sameCell(pattern, cell) {
  return pattern === cell || (pattern.endsWith(" *") && cell.split(" ")[0] === pattern.slice(0, -2));
}

function startsWith(named, picked) {
  return picked.length <= named.length && picked.every((cell, i) => sameCell(named[i], cell));
}

// What a click on `cell` does, given the cells picked so far: {picked, candidates, chosen}.
// candidates: the legal moves still possible; chosen: the moves the picked cells name exactly
// (one: ready to confirm; several: the person picks one from the list). A click that fits no
// legal move starts a new selection at that cell, or is ignored (picked unchanged, no candidates).
function clickCell(legal, picked, cell, cells) {
  const named = new Map(legal.map((move) => [move, moveCells(move, cells)]));
  const fitting = (cellsPicked) => legal.filter((move) => startsWith(named.get(move), cellsPicked));
  let next = [...picked, cell];
  let candidates = fitting(next);
  if (!candidates.length && picked.length) { next = [cell]; candidates = fitting(next); }
  if (!candidates.length) return { picked, candidates: [], chosen: [] };
  const chosen = candidates.filter((move) => named.get(move).length === next.length);
  return { picked: next, candidates, chosen };
}

// The cells a next click could pick (to highlight them), given the candidates and the picked cells.
function nextCells(candidates, picked, cells) {
  const out = new Set();
  for (const move of candidates) {
    const named = moveCells(move, cells);
    if (named.length <= picked.length) continue;
    for (const cell of cells) if (sameCell(named[picked.length], cell)) out.add(cell);
  }
  return out;
}

if (typeof module !== "undefined") module.exports = { moveCells, clickCell, nextCells };
