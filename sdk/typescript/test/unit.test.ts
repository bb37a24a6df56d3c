// Unit tests of the hand-written layer against a local fake API (node:http):
// retries and their Idempotency-Key, Retry-After, KycError, the paginators
// and webhook verification.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";

import { KycClient, KycError, UNEXPECTED_RESPONSE, WebhookSignatureError, WebhookVerifier, check, retryAfterMs } from "../src/index.js";

interface Answer {
  status?: number;
  retryAfter?: string;
  drop?: boolean;
  hang?: boolean;
  body?: string;
}

interface Fake {
  url: string;
  requests: { method: string; url: string; key: string | undefined; auth: string | undefined }[];
}

const servers: Server[] = [];
after(() =>
  servers.forEach((s) => {
    s.closeAllConnections();
    s.close();
  }),
);

const ok201 = JSON.stringify({ status: true, message: "ok", data: { id: "cus_1", status: "PENDING", updatedAt: "2026-11-23T10:00:00.123Z" }, meta: { requestId: "req_2", timestamp: "2026-11-23T10:00:00.123Z" } });
const failure = (status: number) =>
  JSON.stringify({ status: false, error: { code: `E${status}`, message: "m", details: [{ field: "phone", message: "bad" }] }, meta: { requestId: "req_1", timestamp: "2026-11-23T10:00:00.123Z" } });

/** A fake API answering each request with the next scripted answer (then 200s). */
async function fake(answers: Answer[], route?: (req: IncomingMessage) => string): Promise<Fake> {
  const f: Fake = { url: "", requests: [] };
  const server = createServer((req, res) => {
    f.requests.push({ method: req.method ?? "", url: req.url ?? "", key: req.headers["idempotency-key"] as string | undefined, auth: req.headers.authorization });
    req.resume();
    const a = answers.shift() ?? { status: 200 };
    if (a.drop) {
      req.socket.destroy();
      return;
    }
    if (a.hang) return; // no answer: the attempt's timeout ends it
    const status = a.status ?? 200;
    res.writeHead(status, { "Content-Type": "application/json", ...(a.retryAfter ? { "Retry-After": a.retryAfter } : {}) });
    res.end(a.body ?? (route ? route(req) : status >= 400 ? failure(status) : ok201));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  f.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return f;
}

const customer = { firstName: "Ngozi", lastName: "Okafor", phone: "+2348031234567" };

describe("retries", () => {
  const cases: { name: string; method: "POST" | "GET" | "PATCH"; answers: Answer[]; attempts: number; code?: string }[] = [
    { name: "POST: 5xx then success", method: "POST", answers: [{ status: 503 }, { status: 500 }, { status: 201 }], attempts: 3 },
    { name: "POST: a dropped connection", method: "POST", answers: [{ drop: true }, { status: 201 }], attempts: 2 },
    { name: "POST: 5xx past the retries", method: "POST", answers: [{ status: 502 }, { status: 502 }, { status: 502 }, { status: 502 }], attempts: 4, code: "E502" },
    { name: "POST: 501 is final", method: "POST", answers: [{ status: 501 }], attempts: 1, code: "E501" },
    { name: "POST: 4xx is final", method: "POST", answers: [{ status: 400 }], attempts: 1, code: "E400" },
    { name: "POST: 409 without Retry-After is final", method: "POST", answers: [{ status: 409 }], attempts: 1, code: "E409" },
    { name: "POST: 409 REQUEST_IN_PROGRESS waits Retry-After", method: "POST", answers: [{ status: 409, retryAfter: "0" }, { status: 201 }], attempts: 2 },
    { name: "POST: 429 waits Retry-After", method: "POST", answers: [{ status: 429, retryAfter: "0" }, { status: 201 }], attempts: 2 },
    { name: "POST: 429 until midnight is thrown", method: "POST", answers: [{ status: 429, retryAfter: "36000" }], attempts: 1, code: "E429" },
    { name: "GET: a dropped connection", method: "GET", answers: [{ drop: true }, { status: 200 }], attempts: 2 },
    { name: "GET: an attempt past the timeout", method: "GET", answers: [{ hang: true }, { status: 200 }], attempts: 2 },
    { name: "PATCH is never retried", method: "PATCH", answers: [{ status: 503 }], attempts: 1, code: "E503" },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const f = await fake([...c.answers]);
      // These tests wait out the backoff for real (0.25-0.5 s at first).
      const kyc = new KycClient({ apiKey: "mk_test_x", baseUrl: f.url, timeoutMs: 500 });
      const call = async () => {
        if (c.method === "POST") return kyc.createCustomer(customer);
        if (c.method === "GET") return kyc.getCustomer("cus_1");
        return check(await kyc.api.PATCH("/api/v1/webhooks/{id}", { params: { path: { id: "whe_1" } }, body: {} }));
      };
      if (c.code) {
        await assert.rejects(call(), (err: unknown) => err instanceof KycError && err.code === c.code);
      } else {
        await call();
      }
      assert.equal(f.requests.length, c.attempts);
      const keys = f.requests.map((r) => r.key);
      if (c.method === "POST") {
        assert.match(keys[0] ?? "", /^[0-9a-f-]{36}$/);
        assert.ok(keys.every((k) => k === keys[0]), `one key for every attempt: ${keys}`);
      } else {
        assert.equal(keys[0], undefined);
      }
      assert.equal(f.requests[0]?.auth, "Bearer mk_test_x");
    });
  }

  test("two calls, two keys; the caller's key is kept", async () => {
    const f = await fake([{ status: 201 }, { status: 201 }, { status: 201 }]);
    const kyc = new KycClient({ apiKey: "k", baseUrl: f.url });
    await kyc.createCustomer(customer);
    await kyc.createCustomer(customer);
    check(await kyc.api.POST("/api/v1/customers", { body: customer, params: { header: { "Idempotency-Key": "order-42" } } }));
    const [a, b, mine] = f.requests.map((r) => r.key);
    assert.notEqual(a, b);
    assert.equal(mine, "order-42");
  });
});

test("Retry-After", () => {
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs("soon"), undefined);
  assert.equal(retryAfterMs("3"), 3000);
  assert.equal(retryAfterMs(new Date(Date.now() - 3600_000).toUTCString()), 0);
});

describe("KycError", () => {
  test("from the envelope", async () => {
    const f = await fake([{ status: 400 }]);
    const kyc = new KycClient({ apiKey: "k", baseUrl: f.url, maxRetries: 0 });
    await assert.rejects(kyc.getCustomer("cus_1"), (err: unknown) => {
      assert.ok(err instanceof KycError);
      assert.deepEqual([err.status, err.code, err.message, err.requestId], [400, "E400", "kyc: 400 E400: m (request req_1)", "req_1"]);
      assert.deepEqual(err.details, [{ field: "phone", message: "bad" }]);
      return true;
    });
  });
  test("without an envelope", async () => {
    const f = await fake([{ status: 502, body: "<html>bad gateway</html>" }]);
    const kyc = new KycClient({ apiKey: "k", baseUrl: f.url, maxRetries: 0 });
    await assert.rejects(kyc.getCustomer("cus_1"), (err: unknown) => err instanceof KycError && err.status === 502 && err.code === UNEXPECTED_RESPONSE);
  });
  test("options", () => {
    assert.throws(() => new KycClient({ apiKey: "", baseUrl: "http://x" }), TypeError);
    assert.throws(() => new KycClient({ apiKey: "k", baseUrl: "" }), TypeError);
  });
});

describe("paginators", () => {
  const page = (req: IncomingMessage) => {
    const u = new URL(req.url ?? "", "http://x");
    const n = Number((u.searchParams.get("cursor") ?? "c0").slice(1));
    const next = n < 2 ? `c${n + 1}` : null;
    const ids = [`p${n}a`, `p${n}b`];
    const data = u.pathname.endsWith("/customers")
      ? { customers: ids.map((id) => ({ id })), pagination: { page: null, limit: 2, total: 6, totalPages: 3, hasNext: next !== null, nextCursor: next, totalExact: true } }
      : { events: ids.map((id) => ({ id, type: "verification.completed" })), nextCursor: next };
    return JSON.stringify({ status: true, message: "ok", data, meta: { requestId: "r", timestamp: "2026-11-23T10:00:00.123Z" } });
  };
  test("customers, to the last page with the filters on each", async () => {
    const f = await fake([], page);
    const kyc = new KycClient({ apiKey: "k", baseUrl: f.url });
    const ids: string[] = [];
    for await (const c of kyc.customers({ status: "VERIFIED", limit: 2 })) ids.push(c.id);
    assert.deepEqual(ids, ["p0a", "p0b", "p1a", "p1b", "p2a", "p2b"]);
    assert.deepEqual(
      f.requests.map((r) => [...new URL(r.url, "http://x").searchParams].sort().join("&")),
      ["limit,2&status,VERIFIED", "cursor,c1&limit,2&status,VERIFIED", "cursor,c2&limit,2&status,VERIFIED"],
    );
  });
  test("events, stopping when the loop breaks", async () => {
    const f = await fake([], page);
    const kyc = new KycClient({ apiKey: "k", baseUrl: f.url });
    const ids: string[] = [];
    for await (const e of kyc.events({ customerId: "cus_1" })) {
      ids.push(e.id);
      if (ids.length === 3) break;
    }
    assert.deepEqual(ids, ["p0a", "p0b", "p1a"]);
    assert.equal(f.requests.length, 2);
  });
});

test("webhook verification", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4XZ4bGxHhZo=";
  const signer = new Webhook(secret);
  const id = "019a8c5e-3f2b-7d41-a6c9-e0f1d2b3a4c5";
  const body = JSON.stringify({ id, type: "verification.completed", createdAt: "2026-11-23T10:00:00.123Z", environment: "test", data: {} });
  const signed = (msgId: string, at: Date, payload: string) => ({
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signer.sign(msgId, at, payload),
  });
  const v = new WebhookVerifier(secret);
  assert.equal(v.verify(body, signed(id, new Date(), body)).type, "verification.completed");
  assert.equal(v.verify(body, new Headers(signed(id, new Date(), body))).id, id);
  const bad: Record<string, Record<string, string>> = {
    "another body": signed(id, new Date(), "{}"),
    "another id": signed("019a8c5e-3f2b-7d41-a6c9-e0f1d2b3a4c6", new Date(), body),
    "an old attempt": signed(id, new Date(Date.now() - 3600_000), body),
    "no signature": {},
  };
  for (const [name, headers] of Object.entries(bad)) {
    assert.throws(() => v.verify(body, headers), WebhookSignatureError, name);
  }
});
