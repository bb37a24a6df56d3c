// Step 1, check-in: the phone's best GPS fix at the address. The button
// waits for a good fix (GOOD_ACCURACY metres) or MAX_WAIT seconds.
import { t } from "./strings.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import * as queue from "./queue.js";
import { go, onLeave } from "./shell.js";
import { stepHeader, nav } from "./steps.js";
import { follow, record } from "./trail.js";

const GOOD_ACCURACY = 50, MAX_WAIT = 30;

export function checkin(id) {
  const status = h("p", { role: "status", id: "accuracy" }, t("locating"));
  const btn = h("button", { type: "button", id: "check-in", disabled: true }, t("checkIn"));
  let best = null;
  const started = Date.now();
  const update = () => {
    const waited = (Date.now() - started) / 1000;
    if (!best) { btn.disabled = true; return; }
    const acc = Math.round(best.accuracy);
    const good = best.accuracy <= GOOD_ACCURACY;
    status.textContent = good ? t("accuracyGood", acc) : waited >= MAX_WAIT ? t("accuracyPoor", acc) : t("accuracy", acc);
    btn.disabled = !good && waited < MAX_WAIT;
    btn.textContent = good ? t("checkIn") : t("checkInAnyway");
  };
  if (navigator.geolocation) {
    const w = navigator.geolocation.watchPosition((p) => {
      if (!best || p.coords.accuracy <= best.accuracy) best = { latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy };
      update();
    }, () => { if (!best) status.textContent = t("noGeo"); }, { enableHighAccuracy: true, maximumAge: 0, timeout: MAX_WAIT * 1000 });
    const tick = setInterval(update, 1000);
    onLeave(() => { navigator.geolocation.clearWatch(w); clearInterval(tick); });
  } else status.textContent = t("noGeo");
  btn.addEventListener("click", async () => {
    const pos = best;
    await queue.enqueue({ taskId: id, kind: "check-in", body: pos });
    const v = store.visit(id);
    v.checkIn = { ...pos, at: new Date().toISOString() };
    store.saveVisit(id, v);
    queue.sync();
    record(id, pos);
    follow(id);
    go("photos", id);
  });
  return [...stepHeader(id, "checkin"), h("h2", {}, t("checkInTitle")), h("p", {}, t("checkInHelp")), status, btn,
    nav(() => go("task", id))];
}
