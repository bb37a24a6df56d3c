// What the app keeps on the phone besides the queue: the session (so it
// survives closing the app), the last task list (so it opens offline) and
// the visit under way per task (so a reload resumes it). localStorage is
// enough for these small JSON values; photos live in IndexedDB (queue.js).
const get = (k, d) => { try { return JSON.parse(localStorage.getItem("kyc." + k)) ?? d; } catch { return d; } };
const set = (k, v) => localStorage.setItem("kyc." + k, JSON.stringify(v));

export const session = () => get("session", null);
export const setSession = (s) => (s ? set("session", s) : localStorage.removeItem("kyc.session"));

export const cachedTasks = () => get("tasks", { at: null, tasks: [] });
export const setCachedTasks = (tasks) => set("tasks", { at: new Date().toISOString(), tasks });

export const visits = () => get("visits", {});
export function visit(id) {
  return visits()[id] || { photos: [], interview: {}, outcome: {} };
}
export function saveVisit(id, v) {
  const all = visits();
  if (v) all[id] = v; else delete all[id];
  set("visits", all);
}

// trail is a visit's sampled positions, kept apart from the visit so
// that a screen saving the visit it read before an await never drops a
// sample taken meanwhile.
export const trail = (id) => get("trail." + id, []);
export const setTrail = (id, samples) => (samples ? set("trail." + id, samples) : localStorage.removeItem("kyc.trail." + id));

export const notices = () => get("notices", []);
export const addNotice = (msg) => set("notices", [...notices(), msg].slice(-5));
export const clearNotices = () => set("notices", []);

// sent is what the agent submitted, one confirmation per task, kept until
// the agent dismisses it: a note that vanished when the outbox emptied
// left agents unsure whether a visit had gone. Each is {taskId, outcome,
// label, sent}: sent turns true when the platform has accepted it.
export const confirmations = () => get("sent", []);
const setConfirmations = (all) => set("sent", all);
export const confirm = (c) => setConfirmations([...confirmations().filter((x) => x.taskId !== c.taskId), c]);
export const markSent = (taskId) => setConfirmations(confirmations().map((x) => (x.taskId === taskId ? { ...x, sent: true } : x)));
export const dismiss = (taskId) => setConfirmations(confirmations().filter((x) => x.taskId !== taskId));
