// The TypeScript SDK's example of README.md, runnable: it creates a sandbox
// customer, waits until the simulated agent has verified it, lists the
// verified customers and pages through the customer's events.
//
//   npm run build && KYC_URL=http://127.0.0.1:8080 KYC_SANDBOX_KEY=mk_test_... node dist/examples/quickstart.js
//
// docs/walkthroughs/sdk.sh runs it (and make test runs the walkthrough).
import { KycClient, KycError } from "../src/index.js";

const kyc = new KycClient({ apiKey: process.env.KYC_SANDBOX_KEY ?? "", baseUrl: process.env.KYC_URL ?? "" });
// A new phone on every run: the same phone twice is DUPLICATE_CUSTOMER.
const phone = `+23481${String(Date.now() % 1e8).padStart(8, "0")}`;
try {
  const customer = await kyc.createCustomer({
    firstName: "Chioma",
    lastName: "Obi",
    phone,
    addresses: [{ streetName: "Adeola Odeku Street", city: "Victoria Island", state: "Lagos" }],
  });
  console.log("created", customer.id, customer.status);

  let status: string = customer.status;
  while (status !== "VERIFIED" && status !== "REJECTED") {
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the sandbox agent takes about five seconds
    status = (await kyc.verificationStatus(customer.id)).overallStatus;
    console.log("status", status);
  }

  let verified = 0;
  for await (const _ of kyc.customers({ status: "VERIFIED", limit: 50 })) verified++;
  console.log("verified customers:", verified);

  for await (const event of kyc.events({ customerId: customer.id })) {
    console.log("event", event.id, event.type, event.createdAt);
  }
} catch (err) {
  if (err instanceof KycError) console.error(err.code, err.requestId, err.details);
  throw err;
}
