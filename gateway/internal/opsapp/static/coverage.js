// Coverage: open live work by state and LGA against the active agents
// who can take it. A map of the 37 states, shaded by open work, marks in
// red and with a hatch (not colour alone) the states with open work and no
// agent; choosing a state (click, or Enter/Space on it) opens the queue
// filtered by it. The table lists uncovered areas first, each with
// "Create an agent here".
import { h, heading, table } from "/shared/dom.js";
import { viewBox, states as shapes } from "./nigeria-map.js";

const SVG = "http://www.w3.org/2000/svg";

export const page = {
  id: "coverage",
  title: "Coverage",
  roles: ["dispatcher"],
  async render(main, ctx) {
    const data = await ctx.api("GET", "/coverage");
    const s = data.summary;
    main.append(heading("Coverage"),
      h("p", { id: "coverage-summary" }, `${s.open} open live addresses, ${s.waiting} waiting for an agent, `,
        h("strong", {}, `${s.uncoveredLgas} LGA${s.uncoveredLgas === 1 ? "" : "s"} with work and no agent`), "."),
      h("div", { class: "split" }, mapCard(data.states, ctx), h("div", {}, areaTable(data.states, ctx))));
  },
};

// svg makes an SVG element (createElementNS: no markup is parsed).
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

// shade is a blue from pale (no work) to dark (the most open work).
function shade(open, max) {
  if (!open) return "#eef2f7";
  const t = Math.sqrt(open / max);
  const mix = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${mix(191, 11)},${mix(219, 50)},${mix(254, 110)})`;
}

function words(st) {
  if (st.uncovered) return `${st.name}: ${st.open} open, ${st.waiting} waiting, no agent — uncovered`;
  return `${st.name}: ${st.open} open, ${st.waiting} waiting, ${st.agents} agent${st.agents === 1 ? "" : "s"}`;
}

function mapCard(states, ctx) {
  const byName = new Map(states.map((st) => [st.name, st]));
  const max = Math.max(1, ...states.map((st) => st.open));
  const hatch = svg("pattern", { id: "uncovered-hatch", width: "8", height: "8", patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    svg("rect", { width: "8", height: "8", fill: "#b91c1c" }), svg("line", { x1: "0", y1: "0", x2: "0", y2: "8", stroke: "#fff", "stroke-width": "3" }));
  const map = svg("svg", { viewBox, class: "map", role: "group", "aria-labelledby": "map-title" },
    svg("title", { id: "map-title" }, "Map of Nigeria's states by open live work"), svg("defs", {}, hatch));
  for (const shape of shapes) {
    const st = byName.get(shape.name) || { name: shape.name, open: 0, waiting: 0, agents: 0, uncovered: false };
    const open = () => ctx.go("queue", { state: st.name });
    const path = svg("path", { d: shape.d, id: "state-" + shape.id, "data-state": st.name, tabindex: "0", role: "link",
      "aria-label": words(st) + ". Open the queue for " + st.name,
      fill: st.uncovered ? "url(#uncovered-hatch)" : shade(st.open, max), stroke: st.uncovered ? "#7f1d1d" : "#475569",
      "stroke-width": st.uncovered ? "2" : "0.8", class: st.uncovered ? "state uncovered" : "state" }, svg("title", {}, words(st)));
    path.addEventListener("click", open);
    path.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        open();
      }
    });
    map.append(path);
  }
  return h("section", { class: "card", "aria-labelledby": "map-heading" }, h("h2", { id: "map-heading" }, "Map"), map,
    h("p", { class: "muted legend" }, h("span", { class: "swatch low" }), " little open work ", h("span", { class: "swatch high" }),
      " most open work ", h("span", { class: "swatch none" }), " uncovered: open work and no agent (red, hatched). ",
      "Choose a state to open its queue."));
}

function areaTable(states, ctx) {
  const rows = [];
  for (const st of states.filter((x) => x.open > 0)) {
    rows.push(areaRow(ctx, st, st.name, null));
    for (const l of st.lgas || []) rows.push(areaRow(ctx, l, st.name, l.name));
  }
  if (!rows.length) return h("p", { class: "card" }, "No open live work anywhere.");
  return table("Open live work by state and LGA, areas with no agent first",
    ["Area", "Open", "Waiting", "Agents", "Cover", ""], rows);
}

function areaRow(ctx, a, state, lga) {
  const name = lga ? [h("span", { class: "muted" }, state + " › "), lga] : h("strong", {}, state);
  const cover = a.uncovered ? h("span", { class: "badge uncovered" }, "Uncovered")
    : lga && a.lgaAgents === 0 ? h("span", { class: "muted" }, "by state only") : "Covered";
  const action = a.uncovered
    ? h("button", { type: "button", class: "small", "data-create": lga || state,
      onclick: () => ctx.go("agents", { new: "1", state, lga: lga || "" }) }, "Create an agent here")
    : h("a", { href: "#/queue?" + new URLSearchParams(lga ? { state, lga } : { state }) }, "Open queue");
  return { attrs: { class: a.uncovered ? "uncovered" : undefined, "data-area": lga ? state + "|" + lga : state },
    cells: [name, String(a.open), String(a.waiting), String(a.agents), cover, action] };
}
