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
