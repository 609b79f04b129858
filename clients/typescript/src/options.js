// The options a call takes, checked at run time: an option the call does not know (a typo, or
// the API's snake_case name where the client takes camelCase) is refused before anything is
// sent, naming the nearest known one. Never dropped: a dropped `expected_penalty_amount` once
// let a cancellation go through at a penalty its caller meant to refuse.

import { InvalidRequest, UnknownOption } from "./errors.js";

// Case, `_` and `-` aside: `expected_penalty_amount` is `expectedPenaltyAmount` misspelt by 0.
const folded = (name) => name.toLowerCase().replace(/[_-]/g, "");

function distance(a, b) {
  // Levenshtein, one row at a time.
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

// How far `b` is from `a`, folded: 0 the same, 1 one inside the other (`poll` and
// `pollSeconds`), else their edit distance.
function apart(a, b) {
  [a, b] = [folded(a), folded(b)];
  return a === b ? 0 : a.includes(b) || b.includes(a) ? 1 : distance(a, b);
}

// The known name nearest to `name` (the first of equals, in the order given).
export function nearest(name, known) {
  let best = null, bestDistance = Infinity;
  for (const candidate of known) {
    const d = apart(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

// The options each call takes, camelCase like everything the client names (the objects of the
// API it passes through, such as `occupancy`, `guests` or ARI items, keep the API's names).
const STAY = ["rooms", "occupancy", "currency", "nationality"];
const OPTIONS = {
  "new Client()": ["signed", "timeout", "maxAttempts", "maxRetrySeconds", "sandboxScenario",
                   "clockOffset", "fetch", "sleep"],
  "request()": ["body", "query", "repeatable"],
  "search()": STAY,
  "rates()": [...STAY, "roomTypeCodes", "ratePlanCodes"],
  "quote()": STAY,
  "book()": ["guests", "contact", "partnerReference", "specialRequests", "arrivalTime"],
  "cancel()": ["expectedPenaltyAmount", "currency", "reason"],
  "listBookings()": ["hotelCode", "status", "createdFrom", "createdTo", "checkInFrom",
                     "checkInTo", "limit"],
  "changes()": ["limit", "pollSeconds"],
  "events()": ["start", "types", "limit", "pollSeconds"],
  "listHotelBookings()": ["hotelCode", "status", "acknowledged", "limit"],
  "acknowledge()": ["hotelConfirmationCode"],
  "waitForBatch()": ["timeout", "every"],
  "verifyWebhook()": ["toleranceSeconds", "now"],
  "signedHeaders()": ["timestamp", "nonce"],
};

// `given` (an options object, or undefined / null for none) when each of its keys is one that
// `call` (e.g. "cancel()", as the message names it) takes; else throws UnknownOption
// (InvalidRequest when it is not an object at all).
export function checkOptions(given, call) {
  const known = OPTIONS[call];
  if (given === undefined || given === null) return {};
  if (typeof given !== "object" || Array.isArray(given)) {
    throw new InvalidRequest(`${call}: options must be an object, not ${typeof given}`);
  }
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) throw new UnknownOption(call, key, known, nearest(key, known));
  }
  return given;
}
