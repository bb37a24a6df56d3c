// Step 3, interview: who was met and what the building looks like, saved
// on the phone as typed.
import { t } from "./strings.js";
import { h, field } from "./dom.js";
import * as store from "./store.js";
import { go } from "./shell.js";
import { stepHeader, nav } from "./steps.js";

export function interview(id) {
  const i = store.visit(id).interview;
  const input = (k, attrs = {}) => h("input", { value: i[k] ?? "", ...attrs, oninput: (e) => save(k, e.target.type === "checkbox" ? e.target.checked : e.target.value) });
  const save = (k, val) => { const cur = store.visit(id); cur.interview[k] = val; store.saveVisit(id, cur); };
  const check = (k, label) => h("label", { class: "check" }, input(k, { type: "checkbox", checked: !!i[k], id: k, onchange: (e) => save(k, e.target.checked) }), label);
  return [...stepHeader(id, "interview"), h("h2", {}, t("interviewTitle")),
    field("resident-name", t("residentName"), input("name", { autocomplete: "off" })),
    field("relationship", t("relationship"), input("relationship")),
    field("years", t("years"), input("years", { type: "number", min: "0", inputmode: "numeric" })),
    field("building-type", t("buildingType"), input("buildingType")),
    field("colour", t("colour"), input("colour")),
    check("gate", t("gate")), check("neighbour", t("neighbourConfirmed")),
    field("neighbour-notes", t("neighbourNotes"), input("neighbourNotes")),
    nav(() => go("photos", id), () => go("outcome", id))];
}
