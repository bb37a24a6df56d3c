// Step 4, outcome: verified (at which address), rejected (why) or no
// access, with the agent's notes.
import { t } from "./strings.js";
import { h, field } from "./dom.js";
import * as store from "./store.js";
import { go } from "./shell.js";
import { task, addressLine } from "./state.js";
import { stepHeader, nav } from "./steps.js";

const REASONS = ["ADDRESS_NOT_FOUND", "WRONG_ADDRESS", "INVALID_ADDRESS", "CUSTOMER_NOT_KNOWN_AT_ADDRESS", "CUSTOMER_MOVED", "UNSAFE_AREA", "OTHER"];

export function outcome(id) {
  const o = store.visit(id).outcome, x = task(id);
  const save = (k, val) => { const cur = store.visit(id); cur.outcome[k] = val; store.saveVisit(id, cur); };
  const radios = ["VERIFIED", "REJECTED", "NO_ACCESS"].map((k) => h("label", { class: "check" },
    h("input", { type: "radio", name: "outcome", value: k, id: "outcome-" + k, checked: o.outcome === k, onchange: () => { save("outcome", k); go("outcome", id); } }), t(k)));
  const reason = h("select", { onchange: (e) => save("reason", e.target.value) }, h("option", { value: "" }, t("none")),
    REASONS.map((r) => h("option", { value: r }, t("reason_" + r))));
  reason.value = o.reason || "";
  if (o.outcome === "VERIFIED" && o.verifiedAddress === undefined && x) save("verifiedAddress", addressLine(x));
  const addr = h("input", { value: store.visit(id).outcome.verifiedAddress || "", oninput: (e) => save("verifiedAddress", e.target.value) });
  const notes = h("textarea", { oninput: (e) => save("notes", e.target.value) });
  notes.value = o.notes || "";
  return [...stepHeader(id, "outcome"), h("h2", {}, t("outcomeTitle")),
    h("fieldset", {}, h("legend", {}, t("outcome")), radios),
    o.outcome === "REJECTED" && field("reason", t("reason"), reason),
    o.outcome === "VERIFIED" && field("verified-address", t("verifiedAddress"), addr),
    field("notes", t("notes"), notes),
    nav(() => go("interview", id), () => go("review", id), t("next"), !o.outcome)];
}
