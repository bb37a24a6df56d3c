// The outbox: every change the agent makes (check-in, each photo, the
// outcome) is written to IndexedDB first, with its own Idempotency-Key,
// and sent from here strictly in order. Closing the app or rebooting the
// phone loses nothing; a resend after a lost answer changes nothing on the
// server because the key is the same.
import { ok } from "./api.js";

const DB = "kyc-agent", STORE = "outbox";
let dbp;
function db() {
  dbp ??= new Promise((resolve, reject) => {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  return dbp;
}

async function tx(mode, fn) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const x = d.transaction(STORE, mode);
    const req = fn(x.objectStore(STORE));
    x.oncomplete = () => resolve(req?.result);
    x.onerror = x.onabort = () => reject(x.error);
  });
}

// enqueue stores an action: {taskId, kind: "check-in"|"photos"|"complete",
// body} for JSON, or {taskId, kind: "photos", file, fileName, fields}.
export const enqueue = (item) =>
  tx("readwrite", (s) => s.add({ ...item, key: crypto.randomUUID(), queuedAt: new Date().toISOString() }));
export const pending = () => tx("readonly", (s) => s.getAll());
const remove = (seq) => tx("readwrite", (s) => s.delete(seq));

export const state = { waiting: 0, sending: false, nextAt: 0 };
let hooks = {}, running = false, again = false, timer = 0, backoff = 0;

// configure sets token() and the change/delivered/rejected/unauthorised hooks.
export function configure(h) { hooks = h; }

function send(item, token) {
  const headers = { Authorization: "Bearer " + token, "Idempotency-Key": item.key };
  const url = `/agent/v1/tasks/${encodeURIComponent(item.taskId)}/${item.kind}`;
  let body;
  if (item.file) {
    // Text parts first, the original file last, untouched, so where its
    // EXIF survived the server checks it too.
    body = new FormData();
    for (const [k, v] of Object.entries(item.fields)) body.append(k, v);
    body.append("file", item.file, item.fileName || "photo.jpg");
  } else {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(item.body);
  }
  return fetch(url, { method: "POST", headers, body, cache: "no-store", signal: AbortSignal.timeout(item.file ? 120000 : 30000) });
}

// Answers worth retrying: the request may not have been handled, or the
// same key is still being handled.
const retryable = (status, code) =>
  status === 408 || status === 429 || status >= 500 || code === "REQUEST_IN_PROGRESS";

// sync sends the outbox in order until it is empty, the session is gone,
// or the network fails; then it retries with exponential backoff (2 s to
// 60 s, jittered), or at once when the browser says it is online again.
export async function sync() {
  if (running) { again = true; return; }
  running = true;
  clearTimeout(timer);
  state.nextAt = 0;
  try {
    for (;;) {
      const items = await pending();
      state.waiting = items.length;
      hooks.change?.();
      const token = hooks.token?.();
      if (!items.length || !token) { backoff = 0; break; }
      const item = items[0];
      state.sending = true;
      hooks.change?.();
      let res = null, env = null, err = null;
      try {
        res = await send(item, token);
        env = await ok(res.clone());
        if (!env) err = (await res.json().catch(() => null))?.error || null;
      } catch { res = null; }
      state.sending = false;
      if (env) {
        await remove(item.seq);
        backoff = 0;
        hooks.delivered?.(item, env.data);
        continue;
      }
      if (res && err && res.status === 401) { hooks.unauthorised?.(); break; }
      if (res && err && !retryable(res.status, err.code)) {
        // Refused for good (a rule of the visit): keeping it would block
        // every later action, so it is dropped and the agent told why.
        await remove(item.seq);
        hooks.rejected?.(item, { ...err, status: res.status });
        continue;
      }
      backoff = Math.min(backoff ? backoff * 2 : 2000, 60000);
      const wait = Math.round(backoff * (0.75 + Math.random() / 2));
      state.nextAt = Date.now() + wait;
      timer = setTimeout(sync, wait);
      break;
    }
  } finally {
    running = false;
    state.sending = false;
    hooks.change?.();
    if (again) { again = false; queueMicrotask(sync); }
  }
}

addEventListener("online", () => { backoff = 0; sync(); });
