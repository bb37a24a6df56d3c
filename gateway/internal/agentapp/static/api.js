// The /agent/v1 calls the app makes directly (sign-in and the task list);
// every change goes through the queue instead.
export class APIError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message); this.status = status; this.code = code; this.retryAfter = Number(retryAfter) || 0;
  }
}

// ok is the only test of success: a 2xx with the platform's JSON envelope
// saying status true. A captive Wi-Fi page answers 200 with HTML.
export async function ok(res) {
  if (!(res.headers.get("Content-Type") || "").includes("application/json")) return null;
  const body = await res.json().catch(() => null);
  return res.ok && body && body.status === true ? body : null;
}

export async function call(method, path, { token, body, timeout = 20000 } = {}) {
  const headers = {};
  if (token) headers.Authorization = "Bearer " + token;
  if (body) headers["Content-Type"] = "application/json";
  const res = await fetch("/agent/v1" + path, {
    method, headers, body: body && JSON.stringify(body), cache: "no-store", signal: AbortSignal.timeout(timeout),
  });
  const env = await ok(res.clone());
  if (env) return env.data;
  const err = await res.json().catch(() => null);
  throw new APIError(res.status, err?.error?.code || "NETWORK", err?.error?.message || res.statusText, res.headers.get("Retry-After"));
}
