// The task list: today's visits, due re-visits first, with what the phone
// has done on each and notices of actions the platform refused.
import { t } from "./strings.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import { go } from "./shell.js";
import { state, addressLine, when, loadTasks, signOut } from "./state.js";

export function list() {
  const s = store.session(), vs = store.visits();
  const notices = store.notices();
  const sorted = [...state.tasks].sort((a, b) => (a.dueAt ? 0 : 1) - (b.dueAt ? 0 : 1) || (a.dueAt || "").localeCompare(b.dueAt || ""));
  return [
    h("p", { class: "muted" }, t("hello", s.agent?.name || "")),
    notices.length ? h("div", { class: "card", role: "alert" }, notices.map((n) => h("p", { class: "error" }, n)),
      h("button", { type: "button", class: "secondary", onclick: () => { store.clearNotices(); go("list"); } }, "OK")) : null,
    h("h2", {}, t("today")),
    state.listNote && h("p", { class: "muted" }, state.listNote),
    sorted.length ? sorted.map((x) => card(x, vs[x.id])) : h("p", {}, t("noTasks")),
    h("button", { type: "button", class: "secondary", onclick: async () => { await loadTasks(); } }, t("refresh")),
    h("button", { type: "button", class: "secondary", onclick: signOut }, t("signOut")),
  ];
}

// card is one task, v the phone's visit of it (if any).
function card(x, v) {
  return h("section", { class: "card", "aria-label": x.customerName },
    h("strong", {}, x.customerName), h("div", {}, addressLine(x)),
    x.dueAt && h("div", { class: "due" }, t("revisitDue", when(x.dueAt))),
    x.attempts?.length > 0 && h("div", { class: "muted" }, t("attempts", x.attempts.length)),
    v?.done ? h("div", { class: "done" }, t("completedLocal", t("short_" + v.done))) :
      (v?.checkIn || x.status === "IN_PROGRESS") && h("div", { class: "muted" }, t("inProgress")),
    !v?.done && h("button", { type: "button", onclick: () => go("task", x.id) }, t("open")));
}
