// What every step of a visit shows: which step of how many, whose visit
// it is, and the back/next buttons.
import { t } from "./strings.js";
import { h } from "./dom.js";
import { task, addressLine } from "./state.js";
import * as store from "./store.js";
import { follow } from "./trail.js";

const STEPS = ["checkin", "photos", "interview", "outcome", "review"];

export function stepHeader(id, step) {
  const x = task(id);
  if (store.visit(id).checkIn) follow(id); // every step of an open visit keeps the trail going
  return [h("p", { class: "steps" }, t("step", STEPS.indexOf(step) + 1, STEPS.length)),
    h("p", { class: "muted" }, x ? `${x.customerName} · ${addressLine(x)}` : "")];
}

export function nav(back, next, label = t("next"), disabled = false) {
  return h("div", { class: "row" },
    h("button", { type: "button", class: "secondary", onclick: back }, t("back")),
    next && h("button", { type: "button", id: "next", onclick: next, disabled }, label));
}
