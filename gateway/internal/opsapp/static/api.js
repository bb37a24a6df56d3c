// Every call the console makes goes to /ops/v1 on the same origin. The
// kyc_staff cookie goes by itself (HttpOnly, Path=/ops); the session's
// CSRF token goes as X-CSRF-Token on every request, reads included, as
// the gateway requires. A failure throws an APIError carrying the
// envelope's code, message and details, so a form can put each detail
// beside its field.
export class APIError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || [];
  }
}

// session holds the CSRF token of the signed-in member; onEnd runs when
// the platform says the session is over (expired, signed out elsewhere,
// or the member disabled).
export const session = { csrf: "", onEnd: () => {} };

// Words for answers that carry no envelope (a proxy's 502, the
// cross-origin guard's plain-text 403).
const words = {
  0: "The platform cannot be reached; check your connection and try again",
  403: "This request was refused",
  404: "Not found",
  502: "The platform is not answering; try again in a moment",
  503: "The platform is busy; try again in a moment",
};

// api calls /ops/v1 + path and returns the envelope's data.
export async function api(method, path, body) {
  const headers = {};
  if (session.csrf) headers["X-CSRF-Token"] = session.csrf;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch("/ops/v1" + path, { method, headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new APIError(0, "NETWORK", words[0]);
  }
  return parse(res);
}

// blob fetches a binary answer of /ops/v1 (an evidence photo) with the
// session's headers, which a plain <img src> cannot carry.
export async function blob(path) {
  const headers = session.csrf ? { "X-CSRF-Token": session.csrf } : {};
  let res;
  try {
    res = await fetch("/ops/v1" + path, { headers, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new APIError(0, "NETWORK", words[0]);
  }
  if (!res.ok) await parse(res);
  return res.blob();
}

async function parse(res) {
  const env = await res.json().catch(() => null);
  if (res.ok && env && env.status === true) return env.data;
  const e = env && env.error;
  const code = (e && e.code) || "HTTP_" + res.status;
  if (res.status === 401 && code === "STAFF_SESSION_REQUIRED") session.onEnd();
  throw new APIError(res.status, code, (e && e.message) || words[res.status] || res.statusText, e && e.details);
}
