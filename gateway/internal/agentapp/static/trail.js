// The visit's audit trail, as ODK Collect keeps one: while a visit is
// open (check-in to submit) the phone's position is sampled and kept
// with the visit, then sent with the outcome for operations to read.
// At most one sample every INTERVAL seconds and MAX samples (the first
// ones and the latest), which the API also bounds.
import * as store from "./store.js";

const INTERVAL = 15, MAX = 500;
let watch = null, following = null;

// follow samples the position for the visit of task id until stop (a
// no-op when it already does, or when the phone has no geolocation).
export function follow(id) {
  if (following === id || !navigator.geolocation) return;
  stop();
  following = id;
  watch = navigator.geolocation.watchPosition((p) => {
    const v = store.visit(id);
    if (!v.checkIn || v.done) return stop();
    const trail = v.trail || [];
    const last = trail[trail.length - 1];
    if (last && p.timestamp - Date.parse(last.at) < INTERVAL * 1000) return;
    trail.push({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy,
      at: new Date(p.timestamp).toISOString() });
    if (trail.length > MAX) trail.splice(MAX / 2, 1); // keep the start and the latest
    v.trail = trail;
    store.saveVisit(id, v);
  }, () => {}, { enableHighAccuracy: true, maximumAge: 0 });
}

export function stop() {
  if (watch !== null) navigator.geolocation.clearWatch(watch);
  watch = following = null;
}

// samples are the visit's samples to send (none: no trail).
export const samples = (v) => (v.trail || []).slice(-MAX);
