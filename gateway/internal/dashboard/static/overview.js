// Overview: the verification figures of the environment shown (GET
// /api/v1/verification/stats), with the share of results as a bar a
// screen reader reads as text.
import { api, session } from "./api.js";
import { h } from "./dom.js";

export async function view() {
  const s = await api("GET", "/verification/stats");
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
      h("p", {}, `${s.verified} verified and ${s.rejected} rejected of ${decided} decided.`)] : h("p", { class: "muted" }, "No customer has a final result yet."))];
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
