// verifyWebhook on its own (no service needed): deliveries signed here with node:crypto's HMAC,
// apart from the client's Web Crypto path, as the Standard Webhooks specification signs them.
// tests/system/clients/test_typescript_client.py also checks it against deliveries the
// service and the `standardwebhooks` package sign. Exits non-zero at the first surprise.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";

import { verifyWebhook, WebhookVerificationError } from "../src/index.js";

const key = randomBytes(32);
const secret = "whsec_" + key.toString("base64");
const event = { event_id: "evt_" + "a".repeat(32), type: "booking.confirmed",
                created_at: "2027-01-01T10:00:00+00:00", data: { booking: { reference: "Zoë" } } };
const body = JSON.stringify(event);
const now = Math.floor(Date.now() / 1000);

function sent({ at = now, id = event.event_id, content = body, with_ = key } = {}) {
  const mac = createHmac("sha256", with_).update(`${id}.${at}.`).update(content).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(at), "webhook-signature": `v1,${mac}` };
}
const refused = (promise) => assert.rejects(promise, WebhookVerificationError);

// accepted: as a string or the raw bytes, headers of any case, a fetch Headers, a Map
assert.deepEqual(await verifyWebhook(sent(), body, secret), event);
assert.deepEqual(await verifyWebhook(sent(), new TextEncoder().encode(body), secret), event);
const shouted = Object.fromEntries(Object.entries(sent()).map(([k, v]) => [k.toUpperCase(), v]));
assert.deepEqual(await verifyWebhook(shouted, body, secret), event);
assert.deepEqual(await verifyWebhook(new Headers(sent()), body, secret), event);
assert.deepEqual(await verifyWebhook(new Map(Object.entries(sent())), body, secret), event);
// one matching signature among several (a secret being rotated) is enough
const other = sent({ with_: randomBytes(32) })["webhook-signature"];
const rotated = { ...sent(),
                  "webhook-signature": `v2,abc ${other} ${sent()["webhook-signature"]}` };
assert.deepEqual(await verifyWebhook(rotated, body, secret), event);
// the tolerance is the receiver's choice
assert.deepEqual(await verifyWebhook(sent({ at: now - 600 }), body, secret,
                                     { toleranceSeconds: 900 }), event);

// refused: a changed body, another secret, an old or future timestamp, another id, missing or
// garbled headers
await refused(verifyWebhook(sent(), body.replace("Zoë", "Zoe"), secret));
await refused(verifyWebhook(sent(), body, "whsec_" + randomBytes(32).toString("base64")));
// (this clock: a minute past the tolerance, the time this script takes on a busy machine aside)
await refused(verifyWebhook(sent({ at: now - 360 }), body, secret));
await refused(verifyWebhook(sent({ at: now + 360 }), body, secret));
// (at the edge, against a given clock)
assert.deepEqual(await verifyWebhook(sent({ at: now - 300 }), body, secret, { now }), event);
await refused(verifyWebhook(sent({ at: now - 301 }), body, secret, { now }));
await refused(verifyWebhook(sent({ at: now + 301 }), body, secret, { now }));
await refused(verifyWebhook({ ...sent(), "webhook-id": "evt_" + "b".repeat(32) }, body, secret));
for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
  const headers = sent();
  delete headers[name];
  await refused(verifyWebhook(headers, body, secret));
}
await refused(verifyWebhook({ ...sent(), "webhook-timestamp": "soon" }, body, secret));
await refused(verifyWebhook({ ...sent(), "webhook-signature": "v1,%%%" }, body, secret));
const v2only = sent()["webhook-signature"].replace("v1,", "v2,");
await refused(verifyWebhook({ ...sent(), "webhook-signature": v2only }, body, secret));
// a secret that is not a whsec_ one is the caller's mistake, not a forged delivery
await assert.rejects(verifyWebhook(sent(), body, key.toString("base64")), TypeError);

console.log(JSON.stringify({ webhooks: "ok" }));
