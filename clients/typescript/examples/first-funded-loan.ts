// A first funded loan in the test environment, ending with a verified webhook.
// LENDHUB_URL=http://127.0.0.1:8080/sandbox/v1 LENDHUB_KEY=sk_test_… npx tsx examples/first-funded-loan.ts
import { createServer } from "node:http";
import { createLendhub, idempotencyKey, verifyWebhook } from "../src/index.ts";

const lendhub = createLendhub({ baseUrl: process.env.LENDHUB_URL!, apiKey: process.env.LENDHUB_KEY! });
const key = () => ({ header: { "Idempotency-Key": idempotencyKey() } });
let secret = "";
const funded = new Promise<boolean>((resolve) => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c)).on("end", () => {
      const body = Buffer.concat(chunks);
      res.end();
      if (JSON.parse(body.toString()).type !== "loan.funded") return;
      resolve(verifyWebhook(secret, String(req.headers["service-signature"]), body));
      server.close();
    });
  }).listen(18284, "127.0.0.1");
});
const { data: endpoint } = await lendhub.POST("/webhook_endpoints", { params: key(), body: { url: "http://127.0.0.1:18284/hooks", enabled_events: ["loan.funded"] } });
secret = endpoint!.secret!;
const { data: app } = await lendhub.POST("/applications", { params: key(), body: { business: { company_number: "00000401" }, amount_pence: 1_000_000, term_months: 24, applicant: { email: "founder@healthy-widgets.example" } } });
const { data: check } = await lendhub.POST("/identity/checks", { params: key(), body: { application_id: app!.id, person: { first_name: "Ada", last_name: "Lovelace", date_of_birth: "1985-04-12" } } });
const path = { id: app!.id };
const { data: decided } = await lendhub.POST("/applications/{id}/submit", { params: { path, ...key() }, body: { consents: { credit_search: true, open_banking: true, terms: true }, bank: "test_bank_strong", identity_check_ids: [check!.id] } });
await lendhub.POST("/applications/{id}/accept", { params: { path, ...key() }, body: { signed_by: "Ada Lovelace", accept_terms: true } });
await lendhub.POST("/test_helpers/clock/advance", { params: key(), body: { seconds: 360 } });
console.log(JSON.stringify({ decision: decided!.status, webhook: "loan.funded", verified: await funded }));
