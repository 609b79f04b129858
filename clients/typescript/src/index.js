// TypeScript/JavaScript client of the Partner Connectivity Service API v1: fetch-based, no
// runtime dependencies (Node 18+ or a browser). Types: index.d.ts over the description's
// schemas (schema.d.ts, generated).
export { API_PREFIX, Client } from "./client.js";
export {
  ApiError, ClockSkewError, InvalidRequest, PcsError, UnknownOption, WebhookVerificationError,
} from "./errors.js";
export { signature, signedHeaders, stringToSign } from "./signing.js";
export { verifyWebhook } from "./webhooks.js";
