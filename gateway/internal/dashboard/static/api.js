// Every call the dashboard makes: /dashboard/v1 (its own API) and /api/v1
// (the public API, with the session instead of a key). The session cookie
// goes by itself; the CSRF token and the environment shown in the page go
// as headers on every request, reads included, as the gateway requires.
export class APIError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || [];
  }
}

export const session = { csrf: "", env: localStorage.getItem("kyc-env") === "live" ? "live" : "test", onEnd: () => {} };

// Words for answers that carry no envelope (a proxy's 502, the
// cross-origin guard's plain-text 403).
const words = {
  0: "The platform cannot be reached; check your connection and try again",
  403: "This request was refused",
  404: "Not found",
  502: "The platform is not answering; try again in a moment",
  503: "The platform is busy; try again in a moment",
};

async function send(url, method, body, headers = {}) {
  const h = { ...headers };
  if (session.csrf) h["X-CSRF-Token"] = session.csrf;
  // A FormData body (a file) goes as multipart, with the browser's boundary.
  const form = typeof FormData !== "undefined" && body instanceof FormData;
  if (body !== undefined && !form) h["Content-Type"] = "application/json";
  try {
    return await fetch(url, { method, headers: h, body: body === undefined || form ? body : JSON.stringify(body), cache: "no-store" });
  } catch {
    throw new APIError(0, "NETWORK", words[0]);
  }
}

async function parse(res) {
  const env = await res.json().catch(() => null);
  if (res.ok && env && env.status === true) return env.data;
  const e = env && env.error;
  if (res.status === 401 && e && e.code === "SESSION_REQUIRED") session.onEnd();
  throw new APIError(res.status, (e && e.code) || "HTTP_" + res.status, (e && e.message) || words[res.status] || res.statusText, e && e.details);
}

export async function dash(method, path, body) {
  return parse(await send("/dashboard/v1" + path, method, body));
}

export async function api(method, path, body) {
  return parse(await send("/api/v1" + path, method, body, { "KYC-Environment": session.env }));
}

// apiWith is api with extra headers (an Idempotency-Key) and a body that
// may be FormData (an upload).
export async function apiWith(method, path, body, headers) {
  return parse(await send("/api/v1" + path, method, body, { "KYC-Environment": session.env, ...headers }));
}

// file fetches a binary answer of the public API (a report, a photo) as
// a Blob, since a plain link cannot carry the session's headers.
export async function file(path) {
  const res = await send("/api/v1" + path, "GET", undefined, { "KYC-Environment": session.env });
  if (!res.ok) await parse(res);
  return res.blob();
}
