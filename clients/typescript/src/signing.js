// Request signing of the contract (section 2): HMAC-SHA256, keyed with the secret's UTF-8 bytes,
// over METHOD, the path and query exactly as sent, the timestamp, the nonce and the hex SHA-256
// of the body bytes. Web Crypto: globalThis.crypto in browsers and Node 19+, node:crypto's
// webcrypto on Node 18.

import { checkOptions } from "./options.js";

const encoder = new TextEncoder();
let cryptoPromise;

export function webCrypto() {
  if (globalThis.crypto?.subtle) return Promise.resolve(globalThis.crypto);
  cryptoPromise ??= import("node:crypto").then((module) => module.webcrypto);
  return cryptoPromise;
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

function bytesOf(body) {
  if (body === undefined || body === null) return new Uint8Array();
  return typeof body === "string" ? encoder.encode(body) : body;
}

export async function stringToSign(method, pathAndQuery, timestamp, nonce, body) {
  const crypto = await webCrypto();
  const bodyHash = hex(await crypto.subtle.digest("SHA-256", bytesOf(body)));
  return [method.toUpperCase(), pathAndQuery, timestamp, nonce, bodyHash].join("\n");
}

export async function signature(secret, message) {
  const crypto = await webCrypto();
  const key = await crypto.subtle.importKey(
    "raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

// The four headers of a signed request. A fresh nonce on every call: the service refuses a
// nonce it saw in the last 600 s, so a retry must be signed again.
export async function signedHeaders(keyId, secret, method, pathAndQuery, body, options) {
  const { timestamp, nonce } = checkOptions(options, "signedHeaders()");
  const crypto = await webCrypto();
  const ts = String(timestamp ?? Math.floor(Date.now() / 1000));
  const n = nonce ?? hex(crypto.getRandomValues(new Uint8Array(16)));
  const message = await stringToSign(method, pathAndQuery, ts, n, body);
  return { "X-Api-Key-Id": keyId, "X-Timestamp": ts, "X-Nonce": n,
           "X-Signature": await signature(secret, message) };
}
