// Types of the client (src/*.js). Answers are the OpenAPI description's schemas (schema.d.ts,
// generated from it); tests/system/clients/test_typescript_client.py checks that each method's
// answer type below is the schema its operation answers with. Options are camelCase, and checked
// at run time too (for JavaScript callers): an unknown key is an UnknownOption, never dropped.
import type * as schema from "./schema.js";

export type * from "./schema.js";

export declare const API_PREFIX: "/api/connectivity/v1";

/** A calendar day: "YYYY-MM-DD" (the hotel's day), or a Date (its UTC day). */
export type Day = string | Date;

export interface StayOptions {
  rooms?: number;
  occupancy?: schema.Occupancy[];
  currency?: string;
  nationality?: string;
}

export interface RatesOptions extends StayOptions {
  /** Sent as `room_type_codes`: narrows the answer to these codes. */
  roomTypeCodes?: string[];
  /** Sent as `rate_plan_codes`: narrows the answer to these codes. */
  ratePlanCodes?: string[];
}

export interface BookOptions {
  guests: schema.Guest[];
  contact: schema.Contact;
  /** Your idempotency key; made here when not given, and kept across retries. */
  partnerReference?: string;
  /** Sent as `special_requests`. */
  specialRequests?: schema.BookingRequest["special_requests"];
  /** Sent as `arrival_time`. */
  arrivalTime?: schema.BookingRequest["arrival_time"];
}

export interface CancelOptions {
  expectedPenaltyAmount?: number | string;
  currency?: string;
  reason?: string;
}

/** Filters of `listBookings` (GET /bookings, sent as `hotel_code`, `created_from`...); a Date
 *  is sent as its instant for `created*` and as its UTC day for `checkIn*`. */
export interface BookingFilters {
  hotelCode?: string;
  status?: schema.Booking["status"];
  createdFrom?: string | Date;
  createdTo?: string | Date;
  checkInFrom?: Day;
  checkInTo?: Day;
  /** bookings per page (50; 1-200) */
  limit?: number;
}

/** Filters of `listHotelBookings` (GET /hotel-bookings; `hotelCode` sent as `hotel_code`). */
export interface HotelBookingFilters {
  hotelCode?: string;
  status?: schema.HotelBooking["status"];
  /** false: only what your property system has not acknowledged yet */
  acknowledged?: boolean;
  /** hotel bookings per page (50; 1-200) */
  limit?: number;
}

export interface AcknowledgeOptions {
  /** The hotel's own confirmation code; replaces the stored one, left out keeps it. */
  hotelConfirmationCode?: string;
}

export interface EventsOptions {
  /** Without a cursor: "oldest" (the oldest event kept, default) or "latest" (from now). */
  start?: "oldest" | "latest";
  /** Only these event types. */
  types?: schema.Event["type"][];
  /** events per page (100; 1-500) */
  limit?: number;
  /** Wait this many seconds when caught up and read on, forever; without it, stop. */
  pollSeconds?: number;
}

export interface VerifyWebhookOptions {
  /** Seconds the delivery's `webhook-timestamp` may be from this clock (300). */
  toleranceSeconds?: number;
  /** Unix seconds to check the timestamp against (this clock by default). */
  now?: number;
}

/** A request's headers: a fetch `Headers`, a Map, or an object of any case (Node's
 *  `request.headers`). */
export type WebhookHeaders =
  | Headers | Map<string, string> | Record<string, string | string[] | undefined>;

export interface ClientOptions {
  /** Sign every request (required for keys with `requires_signature`). */
  signed?: boolean;
  /** Seconds per attempt (30). */
  timeout?: number;
  /** Attempts in all for 429, 503 and repeatable connection failures (4). */
  maxAttempts?: number;
  /** Never wait past this many seconds in all (60). */
  maxRetrySeconds?: number;
  /** Sent as X-Sandbox-Scenario (sandbox keys only). */
  sandboxScenario?: string | null;
  /** Seconds added to this clock when signing (after a 401 stale_request). */
  clockOffset?: number;
  fetch?: typeof fetch;
  sleep?: (seconds: number) => Promise<void>;
}

export declare class Client {
  constructor(baseUrl: string, token: string, options?: ClientOptions);
  timeout: number;
  maxAttempts: number;
  maxRetrySeconds: number;
  sandboxScenario: string | null;
  clockOffset: number;
  /** The `RateLimit` header of the last answer. */
  lastRateLimit: string | null;
  withScenario(scenario: string | null): Client;
  request<T = unknown>(method: string, path: string,
                       options?: { body?: unknown; query?: Record<string, unknown>;
                                   repeatable?: boolean }): Promise<T>;
  ping(): Promise<schema.Ping>;
  whoami(): Promise<schema.Whoami>;
  clockSkew(): Promise<number>;
  checkClock(tolerance?: number): Promise<number>;
  hotels(): Promise<schema.HotelList["hotels"]>;
  hotel(hotelCode: string): Promise<schema.HotelDetailData["hotel"]>;
  search(hotelCodes: string[], checkIn: Day, checkOut: Day,
         options?: StayOptions): Promise<schema.SearchResult>;
  rates(hotelCode: string, checkIn: Day, checkOut: Day,
        options?: RatesOptions): Promise<schema.RatesResult>;
  quote(hotelCode: string, roomTypeCode: string, ratePlanCode: string, checkIn: Day,
        checkOut: Day, options?: StayOptions): Promise<schema.QuoteResult>;
  book(quote: schema.QuoteResult, options: BookOptions): Promise<schema.BookingResult>;
  booking(partnerReference: string): Promise<schema.BookingData["booking"]>;
  listBookings(filters?: BookingFilters): AsyncGenerator<schema.Booking, void, void>;
  cancel(partnerReference: string, options?: CancelOptions): Promise<schema.CancelResult>;
  changes(cursor?: string | null, options?: { limit?: number; pollSeconds?: number }):
    AsyncGenerator<[schema.Change, string], void, void>;
  events(cursor?: string | null, options?: EventsOptions):
    AsyncGenerator<[schema.Event, string], void, void>;
  listHotelBookings(filters?: HotelBookingFilters):
    AsyncGenerator<schema.HotelBooking, void, void>;
  hotelBooking(confirmationNumber: string): Promise<schema.HotelBookingData["hotel_booking"]>;
  acknowledge(confirmationNumber: string, status: schema.HotelBooking["status"],
              options?: AcknowledgeOptions): Promise<schema.HotelBookingData["hotel_booking"]>;
  pushAri(hotelCode: string, items: schema.AriItem[]): Promise<schema.BatchAccepted>;
  pushRestrictions(hotelCode: string,
                   items: schema.RestrictionItem[]): Promise<schema.BatchAccepted>;
  getReservation(partnerReference: string): Promise<schema.ReservationRecord>;
  batch(batchId: string): Promise<schema.BatchOutcome>;
  waitForBatch(batchId: string,
               options?: { timeout?: number; every?: number }): Promise<schema.BatchOutcome>;
}

export declare class PcsError extends Error {}
export declare class InvalidRequest extends PcsError {}
/** An option the call does not take (thrown by the constructor and the iterators, rejected by
 *  the calls that answer a Promise), before anything is sent. */
export declare class UnknownOption extends InvalidRequest {
  /** The key given. */
  option: string;
  /** The known option nearest to it. */
  suggestion: string;
  /** Every option the call takes. */
  known: string[];
}
export declare class ApiError extends PcsError {
  constructor(status: number, code: string, message: string,
              details: Record<string, unknown> | null, requestId: string | null,
              retryAfter?: number | null);
  status: number;
  /** The contract's error code: branch on it, never on the message. */
  code: string;
  details: Record<string, unknown>;
  requestId: string | null;
  /** Whole seconds from the Retry-After header, when sent. */
  retryAfter: number | null;
  /** 429 and 503: nothing was done; the same request may be sent again later. */
  readonly retryable: boolean;
}
export declare class ClockSkewError extends PcsError {
  skewSeconds: number;
}
/** Not the service's delivery (no signature matches) or not a recent one: answer 400. */
export declare class WebhookVerificationError extends PcsError {}

export declare function stringToSign(method: string, pathAndQuery: string, timestamp: string,
                                     nonce: string, body?: string | Uint8Array): Promise<string>;
export declare function signature(secret: string, message: string): Promise<string>;
export declare function signedHeaders(keyId: string, secret: string, method: string,
                                      pathAndQuery: string, body?: string | Uint8Array,
                                      options?: { timestamp?: number; nonce?: string }):
  Promise<Record<"X-Api-Key-Id" | "X-Timestamp" | "X-Nonce" | "X-Signature", string>>;

/** The event of a webhook delivery, once its Standard Webhooks signature (any `v1,` one of
 *  `webhook-signature`, HMAC-SHA256 keyed with the `whsec_` secret's base64-decoded bytes) and
 *  its `webhook-timestamp` (within `toleranceSeconds`) check out; else rejects with
 *  WebhookVerificationError. `body`: the raw bytes as received. Deduplicate by `webhook-id`.
 *  A delivery is an event of GET /events, or the test event `POST .../ping` sends. */
export declare function verifyWebhook(headers: WebhookHeaders,
                                      body: string | Uint8Array | ArrayBuffer, secret: string,
                                      options?: VerifyWebhookOptions):
  Promise<schema.Event | schema.WebhookPing>;
