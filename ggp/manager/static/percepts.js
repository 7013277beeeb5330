// GDL-II match records: what each role knew at a step (its own moves and percepts), beside the true state.
// perceptViews is pure (node tests load this file alone); withPerceptViews builds the DOM with app.js's h().
"use strict";

// For a record with "x-percepts", one entry per role except the chance role "random":
// {role, player, steps: [{step, move, percepts}]} for steps 1..step (the role's own move into that
// step and what it saw after it). An empty list for GDL records.
function perceptViews(record, step) {
  const percepts = record["x-percepts"];
  if (!record["x-gdl2"] || !Array.isArray(percepts)) return [];
  const roles = record["x-roles"] || [];
  const views = [];
  roles.forEach((role, i) => {
    if (role === "random") return;
    const steps = [];
    for (let s = 1; s <= Math.min(step, percepts.length); s++) {
      steps.push({ step: s, move: (record.moves[s - 1] || [])[i] || "", percepts: (percepts[s - 1] || [])[i] || [] });
    }
    views.push({ role, player: (record.playerNamesFromHost || [])[i] || "", steps });
  });
  return views;
}

// The state node unchanged for GDL records; for GDL-II ones, the state beside one card per role.
function withPerceptViews(stateNode, record, step) {
  const views = perceptViews(record, step);
  if (!views.length) return stateNode;
  const cards = views.map((view) => h("div", { class: "role-view" },
    h("h3", {}, `${view.role} (${view.player}) knows`),
    view.steps.length === 0 ? h("p", { class: "muted" }, "only the rules and the initial state")
      : h("ol", { class: "percepts" }, view.steps.map((s) => h("li", { value: s.step },
        h("span", { class: "mono" }, s.move), " → ",
        s.percepts.length ? h("span", { class: "mono" }, s.percepts.join("  ")) : h("span", { class: "muted" }, "saw nothing"))))));
  return h("div", { class: "gdl2" }, h("div", { class: "true-state" }, h("h3", {}, "true state"), stateNode),
    h("div", { class: "role-views" }, cards));
}

if (typeof module !== "undefined") module.exports = { perceptViews };
