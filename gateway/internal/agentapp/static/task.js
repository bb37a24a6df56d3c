// One task before the visit: who and where, the client's notes, earlier
// attempts, a call and a map, and the button that starts (or resumes) it.
import { t } from "./strings.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import { go } from "./shell.js";
import { task as find, addressLine, dueTime } from "./state.js";
import { list } from "./list.js";

export function task(id) {
  const x = find(id);
  if (!x) return list();
  const v = store.visit(id);
  const started = v.checkIn || x.status === "IN_PROGRESS";
  return [
    h("h2", {}, x.customerName),
    h("p", {}, addressLine(x)),
    h("dl", {},
      x.lga && [h("dt", {}, t("lgaLabel")), h("dd", {}, x.lga)],
      x.dueAt && [h("dt", {}, t("dueLabel")), h("dd", { class: "due" }, dueTime(x.dueAt))],
      x.reviewNote && [h("dt", {}, t("reviewNoteLabel")), h("dd", { class: "note" }, x.reviewNote)], // a reviewer's REVISIT
      h("dt", {}, t("landmark")), h("dd", {}, x.landmark || t("none")),
      h("dt", {}, t("clientNotes")), h("dd", {}, x.notes || t("none")),
      x.attempts?.length ? [h("dt", {}, t("attempts", x.attempts.length)), h("dd", {}, x.attempts.map((a) => a.notes || a.reason).filter(Boolean).join("; "))] : null),
    x.customerPhone && h("a", { class: "btn secondary", href: "tel:" + x.customerPhone }, t("call", x.customerPhone)),
    x.mapUrl?.startsWith("geo:") && h("a", { class: "btn secondary", href: x.mapUrl }, t("openMap")),
    h("button", { type: "button", id: "start", onclick: () => go(started ? "photos" : "checkin", id) }, started ? t("continueVisit") : t("startVisit")),
    h("button", { type: "button", class: "secondary", onclick: () => go("list") }, t("back")),
  ];
}
