// The task list: the confirmations of what the agent sent, notices of
// actions the platform refused, and the open tasks in due-time order
// (earliest first, tasks without a due time last), with what the phone
// has done on each.
import { t } from "./strings.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import { go } from "./shell.js";
import { state, addressLine, dueTime, cardLabel, byDue, loadTasks, signOut } from "./state.js";

export function list() {
  const s = store.session(), vs = store.visits();
  const notices = store.notices();
  const sorted = [...state.tasks].sort(byDue);
  return [
    h("p", { class: "muted" }, t("hello", s.agent?.name || "")),
    store.confirmations().map(confirmation),
    notices.length ? h("div", { class: "card", role: "alert" }, notices.map((n) => h("p", { class: "error" }, n)),
      h("button", { type: "button", class: "secondary", onclick: () => { store.clearNotices(); go("list"); } }, "OK")) : null,
    h("h2", {}, t("today")),
    state.listNote && h("p", { class: "muted" }, state.listNote),
    sorted.length ? sorted.map((x) => card(x, vs[x.id])) : h("p", {}, t("noTasks")),
    h("button", { type: "button", class: "secondary", onclick: async () => { await loadTasks(); } }, t("refresh")),
    h("button", { type: "button", class: "secondary", onclick: signOut }, t("signOut")),
  ];
}

// confirmation says a submitted visit is saved or sent; it stays, across
// syncs and reloads, until the agent dismisses it.
function confirmation(c) {
  const what = t("short_" + c.outcome), text = c.sent ? t("sentDone", what, c.label) : t("sentWaiting", what, c.label);
  return h("div", { class: "card sent", role: "status" }, h("p", { class: c.sent ? "done" : "" }, text),
    h("button", { type: "button", class: "secondary", "aria-label": t("dismiss") + ": " + text,
      onclick: () => { store.dismiss(c.taskId); go("list"); } }, t("dismiss")));
}

// card is one task, v the phone's visit of it (if any).
function card(x, v) {
  const label = cardLabel(x);
  return h("section", { class: "card", "aria-label": label },
    (x.attempts?.length > 0 || x.reviewNote) && h("span", { class: "badge" }, t("revisit")),
    h("div", {}, h("strong", {}, x.customerName)), h("div", {}, addressLine(x)),
    x.lga && h("div", { class: "muted" }, t("lga", x.lga)),
    x.dueAt && h("div", { class: "due" }, t("due", dueTime(x.dueAt))),
    x.attempts?.length > 0 && h("div", { class: "muted" }, t("attempts", x.attempts.length)),
    // reviewNote is what a reviewer who sent the task back (REVISIT, the
    // operations console's review) wants done on the re-visit.
    x.reviewNote && h("p", { class: "note" }, t("reviewNote", x.reviewNote)),
    v?.done ? h("div", { class: "done" }, t("completedLocal", t("short_" + v.done))) :
      (v?.checkIn || x.status === "IN_PROGRESS") && h("div", { class: "muted" }, t("inProgress")),
    !v?.done && h("button", { type: "button", "aria-label": t("openTask", label), onclick: () => go("task", x.id) }, t("open")));
}
