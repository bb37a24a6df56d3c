// What the screens share: the agent's task list (from /agent/v1, or the
// phone's copy when offline), the note shown over it, this page's photo
// previews, and the session's comings and goings.
import { t } from "./strings.js";
import { call } from "./api.js";
import * as store from "./store.js";
import { go, shown } from "./shell.js";

export const state = { tasks: store.cachedTasks().tasks, listNote: "" };
export const previews = {}; // photo previews of this page's life: taskId -> [{url, tag}]

export const token = () => store.session()?.token;
export const task = (id) => state.tasks.find((x) => x.id === id) || store.cachedTasks().tasks.find((x) => x.id === id);
export const addressLine = (a) => [[a.streetNumber, a.streetName].filter(Boolean).join(" "), a.city, a.state].filter(Boolean).join(", ");
export const when = (iso) => new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

// dueTime is a due time as the platform sets it, in Lagos time whatever
// zone the phone is set to, and says so: "Thu 27 Nov, 09:00 WAT". Lagos
// keeps WAT (UTC+1) all year, so the zone's name is fixed.
const lagos = new Intl.DateTimeFormat("en-GB", { timeZone: "Africa/Lagos", weekday: "short", day: "numeric", month: "short",
  hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
export const dueTime = (iso) => lagos.format(new Date(iso)) + " WAT";

// cardLabel names a task so that two alike (the same customer name on
// one street) can be told apart: name, street number and street, LGA.
export const cardLabel = (x) => [x.customerName, [x.streetNumber, x.streetName].filter(Boolean).join(" "), x.lga].filter(Boolean).join(", ");

// byDue is the platform's order (GET /tasks): due time first, earliest
// first, tasks without one last in the order they came. The app sorts
// again so that the phone's cached copy and a list changed on the phone
// keep it too. Array sort is stable.
export const byDue = (a, b) => (a.dueAt ? 0 : 1) - (b.dueAt ? 0 : 1) || (a.dueAt ? Date.parse(a.dueAt) - Date.parse(b.dueAt) : 0);

export async function loadTasks() {
  try {
    const d = await call("GET", "/tasks", { token: token() });
    state.tasks = d.tasks;
    store.setCachedTasks(state.tasks);
    state.listNote = "";
  } catch (err) {
    if (err.status === 401) return expired();
    const c = store.cachedTasks();
    state.tasks = c.tasks;
    state.listNote = c.at ? t("fromCache", when(c.at)) : t("offline");
  }
  if (shown().screen === "list" || !store.session()) go("list", null);
}

export function expired() {
  store.setSession(null);
  store.addNotice(t("sessionEnded"));
  go("list", null);
}

export async function signOut() {
  // Keep the queue: it is sent after the next sign-in.
  call("DELETE", "/session", { token: token() }).catch(() => {});
  store.setSession(null);
  go("list", null);
}

// position asks the phone where it is now; null when it cannot say.
export function position() {
  return new Promise((resolve) => {
    if (!navigator.geolocation) return resolve(null);
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
      () => resolve(null), { enableHighAccuracy: true, maximumAge: 15000, timeout: 15000 });
  });
}
