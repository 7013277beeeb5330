// Reading ggp.org state strings and finding a board in them (no DOM: node tests load this file alone).
"use strict";

// A state string "( (cell 1 1 x) (control o) )" -> list of fluents, each a list of words or nested lists.
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

// Grid games: the relation with the most 3-argument facts whose first two arguments look like
// coordinates, over every state seen so far (games such as connect four list only filled cells).
const COORD = /^[a-z0-9]{1,2}$/;

function isCellFact(f) {  // (cell x y piece), or SBG's (cell x y owner type)
  return Array.isArray(f) && (f.length === 4 || f.length === 5) && f.slice(1).every((x) => !Array.isArray(x)) && COORD.test(f[1]) && COORD.test(f[2]);
}

class GridTracker {
  constructor() { this.groups = new Map(); }  // relation -> {count, xs:Set, ys:Set}

  add(fluents) {
    for (const f of fluents) {
      if (!isCellFact(f)) continue;
      let g = this.groups.get(f[0]);
      if (!g) this.groups.set(f[0], g = { count: 0, xs: new Set(), ys: new Set() });
      g.count++; g.xs.add(f[1]); g.ys.add(f[2]);
    }
  }

  // {name, xs, ys} for the board relation, or null when the states have no grid.
  layout() {
    let best = null;
    for (const [name, g] of this.groups) if (!best || g.count > best[1].count) best = [name, g];
    if (!best || best[1].count < 3 || best[1].xs.size * best[1].ys.size > 1024 || best[1].xs.size * best[1].ys.size < 2) return null;
    const order = (values) => [...values].sort((a, b) => (isNaN(a) || isNaN(b) ? a.localeCompare(b) : a - b));
    return { name: best[0], xs: order(best[1].xs), ys: order(best[1].ys) };
  }
}

// The cells of one state on a layout: Map "x y" -> piece, and the fluents that are not cells.
function findGrid(fluents, layout) {
  if (!layout) return null;
  const cells = new Map();
  const rest = [];
  for (const f of fluents) {
    if (isCellFact(f) && f[0] === layout.name) cells.set(f[1] + " " + f[2], f.slice(3).join(" "));
    else rest.push(f);
  }
  return { name: layout.name, xs: layout.xs, ys: layout.ys, cells, rest };
}

if (typeof module !== "undefined") module.exports = { parseState, fluentText, findGrid, GridTracker };
