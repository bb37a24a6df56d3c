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
    add(id, p.coords, p.timestamp, false);
  }, () => {}, { enableHighAccuracy: true, maximumAge: 0 });
}

// record adds a fix the app took anyway (the check-in's, the
// completion's), whatever the interval: a visit shorter than the first
// watched fix still has its ends.
export const record = (id, pos) => add(id, pos, Date.now(), true);

function add(id, c, time, always) {
  const trail = store.trail(id);
  const last = trail[trail.length - 1];
  if (!always && last && time - Date.parse(last.at) < INTERVAL * 1000) return;
  trail.push({ latitude: c.latitude, longitude: c.longitude, accuracy: c.accuracy, at: new Date(time).toISOString() });
  if (trail.length > MAX) trail.splice(MAX / 2, 1); // keep the start and the latest
  store.setTrail(id, trail);
}

export function stop() {
  if (watch !== null) navigator.geolocation.clearWatch(watch);
  watch = following = null;
}

// take ends the visit's trail and returns its samples to send.
export function take(id) {
  stop();
  const samples = store.trail(id).slice(-MAX);
  store.setTrail(id, null);
  return samples;
}
