// Overview: the verification figures of the environment shown (GET
// /api/v1/verification/stats), the share of results, and the last 30
// days of results (GET /api/v1/verification/daily) as an SVG chart with
// its figures in a table.
import { api, session } from "./api.js";
import { h, table } from "./dom.js";

export async function view() {
  const [s, daily] = await Promise.all([api("GET", "/verification/stats"), api("GET", "/verification/daily?days=30")]);
  const where = session.env === "test" ? "Sandbox" : "Live";
  const card = (id, label, value, note) => h("section", { class: "card", "aria-labelledby": id },
    h("h2", { id, class: "muted" }, label), h("p", { class: "big", id: id + "-value" }, value), note && h("p", { class: "muted" }, note));
  const decided = s.verified + s.rejected;
  return [h("h1", { tabindex: "-1" }, `Overview · ${where}`),
    h("div", { class: "stats", id: "stats" },
      card("stat-total", "Customers", String(s.total)),
      card("stat-pending", "Pending", String(s.pending - s.inProgress), "No agent has started yet."),
      card("stat-progress", "In progress", String(s.inProgress)),
      card("stat-verified", "Verified", String(s.verified)),
      card("stat-rejected", "Rejected", String(s.rejected)),
      card("stat-turnaround", "Average turnaround", duration(s.averageTurnaroundSeconds), "From creation to a final result.")),
    h("section", { class: "card", "aria-labelledby": "results-title" }, h("h2", { id: "results-title" }, "Results so far"),
      decided ? [h("div", { class: "bar", role: "img", "aria-label": `${pct(s.verified, decided)} verified, ${pct(s.rejected, decided)} rejected` },
        width(h("span", {}), pct(s.verified, decided))),
      h("p", {}, `${s.verified} verified and ${s.rejected} rejected of ${decided} decided.`)] : h("p", { class: "muted" }, "No customer has a final result yet.")),
    h("section", { class: "card", "aria-labelledby": "daily-title" }, h("h2", { id: "daily-title" }, "Results, last 30 days"), chart(daily.days))];
}

// chart stacks each day's verified (blue) under its rejected (red); the
// chart is one focusable image with a summary for screen readers, each
// bar names its day on hover, and the table under it has every figure.
function chart(days) {
  const W = 600, H = 160, bw = W / days.length;
  const max = Math.max(1, ...days.map((d) => d.verified + d.rejected));
  const ns = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, ...kids) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    e.append(...kids);
    return e;
  };
  const verified = days.reduce((n, d) => n + d.verified, 0), rejected = days.reduce((n, d) => n + d.rejected, 0);
  const bars = days.flatMap((d, i) => {
    const hv = Math.round((d.verified / max) * H), hr = Math.round((d.rejected / max) * H);
    const tip = `${d.date}: ${d.verified} verified, ${d.rejected} rejected`;
    return [el("rect", { x: i * bw + 1, y: H - hv, width: bw - 2, height: hv, fill: "#0b5394" }, el("title", {}, tip)),
      el("rect", { x: i * bw + 1, y: H - hv - hr, width: bw - 2, height: hr, fill: "#a40000" }, el("title", {}, tip))];
  });
  const svg = el("svg", { viewBox: `0 0 ${W} ${H + 20}`, class: "chart", role: "img", tabindex: "0", id: "daily-chart",
    "aria-label": `Last 30 days: ${verified} verified and ${rejected} rejected; at most ${max === 1 && verified + rejected === 0 ? 0 : max} in a day` },
  ...bars, el("line", { x1: 0, y1: H, x2: W, y2: H, stroke: "#6b7280" }),
  el("text", { x: 0, y: H + 16, "font-size": 12, fill: "#4b5563" }, days[0].date),
  el("text", { x: W, y: H + 16, "font-size": 12, fill: "#4b5563", "text-anchor": "end" }, "today"));
  return [svg, h("p", { class: "muted" }, "Blue: verified. Red: rejected. By the day the result was reached (UTC)."),
    h("details", {}, h("summary", {}, "Every day's figures"),
      table("Results per day", ["Day", "Verified", "Rejected"], days.map((d) => ({ cells: [d.date, String(d.verified), String(d.rejected)] }))))];
}

// width sets a bar's length through the CSSOM (the page's CSP refuses
// style attributes).
function width(el, w) {
  el.style.width = w;
  return el;
}

const pct = (n, of) => `${Math.round((n / of) * 100)}%`;

// duration is a turnaround in words: "2 d 4 h", "35 min", "12 s".
export function duration(secs) {
  if (secs == null) return "—";
  if (secs < 60) return `${Math.round(secs)} s`;
  if (secs < 3600) return `${Math.round(secs / 60)} min`;
  if (secs < 86400) return `${Math.floor(secs / 3600)} h ${Math.round((secs % 3600) / 60)} min`;
  return `${Math.floor(secs / 86400)} d ${Math.round((secs % 86400) / 3600)} h`;
}
