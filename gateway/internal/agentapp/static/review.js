// Step 5, review: everything recorded on the visit, what still stops it
// being sent, and Submit, which queues the outcome with the phone's
// position now.
import { t } from "./strings.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import * as queue from "./queue.js";
import { go } from "./shell.js";
import { task, cardLabel, position } from "./state.js";
import { stepHeader, nav } from "./steps.js";
import * as trail from "./trail.js";

export function review(id) {
  const v = store.visit(id), o = v.outcome, i = v.interview;
  const problems = [];
  if (o.outcome === "VERIFIED" && v.photos.length < 2) problems.push(t("needTwoPhotos"));
  if (o.outcome === "VERIFIED" && !o.verifiedAddress?.trim()) problems.push(t("needAddress"));
  if (o.outcome === "REJECTED" && !o.reason) problems.push(t("needReason"));
  if (o.outcome === "REJECTED" && o.reason === "OTHER" && !o.notes?.trim()) problems.push(t("needNotes"));
  const row = (k, val) => [h("dt", {}, k), h("dd", {}, val || t("none"))];
  return [...stepHeader(id, "review"), h("h2", {}, t("reviewTitle")),
    h("dl", {},
      row(t("checkInTitle"), v.checkIn && t("checkedIn", Math.round(v.checkIn.accuracy))),
      row(t("photosTitle"), v.photos.map((p) => t("tag_" + p.tag)).join(", ")),
      row(t("residentName"), [i.name, i.relationship].filter(Boolean).join(", ")),
      row(t("outcome"), o.outcome && t(o.outcome)),
      o.reason && o.outcome === "REJECTED" ? row(t("reason"), t("reason_" + o.reason)) : null,
      o.outcome === "VERIFIED" ? row(t("verifiedAddress"), o.verifiedAddress) : null,
      row(t("notes"), o.notes)),
    problems.map((p) => h("p", { class: "error", role: "alert" }, p)),
    nav(() => go("outcome", id), () => submit(id), t("submit"), problems.length > 0)];
}

async function submit(id) {
  const v = store.visit(id), o = v.outcome;
  const pos = await position() || v.checkIn;
  if (!pos) return alert(t("noGeo"));
  const body = { outcome: o.outcome, latitude: pos.latitude, longitude: pos.longitude, accuracy: pos.accuracy };
  if (o.notes?.trim()) body.notes = o.notes.trim();
  if (o.outcome === "VERIFIED") body.verifiedAddress = o.verifiedAddress.trim();
  if (o.outcome === "REJECTED") body.reason = o.reason;
  if (o.outcome !== "NO_ACCESS") Object.assign(body, interviewOf(v.interview));
  trail.record(id, pos);
  const samples = trail.take(id);
  if (samples.length) body.trail = { samples };
  await queue.enqueue({ taskId: id, kind: "complete", body });
  v.done = o.outcome;
  store.saveVisit(id, v);
  const x = task(id);
  store.confirm({ taskId: id, outcome: o.outcome, label: x ? cardLabel(x) : "", sent: false });
  queue.sync();
  go("list", null);
}

// interviewOf is the interview's resident, building and neighbour, each
// only when something was said of it.
function interviewOf(i) {
  const out = {};
  const resident = compact({ name: i.name, relationship: i.relationship, yearsAtAddress: i.years ? parseInt(i.years, 10) : undefined });
  const building = compact({ type: i.buildingType, colour: i.colour, gatePresent: i.gate || undefined });
  if (resident) out.resident = resident;
  if (building) out.building = building;
  if (i.neighbour || i.neighbourNotes) out.neighbour = compact({ confirmed: !!i.neighbour, notes: i.neighbourNotes });
  return out;
}

function compact(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== "" && !Number.isNaN(v)) out[k] = typeof v === "string" ? v.trim() : v;
  return Object.keys(out).length ? out : null;
}
