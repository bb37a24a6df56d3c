// The official TypeScript SDK of the KYC field-verification API (/api/v1).
//
// `client.api` is the typed openapi-fetch client over the types that
// openapi-typescript generated from api/openapi.yaml (schema.ts, never
// edited by hand); this file is the small layer on top: an API key, a base
// URL and a timeout; KycError from the error envelope; retries with one
// Idempotency-Key per logical POST; paginators for customers and events;
// and webhook verification with the Standard Webhooks library.
import createClient, { type Client } from "openapi-fetch";
import { Webhook } from "standardwebhooks";

import type { components, operations, paths, webhooks } from "./schema.js";

export type { components, operations, paths, webhooks };
type Schemas = components["schemas"];
export type Customer = Schemas["Customer"];
export type CustomerCreate = Schemas["CustomerCreate"];
export type VerificationStatus = Schemas["VerificationStatus"];
/** An event (GET /api/v1/events/{id}), exactly the body of its webhook deliveries. */
export type Event = Awaited<ReturnType<KycClient["getEvent"]>>;
export type WebhookBody = Schemas["WebhookBody"];
export type ErrorDetail = Schemas["ErrorDetail"];
export type ListCustomersQuery = NonNullable<paths["/api/v1/customers"]["get"]["parameters"]["query"]>;
export type ListEventsQuery = NonNullable<paths["/api/v1/events"]["get"]["parameters"]["query"]>;

/** The code of a KycError the SDK makes itself when a failed answer has no error envelope. */
export const UNEXPECTED_RESPONSE = "UNEXPECTED_RESPONSE";

/**
 * A failed call: the HTTP status and the error envelope
 * (`{status:false, error:{code, message, details}, meta:{requestId}}`).
 * Branch on `code`, never on `message`.
 */
export class KycError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly requestId: string;

  constructor(status: number, code: string, message: string, details: ErrorDetail[], requestId: string) {
    super(`kyc: ${status} ${code}: ${message} (request ${requestId})`);
    this.name = "KycError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
  }

  /** The KycError of a failed response, from its parsed body (openapi-fetch's `error`). */
  static from(response: Response, body: unknown): KycError {
    const env = body as { error?: { code?: unknown; message?: unknown; details?: ErrorDetail[] }; meta?: { requestId?: string } } | undefined;
    const requestId = env?.meta?.requestId ?? response.headers.get("X-Request-Id") ?? "";
    if (env && typeof env === "object" && typeof env.error?.code === "string") {
      return new KycError(response.status, env.error.code, String(env.error.message ?? ""), env.error.details ?? [], requestId);
    }
    const text = typeof body === "string" && body !== "" ? body.slice(0, 200) : response.statusText || `HTTP ${response.status}`;
    return new KycError(response.status, UNEXPECTED_RESPONSE, text, [], requestId);
  }
}

/**
 * The envelope's `data` of a successful openapi-fetch result; a KycError otherwise.
 *
 *     const hook = check(await kyc.api.POST("/api/v1/webhooks", { body: { url } }));
 */
export function check<D>(result: { data?: { data?: D }; error?: unknown; response: Response }): D {
  if (!result.response.ok || result.data?.data === undefined) {
    throw KycError.from(result.response, result.error ?? result.data);
  }
  return result.data.data;
}

export interface KycClientOptions {
  /** An mk_test_ (sandbox) or mk_live_ (live) key. */
  apiKey: string;
  /** The gateway, e.g. https://api.example.com (without /api/v1). */
  baseUrl: string;
  /** Bounds each attempt (default 30 000 ms); an AbortSignal bounds the call with its retries. */
  timeoutMs?: number;
  /** How many times a failed attempt is repeated (default 3; 0: never). */
  maxRetries?: number;
  /** The longest Retry-After waited out (default 60 000 ms); a longer one is thrown as a KycError. */
  maxRetryWaitMs?: number;
  /** The fetch to send with (default: globalThis.fetch). */
  fetch?: typeof fetch;
}

/** A client of the API with one key. */
export class KycClient {
  /** Every /api/v1 operation, typed (openapi-fetch); `check` turns a failure into a KycError. */
  readonly api: Client<paths>;

  constructor(options: KycClientOptions) {
    if (!options.apiKey) throw new TypeError("kyc: apiKey is required");
    if (!options.baseUrl) throw new TypeError("kyc: baseUrl is required");
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { Authorization: `Bearer ${options.apiKey}` },
      fetch: retryingFetch({
        fetch: options.fetch ?? globalThis.fetch,
        timeoutMs: options.timeoutMs ?? 30_000,
        maxRetries: options.maxRetries ?? 3,
        maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
      }),
    });
  }

  /**
   * Creates a customer and starts its verification. A key with kyc:read gets
   * the whole customer; a write-only key's answer is a receipt ({id, status, updatedAt}).
   */
  async createCustomer(body: CustomerCreate): Promise<Customer> {
    return check(await this.api.POST("/api/v1/customers", { body })) as Customer;
  }

  async getCustomer(id: string): Promise<Customer> {
    return check(await this.api.GET("/api/v1/customers/{id}", { params: { path: { id } } }));
  }

  async verificationStatus(customerId: string): Promise<VerificationStatus> {
    return check(await this.api.GET("/api/v1/verification/{customerId}/status", { params: { path: { customerId } } }));
  }

  /** One event, the body its webhook deliveries carry. */
  async getEvent(id: string) {
    return check(await this.api.GET("/api/v1/events/{id}", { params: { path: { id } } }));
  }

  /**
   * Every customer matching `query` (status, search; limit is the page
   * size), newest first, following pagination.nextCursor.
   *
   *     for await (const customer of kyc.customers({ status: "VERIFIED" })) { ... }
   */
  async *customers(query: Omit<ListCustomersQuery, "page"> = {}): AsyncGenerator<Customer> {
    let cursor = query.cursor;
    do {
      const page = check(await this.api.GET("/api/v1/customers", { params: { query: { ...query, cursor } } }));
      yield* page.customers;
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
  }

  /**
   * The events of the last 30 days matching `query` (type, customerId;
   * limit is the page size), newest first, following nextCursor. After an
   * outage, read until an id already handled, then break.
   */
  async *events(query: ListEventsQuery = {}): AsyncGenerator<Event> {
    let cursor = query.cursor;
    do {
      const page = check(await this.api.GET("/api/v1/events", { params: { query: { ...query, cursor } } }));
      yield* page.events;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
}

interface RetryOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitMs: number;
}

/**
 * A fetch that retries what is safe to retry. A POST without an
 * Idempotency-Key gets one before its first attempt, and every retry of it
 * sends the same key, so the platform runs it once and replays the first
 * answer. Retried: network errors and timeouts, 5xx but 501, 429, and a
 * 409 with Retry-After (REQUEST_IN_PROGRESS). Retry-After is honoured up to
 * maxRetryWaitMs; a longer one (a daily quota resetting at midnight) is
 * returned as it is. PATCH is never retried: it takes no idempotency key.
 */
export function retryingFetch(o: RetryOptions): (request: Request) => Promise<Response> {
  return async (request: Request) => {
    const headers = new Headers(request.headers);
    if (request.method === "POST" && !headers.has("Idempotency-Key")) {
      headers.set("Idempotency-Key", crypto.randomUUID());
    }
    const body = request.body ? await request.arrayBuffer() : undefined;
    const retryable = request.method !== "PATCH";
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= o.maxRetries;
      let response: Response;
      const attemptSignal = timeoutSignal(request.signal, o.timeoutMs);
      try {
        response = await o.fetch(request.url, { method: request.method, headers, body, signal: attemptSignal.signal, redirect: request.redirect });
      } catch (err) {
        attemptSignal.done();
        if (last || request.signal.aborted) throw err;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (last) return response;
      const after = retryAfterMs(response.headers.get("Retry-After"));
      const again =
        response.status === 429 ||
        (response.status >= 500 && response.status !== 501) ||
        (response.status === 409 && after !== undefined);
      if (!again || (after !== undefined && after > o.maxRetryWaitMs)) return response;
      await response.body?.cancel();
      attemptSignal.done();
      await sleep(after ?? backoff(attempt), request.signal);
    }
  };
}

/**
 * A signal that aborts when the caller's does or after ms, reading the body
 * included (AbortSignal.any would do, from Node 20.3 on); done() releases
 * its timer and listener. The timer never keeps the process alive.
 */
function timeoutSignal(caller: AbortSignal, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller.reason);
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")), ms);
  timer.unref?.();
  if (caller.aborted) onAbort();
  else caller.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      caller.removeEventListener("abort", onAbort);
    },
  };
}

/** Exponential from 0.5 s, at most 8 s, jittered in its upper half. */
function backoff(attempt: number): number {
  const base = Math.min(500 * 2 ** attempt, 8000);
  return base / 2 + Math.random() * (base / 2);
}

/** Retry-After in milliseconds: seconds, or an HTTP date. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - Date.now(), 0);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Thrown for a delivery that does not verify: answer it 4xx and do not act on it. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(`kyc: webhook signature does not verify: ${message}`);
    this.name = "WebhookSignatureError";
  }
}

/**
 * Checks that a delivery comes from the platform: its webhook-signature
 * (Standard Webhooks: HMAC-SHA256 of "id.timestamp.body" with the
 * endpoint's whsec_ secret) and a webhook-timestamp within 5 minutes.
 * During a rotation the platform signs with both secrets, so the new one
 * verifies at once.
 */
export class WebhookVerifier {
  readonly #wh: Webhook;

  constructor(secret: string) {
    this.#wh = new Webhook(secret);
  }

  /**
   * Verifies the raw body (exactly the bytes received: a re-serialized
   * object does not verify) and its headers, and returns the parsed body,
   * whose id is also the webhook-id.
   */
  verify(body: string | Buffer, headers: Headers | Record<string, string | string[] | undefined>): WebhookBody {
    const get = (name: string): string => {
      const v = headers instanceof Headers ? headers.get(name) : headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? "";
    };
    const h = { "webhook-id": get("webhook-id"), "webhook-timestamp": get("webhook-timestamp"), "webhook-signature": get("webhook-signature") };
    let event: WebhookBody;
    try {
      event = this.#wh.verify(body, h) as WebhookBody;
    } catch (err) {
      throw new WebhookSignatureError(err instanceof Error ? err.message : String(err));
    }
    if (event.id !== h["webhook-id"]) {
      throw new WebhookSignatureError(`body id ${event.id}, webhook-id ${h["webhook-id"]}`);
    }
    return event;
  }
}
