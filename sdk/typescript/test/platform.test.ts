// The SDK against a running platform: KYC_URL (the gateway) and
// KYC_SANDBOX_KEY (an mk_test_ key of a Growth organization) turn these
// tests on; e2e/sdk_test.go runs them against the platform it starts.
// A webhook endpoint on a loopback receiver, a sandbox customer created
// and polled until VERIFIED, found with the customers paginator, its
// events paged one at a time and matched to the deliveries the receiver
// verified with the SDK.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { KycClient, KycError, WebhookVerifier, check, type WebhookBody } from "../src/index.js";

const url = process.env.KYC_URL;
const key = process.env.KYC_SANDBOX_KEY;
const timeoutMs = Number(process.env.KYC_TIMEOUT ?? "60") * 1000;
const skip = !url || !key ? "KYC_URL and KYC_SANDBOX_KEY are not set" : false;

/** Calls probe every 250 ms until it returns a value, for at most KYC_TIMEOUT. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test("create, poll, list, page events and verify a delivery", { skip }, async () => {
  const kyc = new KycClient({ apiKey: key!, baseUrl: url!, timeoutMs: 10_000 });

  const deliveries: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const port = (receiver.address() as AddressInfo).port;
    const hook = check(await kyc.api.POST("/api/v1/webhooks", { body: { url: `http://127.0.0.1:${port}/kyc` } }));
    const verifier = new WebhookVerifier(hook.secret!);

    const phone = `+23481${String(Date.now() % 1e8).padStart(8, "0")}`;
    const customer = await kyc.createCustomer({
      firstName: "Chioma",
      lastName: "Obi",
      phone,
      addresses: [{ streetName: "Adeola Odeku Street", city: "Victoria Island", state: "Lagos" }],
    });
    await until("VERIFIED", async () => ((await kyc.verificationStatus(customer.id)).overallStatus === "VERIFIED" ? true : undefined));

    const listed: string[] = [];
    for await (const c of kyc.customers({ limit: 1 })) listed.push(c.id);
    assert.ok(listed.includes(customer.id), `the paginator listed ${listed}`);
    const found: string[] = [];
    for await (const c of kyc.customers({ search: phone })) found.push(c.id);
    assert.deepEqual(found, [customer.id]);

    const completed = await until("verification.completed delivered", async () => {
      let id: string | undefined;
      for (const d of deliveries) {
        const ev: WebhookBody = verifier.verify(d.body, d.headers);
        if (ev.type === "verification.completed") id = ev.id;
      }
      return id;
    });
    const events: string[] = [];
    for await (const e of kyc.events({ customerId: customer.id, limit: 1 })) events.push(e.id);
    assert.ok(events.length >= 2 && events.includes(completed), `events ${events}, delivered ${completed}`);
    assert.equal((await kyc.getEvent(completed)).id, completed);

    await assert.rejects(kyc.getCustomer("cus_019a8c5e3f2b7d41a6c9e0f1d2b3a4c5"), (err: unknown) => {
      assert.ok(err instanceof KycError);
      assert.equal(err.status, 404);
      assert.equal(err.code, "NOT_FOUND");
      assert.match(err.requestId, /^req_/);
      return true;
    });
    await assert.rejects(kyc.createCustomer({ firstName: "A", lastName: "Obi", phone: "12" }), (err: unknown) => {
      assert.ok(err instanceof KycError && err.code === "VALIDATION_ERROR" && err.details.length >= 2, String(err));
      return true;
    });
  } finally {
    receiver.close();
  }
});
