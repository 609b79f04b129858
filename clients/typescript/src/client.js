// The client: one method per operation of the API, the same surface as the Python client
// (clients/python), in camelCase. Answers are the description's `data` objects as sent
// (src/schema.d.ts types them); amounts are JSON numbers, dates ISO strings.
//
// Retries: a 429 or a 503 means the service did nothing; the request is sent again after the
// answer's `Retry-After`, at most `maxAttempts` times in all and never past `maxRetrySeconds`.
// A connection failure is retried only for requests that are safe to repeat: reads, and
// bookings and cancellations, which the service makes idempotent by `partner_reference`.
// Signed requests are signed again on every attempt (a fresh nonce and timestamp).

import { ApiError, ClockSkewError, InvalidRequest, PcsError } from "./errors.js";
import { checkOptions } from "./options.js";
import { signedHeaders } from "./signing.js";

export const API_PREFIX = "/api/connectivity/v1";
// Booking and reservation references, and batch ids, travel in the path: the description's
// patterns for them.
const REFERENCE_RE = /^[A-Za-z0-9._-]{1,120}$/;
const BATCH_ID_RE = /^[A-Za-z0-9-]{1,64}$/;
const CONFIRMATION_NUMBER_RE = /^PCS-[A-Z0-9]{12}$/;
const SIGNED_CLOCK_TOLERANCE = 300; // seconds, contract section 2
const FINAL = ["applied", "partially_applied", "rejected", "failed"];
const encoder = new TextEncoder();

const wait = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function day(value) {
  // A Date is sent as its UTC calendar day; give "YYYY-MM-DD" for the hotel's own day.
  return value instanceof Date ? value.toISOString().slice(0, 10) : String(value);
}

function randomReference() {
  const bytes = globalThis.crypto?.getRandomValues
    ? globalThis.crypto.getRandomValues(new Uint8Array(16))
    : Uint8Array.from({ length: 16 }, () => Math.floor(Math.random() * 256));
  return "pcs-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function segment(value, pattern, what) {
  if (typeof value !== "string" || !pattern.test(value)) {
    throw new InvalidRequest(`${what} ${JSON.stringify(value)} does not match ${pattern.source}`);
  }
  return encodeURIComponent(value);
}

function hotelBookingPath(confirmationNumber) {
  return "/hotel-bookings/" + segment(confirmationNumber, CONFIRMATION_NUMBER_RE,
    "confirmation number");
}

// `fields` without the ones left out (undefined or null): the service's defaults apply.
function given(fields) {
  return Object.fromEntries(Object.entries(fields)
    .filter(([, value]) => value !== undefined && value !== null));
}

function stay(checkIn, checkOut, {
  rooms = 1, occupancy = [{ adults: 2 }], currency, nationality, roomTypeCodes, ratePlanCodes,
}) {
  return given({ check_in: day(checkIn), check_out: day(checkOut), rooms, occupancy, currency,
                 nationality, room_type_codes: roomTypeCodes, rate_plan_codes: ratePlanCodes });
}

export class Client {
  // `token`: the key as issued, `<key_id>.<secret>`. `signed`: sign every request (required for
  // keys with `requires_signature`, allowed for any key). `fetch`: a fetch of your own;
  // `sleep(seconds)`: how to wait between attempts.
  constructor(baseUrl, token, options) {
    const {
      signed = false, timeout = 30, maxAttempts = 4, maxRetrySeconds = 60,
      sandboxScenario = null, clockOffset = 0, fetch: fetchImpl, sleep = wait,
    } = checkOptions(options, "new Client()");
    const dot = typeof token === "string" ? token.indexOf(".") : -1;
    if (dot <= 0 || dot === token.length - 1) {
      throw new InvalidRequest("token must be the key as issued: <key_id>.<secret>");
    }
    if (!(maxAttempts >= 1)) throw new InvalidRequest("maxAttempts must be at least 1");
    this._keyId = token.slice(0, dot);
    this._secret = token.slice(dot + 1);
    this._signed = signed;
    this._base = String(baseUrl).replace(/\/+$/, "");
    this._fetch = fetchImpl ?? globalThis.fetch.bind(globalThis);
    this._sleep = sleep;
    this.timeout = timeout;
    this.maxAttempts = maxAttempts;
    this.maxRetrySeconds = maxRetrySeconds;
    this.sandboxScenario = sandboxScenario;
    // Seconds added to this machine's clock when signing. After a 401 `stale_request`, adding
    // its `details.skew_seconds` keeps signed requests going until the clock is fixed.
    this.clockOffset = clockOffset;
    this.lastRateLimit = null; // the `RateLimit` header of the last answer
  }

  // -- plumbing -------------------------------------------------------------------------------

  // A client like this one that sends `X-Sandbox-Scenario: scenario` (sandbox keys only).
  withScenario(scenario) {
    const other = Object.create(Client.prototype);
    Object.assign(other, this, { sandboxScenario: scenario });
    return other;
  }

  // Send one operation (with retries) and resolve to its `data`; reject with ApiError
  // otherwise. `path` is under the API prefix, e.g. "/ping". `repeatable`: may a connection
  // failure be retried (default: for GET only).
  async request(method, path, options) {
    let { body, query, repeatable } = checkOptions(options, "request()");
    let target = API_PREFIX + path;
    if (query) {
      const params = Object.entries(query).filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
      if (params.length) target += "?" + params.join("&");
    }
    const content = body === undefined ? undefined : encoder.encode(JSON.stringify(body));
    repeatable ??= method === "GET";
    const deadline = Date.now() + this.maxRetrySeconds * 1000;
    for (let attempt = 1; ; attempt++) {
      let response;
      try {
        response = await this._fetch(this._base + target, {
          method, body: content, headers: await this._headers(method, target, content),
          signal: AbortSignal.timeout(this.timeout * 1000),
        });
      } catch (failure) {
        if (!repeatable || attempt >= this.maxAttempts || Date.now() >= deadline) throw failure;
        await this._sleep(Math.min(2 ** (attempt - 1), Math.max(0, (deadline - Date.now()) / 1000)));
        continue;
      }
      this.lastRateLimit = response.headers.get("RateLimit");
      if (response.ok) return (await response.json()).data;
      const error = await Client._error(response);
      const pause = error.retryAfter ?? 1;
      if (!error.retryable || attempt >= this.maxAttempts || Date.now() + pause * 1000 > deadline) {
        throw error;
      }
      await this._sleep(pause);
    }
  }

  async _headers(method, target, content) {
    const headers = { Accept: "application/json" };
    if (content) headers["Content-Type"] = "application/json";
    if (this.sandboxScenario !== null && this.sandboxScenario !== undefined) {
      headers["X-Sandbox-Scenario"] = this.sandboxScenario;
    }
    if (this._signed) {
      Object.assign(headers, await signedHeaders(this._keyId, this._secret, method, target,
        content, { timestamp: Math.floor(Date.now() / 1000 + this.clockOffset) }));
    } else {
      headers.Authorization = `Bearer ${this._keyId}.${this._secret}`;
    }
    return headers;
  }

  static async _error(response) {
    const header = response.headers.get("Retry-After");
    const retryAfter = header && /^\d+$/.test(header) ? Number(header) : null;
    const text = await response.text();
    try {
      const body = JSON.parse(text);
      const { code, message, details } = body.error;
      if (typeof code !== "string") throw new TypeError("no code");
      return new ApiError(response.status, code, message, details, body.request_id, retryAfter);
    } catch {
      // Not the service's envelope (a proxy's page): still an ApiError, with what is known.
      return new ApiError(response.status, "unexpected_response", text.slice(0, 200), null,
        response.headers.get("X-Request-Id"), retryAfter);
    }
  }

  // -- handshake ------------------------------------------------------------------------------

  ping() { return this.request("GET", "/ping"); }

  whoami() { return this.request("GET", "/whoami"); }

  // Seconds the service's clock is ahead of this one (negative: behind), measured against
  // /ping's `server_time` at the middle of the round trip.
  async clockSkew() {
    const sent = Date.now();
    const server = Date.parse((await this.ping()).server_time);
    return (server - (sent + Date.now()) / 2) / 1000;
  }

  // The skew, or ClockSkewError when it is over `tolerance` seconds (signed requests are
  // refused past 300 s; the default leaves room for drift).
  async checkClock(tolerance = SIGNED_CLOCK_TOLERANCE / 2) {
    const skew = await this.clockSkew();
    if (Math.abs(skew) > tolerance) throw new ClockSkewError(skew, tolerance);
    return skew;
  }

  // -- pull side ------------------------------------------------------------------------------

  async hotels() { return (await this.request("GET", "/mapping/hotels")).hotels; }

  async hotel(hotelCode) {
    return (await this.request("GET", "/mapping/hotels/" + encodeURIComponent(hotelCode))).hotel;
  }

  // `options`: rooms (1), occupancy ([{adults: 2}]), currency, nationality.
  async search(hotelCodes, checkIn, checkOut, options) {
    const body = { hotel_codes: [...hotelCodes],
                   ...stay(checkIn, checkOut, checkOptions(options, "search()")) };
    return this.request("POST", "/availability/search", { body, repeatable: true });
  }

  // `options`: rooms, occupancy, currency, nationality, roomTypeCodes, ratePlanCodes.
  async rates(hotelCode, checkIn, checkOut, options) {
    const body = { hotel_code: hotelCode,
                   ...stay(checkIn, checkOut, checkOptions(options, "rates()")) };
    return this.request("POST", "/availability/rates", { body, repeatable: true });
  }

  // `options`: rooms, occupancy, currency, nationality.
  async quote(hotelCode, roomTypeCode, ratePlanCode, checkIn, checkOut, options) {
    const body = { hotel_code: hotelCode, room_type_code: roomTypeCode,
                   rate_plan_code: ratePlanCode,
                   ...stay(checkIn, checkOut, checkOptions(options, "quote()")) };
    return this.request("POST", "/bookings/quote", { body, repeatable: true });
  }

  // Book a quoted stay at its quoted price. One `partnerReference` (made here when not given)
  // for every attempt: a retry after a lost answer gets the booking back (`idempotent_replay`),
  // never a second one. `options`: guests, contact, partnerReference, specialRequests,
  // arrivalTime.
  async book(quote, options) {
    const { guests, contact, partnerReference, specialRequests, arrivalTime } =
      checkOptions(options, "book()");
    const body = given({
      partner_reference: partnerReference ?? randomReference(), quote_token: quote.quote_token,
      hotel_code: quote.hotel_code, room_type_code: quote.room_type_code,
      rate_plan_code: quote.rate_plan_code, check_in: quote.check_in, check_out: quote.check_out,
      rooms: quote.rooms, total_amount: quote.total_amount, currency: quote.currency,
      guests: [...guests], contact, special_requests: specialRequests, arrival_time: arrivalTime,
    });
    return this.request("POST", "/bookings", { body, repeatable: true });
  }

  async booking(partnerReference) {
    const path = "/bookings/" + segment(partnerReference, REFERENCE_RE, "reference");
    return (await this.request("GET", path)).booking;
  }

  // `options`: expectedPenaltyAmount (refused, and nothing cancelled, when the penalty is
  // more), currency (of expectedPenaltyAmount), reason.
  async cancel(partnerReference, options) {
    const { expectedPenaltyAmount, currency, reason } =
      checkOptions(options, "cancel()");
    const path = "/bookings/" + segment(partnerReference, REFERENCE_RE, "reference") + "/cancel";
    const body = given({ expected_penalty_amount: expectedPenaltyAmount, currency, reason });
    return this.request("POST", path, { body, repeatable: true });
  }

  // Every booking of the caller matching `filters` (hotelCode, status, createdFrom, createdTo,
  // checkInFrom, checkInTo, limit; a Date is sent as its instant for created* and as its UTC
  // day for checkIn*), oldest created first, following the pages (contract 12.1). The filters
  // are checked at the call (the iterators below likewise), before the first page is read.
  listBookings(filters) {
    const { hotelCode, status, createdFrom, createdTo, checkInFrom, checkInTo, limit } =
      checkOptions(filters, "listBookings()");
    const instant = (value) => (value instanceof Date ? value.toISOString() : value);
    const onDay = (value) => (value instanceof Date ? day(value) : value);
    const query = { hotel_code: hotelCode, status, created_from: instant(createdFrom),
                    created_to: instant(createdTo), check_in_from: onDay(checkInFrom),
                    check_in_to: onDay(checkInTo), limit };
    return this._bookings(query);
  }

  async *_bookings(query) {
    for await (const [booking] of this._follow("/bookings", "bookings", null, query)) {
      yield booking;
    }
  }

  // The change feed (contract 11.3): yields [change, cursor to resume after it], oldest first.
  // Without `cursor` it starts from now. Stops when caught up, unless `pollSeconds` is given,
  // then it waits that long and reads on. Rejects with ApiError `cursor_expired` (410) when
  // the cursor is too old: start again without one.
  changes(cursor = null, options) {
    const { limit, pollSeconds } = checkOptions(options, "changes()");
    return this._changes(cursor, limit, pollSeconds);
  }

  async *_changes(cursor, limit, pollSeconds) {
    cursor ??= (await this.request("GET", "/availability/changes")).next_cursor;
    yield* this._follow("/availability/changes", "changes", cursor, { limit }, pollSeconds);
  }

  // The partner's event log (contract 12.2): yields [event, cursor to resume after it], oldest
  // first. Without `cursor` it starts at the oldest event kept, or from now with
  // `start: "latest"`. `types`: only these event types. Stops when caught up, unless
  // `pollSeconds` is given, then it waits that long and reads on. Keep the cursor of the last
  // event handled; an event may come twice (same `event_id`). Rejects with ApiError
  // `cursor_expired` (410) when the cursor is too old: start again without one.
  events(cursor = null, options) {
    const { start = "oldest", types, limit, pollSeconds } =
      checkOptions(options, "events()");
    return this._events(cursor, start, types, limit, pollSeconds);
  }

  async *_events(cursor, start, types, limit, pollSeconds) {
    const query = { limit, types: types?.length ? [...types].join(",") : undefined };
    if ((cursor === null || cursor === undefined) && start === "latest") {
      cursor = (await this.request("GET", "/events", { query: { start: "latest", ...query } }))
        .next_cursor;
    }
    yield* this._follow("/events", "events", cursor, query, pollSeconds);
  }

  // A cursor-paged list's entries, each with the cursor after its page, until caught up (or
  // forever, `pollSeconds` apart).
  async *_follow(path, items, cursor, query, pollSeconds) {
    for (;;) {
      const page = await this.request("GET", path, { query: { cursor, ...query } });
      for (const entry of page[items]) yield [entry, page.next_cursor];
      cursor = page.next_cursor;
      if (!page.has_more) {
        if (pollSeconds === undefined || pollSeconds === null) return;
        await this._sleep(pollSeconds);
      }
    }
  }

  // -- push side ------------------------------------------------------------------------------

  // The bookings other partners made on the hotels whose bookings you receive (contract 13.2),
  // matching `filters` (hotelCode, status, acknowledged: false for what your property system
  // still has to load, limit), oldest created first, following the pages. The filters are
  // checked at the call.
  listHotelBookings(filters) {
    const { hotelCode, status, acknowledged, limit } =
      checkOptions(filters, "listHotelBookings()");
    return this._hotelBookings({ hotel_code: hotelCode, status, acknowledged, limit });
  }

  async *_hotelBookings(query) {
    for await (const [hotelBooking] of this._follow("/hotel-bookings", "hotel_bookings", null,
      query)) {
      yield hotelBooking;
    }
  }

  async hotelBooking(confirmationNumber) {
    return (await this.request("GET", hotelBookingPath(confirmationNumber))).hotel_booking;
  }

  // Say your property system has loaded the booking in `status`, with the hotel's own code if
  // given (the booking partner then sees it). Rejects with ApiError `status_changed` (409, the
  // current status in `details.status`) when the booking is no longer in that status: load the
  // newer state, then acknowledge it. Safe to repeat.
  async acknowledge(confirmationNumber, status, options) {
    const { hotelConfirmationCode } = checkOptions(options, "acknowledge()");
    const body = given({ status, hotel_confirmation_code: hotelConfirmationCode });
    return (await this.request("POST", hotelBookingPath(confirmationNumber) + "/acknowledge",
      { body, repeatable: true })).hotel_booking;
  }

  pushAri(hotelCode, items) {
    return this.request("PUT", "/ari", { body: { hotel_code: hotelCode, items: [...items] } });
  }

  pushRestrictions(hotelCode, items) {
    return this.request("PUT", "/ari/restrictions",
      { body: { hotel_code: hotelCode, items: [...items] } });
  }

  // A reservation pushed by this key (contract 12.1): the record as the service holds it, its
  // versions and its reconciliation items.
  async getReservation(partnerReference) {
    return this.request("GET",
      "/reservations/" + segment(partnerReference, REFERENCE_RE, "reference"));
  }

  async batch(batchId) {
    return this.request("GET", "/ari/batches/" + segment(batchId, BATCH_ID_RE, "batch id"));
  }

  // Read the batch until its outcome is final; PcsError after `timeout` seconds.
  async waitForBatch(batchId, options) {
    const { timeout = 60, every = 0.5 } = checkOptions(options, "waitForBatch()");
    const deadline = Date.now() + timeout * 1000;
    for (;;) {
      const batch = await this.batch(batchId);
      if (FINAL.includes(batch.status)) return batch;
      if (Date.now() >= deadline) {
        throw new PcsError(`batch ${batchId} still ${batch.status} after ${timeout} s`);
      }
      await this._sleep(every);
    }
  }
}
