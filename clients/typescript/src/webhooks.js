// Verifying the service's webhooks (contract 12.3, the Standard Webhooks signature) with Web
// Crypto alone: HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", keyed with the
// base64-decoded secret after "whsec_", checked by Web Crypto's own verify (a constant-time
// comparison), and a timestamp within a tolerance of this machine's clock (an old delivery
// replayed by someone else is refused). The same rules as the Python client's verify_webhook.

import { WebhookVerificationError } from "./errors.js";
import { checkOptions } from "./options.js";
import { webCrypto } from "./signing.js";

const SECRET_PREFIX = "whsec_";
const DEFAULT_TOLERANCE_SECONDS = 300;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const encoder = new TextEncoder();

// Strict base64 (no whitespace, padding required), as the Python client decodes it; null when
// the text is not base64.
function base64Bytes(text) {
  if (!BASE64_RE.test(text)) return null;
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

// One header of a fetch `Headers` (case-insensitive already), a Map or a plain object (any
// case; Node's `request.headers`, where a repeated header is an array, joined as fetch joins it).
function header(headers, name) {
  if (headers instanceof Map) headers = Object.fromEntries(headers);
  if (typeof headers?.get === "function") return headers.get(name) ?? null;
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(", ") : String(value);
  }
  return null;
}

function bytesOf(body) {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) {
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }
  throw new TypeError("body must be the raw request body: a string, Uint8Array or ArrayBuffer");
}

// The event, once the delivery's signature and timestamp check out; else rejects with
// WebhookVerificationError. `headers`: the request's (any case); `body`: its raw bytes as
// received (parsing and serializing again would change them); `secret`: the `whsec_...` shown
// when the endpoint was created; `now`: unix seconds (this clock by default). Deduplicate by
// the `webhook-id` header (the event id): a delivery may come more than once.
export async function verifyWebhook(headers, body, secret, options) {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now } =
    checkOptions(options, "verifyWebhook()");
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) {
    throw new TypeError("the secret is the whsec_... the endpoint's creation answered");
  }
  const keyBytes = base64Bytes(secret.slice(SECRET_PREFIX.length));
  if (keyBytes === null) throw new TypeError("the secret after whsec_ is not base64");
  const webhookId = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!webhookId || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing webhook-id, webhook-timestamp or webhook-signature");
  }
  if (!/^\d+$/.test(timestamp.trim())) {
    throw new WebhookVerificationError("webhook-timestamp is not unix seconds");
  }
  const sentAt = Number(timestamp.trim());
  const clock = now ?? Date.now() / 1000;
  if (Math.abs(clock - sentAt) > toleranceSeconds) {
    throw new WebhookVerificationError(
      `webhook-timestamp is more than ${toleranceSeconds} s from this machine's clock`);
  }
  const raw = bytesOf(body);
  const prefix = encoder.encode(`${webhookId}.${sentAt}.`);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  const crypto = await webCrypto();
  const key = await crypto.subtle.importKey(
    "raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  // Several signatures, space-separated, may be sent (while a secret is being rotated).
  for (const candidate of signatures.split(/\s+/)) {
    const comma = candidate.indexOf(",");
    if (comma < 0 || candidate.slice(0, comma) !== "v1") continue;
    const given = base64Bytes(candidate.slice(comma + 1));
    if (given !== null && await crypto.subtle.verify("HMAC", key, given, signed)) {
      return JSON.parse(new TextDecoder().decode(raw));
    }
  }
  throw new WebhookVerificationError("no signature matches: wrong secret, or the body was changed");
}
