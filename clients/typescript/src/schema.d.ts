// Generated from the service's OpenAPI description by devtools/openapi_types.py:
// do not edit; regenerate (see that module) when the description changes.
// Amounts are JSON numbers; dates (`format: date`) and timestamps (`date-time`) are
// ISO 8601 strings.

// Partner Connectivity Service v1

export type Error = {
  /** machine-readable; branch on it */
  code: string;
  /** human text; never branch on it */
  message: string;
  /** machine-readable facts for some codes (each code's description names them); `{}` when the code has none */
  details: {
    [key: string]: unknown;
  };
  /** the docs page's section on this code: why it happens and how to fix it (an absolute URL on this service) */
  doc_url: string;
};

export type ErrorEnvelope = {
  success: false;
  error: Error;
  request_id: string;
};

export type PaginationMetadata = {
  /** Total number of items. */
  total?: number;
  /** Total number of pages. */
  total_pages?: number;
  /** First available page number. */
  first_page?: number;
  /** Last available page number. */
  last_page?: number;
  /** Current page number. */
  page?: number;
  /** Previous page number. */
  previous_page?: number;
  /** Next page number. */
  next_page?: number;
};

/** ISO 3166-1 alpha-2 country code */
export type CountryCode = "AD" | "AE" | "AF" | "AG" | "AI" | "AL" | "AM" | "AO" | "AQ" | "AR" | "AS" | "AT" | "AU" | "AW" | "AX" | "AZ" | "BA" | "BB" | "BD" | "BE" | "BF" | "BG" | "BH" | "BI" | "BJ" | "BL" | "BM" | "BN" | "BO" | "BQ" | "BR" | "BS" | "BT" | "BV" | "BW" | "BY" | "BZ" | "CA" | "CC" | "CD" | "CF" | "CG" | "CH" | "CI" | "CK" | "CL" | "CM" | "CN" | "CO" | "CR" | "CU" | "CV" | "CW" | "CX" | "CY" | "CZ" | "DE" | "DJ" | "DK" | "DM" | "DO" | "DZ" | "EC" | "EE" | "EG" | "EH" | "ER" | "ES" | "ET" | "FI" | "FJ" | "FK" | "FM" | "FO" | "FR" | "GA" | "GB" | "GD" | "GE" | "GF" | "GG" | "GH" | "GI" | "GL" | "GM" | "GN" | "GP" | "GQ" | "GR" | "GS" | "GT" | "GU" | "GW" | "GY" | "HK" | "HM" | "HN" | "HR" | "HT" | "HU" | "ID" | "IE" | "IL" | "IM" | "IN" | "IO" | "IQ" | "IR" | "IS" | "IT" | "JE" | "JM" | "JO" | "JP" | "KE" | "KG" | "KH" | "KI" | "KM" | "KN" | "KP" | "KR" | "KW" | "KY" | "KZ" | "LA" | "LB" | "LC" | "LI" | "LK" | "LR" | "LS" | "LT" | "LU" | "LV" | "LY" | "MA" | "MC" | "MD" | "ME" | "MF" | "MG" | "MH" | "MK" | "ML" | "MM" | "MN" | "MO" | "MP" | "MQ" | "MR" | "MS" | "MT" | "MU" | "MV" | "MW" | "MX" | "MY" | "MZ" | "NA" | "NC" | "NE" | "NF" | "NG" | "NI" | "NL" | "NO" | "NP" | "NR" | "NU" | "NZ" | "OM" | "PA" | "PE" | "PF" | "PG" | "PH" | "PK" | "PL" | "PM" | "PN" | "PR" | "PS" | "PT" | "PW" | "PY" | "QA" | "RE" | "RO" | "RS" | "RU" | "RW" | "SA" | "SB" | "SC" | "SD" | "SE" | "SG" | "SH" | "SI" | "SJ" | "SK" | "SL" | "SM" | "SN" | "SO" | "SR" | "SS" | "ST" | "SV" | "SX" | "SY" | "SZ" | "TC" | "TD" | "TF" | "TG" | "TH" | "TJ" | "TK" | "TL" | "TM" | "TN" | "TO" | "TR" | "TT" | "TV" | "TW" | "TZ" | "UA" | "UG" | "UM" | "US" | "UY" | "UZ" | "VA" | "VC" | "VE" | "VG" | "VI" | "VN" | "VU" | "WF" | "WS" | "YE" | "YT" | "ZA" | "ZM" | "ZW";

/** ISO 4217 currency code */
export type CurrencyCode = "AED" | "AFN" | "ALL" | "AMD" | "AOA" | "ARS" | "AUD" | "AWG" | "AZN" | "BAM" | "BBD" | "BDT" | "BHD" | "BIF" | "BMD" | "BND" | "BOB" | "BOV" | "BRL" | "BSD" | "BTN" | "BWP" | "BYN" | "BZD" | "CAD" | "CDF" | "CHE" | "CHF" | "CHW" | "CLF" | "CLP" | "CNY" | "COP" | "COU" | "CRC" | "CUP" | "CVE" | "CZK" | "DJF" | "DKK" | "DOP" | "DZD" | "EGP" | "ERN" | "ETB" | "EUR" | "FJD" | "FKP" | "GBP" | "GEL" | "GHS" | "GIP" | "GMD" | "GNF" | "GTQ" | "GYD" | "HKD" | "HNL" | "HTG" | "HUF" | "IDR" | "ILS" | "INR" | "IQD" | "IRR" | "ISK" | "JMD" | "JOD" | "JPY" | "KES" | "KGS" | "KHR" | "KMF" | "KPW" | "KRW" | "KWD" | "KYD" | "KZT" | "LAK" | "LBP" | "LKR" | "LRD" | "LSL" | "LYD" | "MAD" | "MDL" | "MGA" | "MKD" | "MMK" | "MNT" | "MOP" | "MRU" | "MUR" | "MVR" | "MWK" | "MXN" | "MXV" | "MYR" | "MZN" | "NAD" | "NGN" | "NIO" | "NOK" | "NPR" | "NZD" | "OMR" | "PAB" | "PEN" | "PGK" | "PHP" | "PKR" | "PLN" | "PYG" | "QAR" | "RON" | "RSD" | "RUB" | "RWF" | "SAR" | "SBD" | "SCR" | "SDG" | "SEK" | "SGD" | "SHP" | "SLE" | "SOS" | "SRD" | "SSP" | "STN" | "SVC" | "SYP" | "SZL" | "THB" | "TJS" | "TMT" | "TND" | "TOP" | "TRY" | "TTD" | "TWD" | "TZS" | "UAH" | "UGX" | "USD" | "USN" | "UYI" | "UYU" | "UYW" | "UZS" | "VED" | "VES" | "VND" | "VUV" | "WST" | "XAD" | "XAF" | "XAG" | "XAU" | "XBA" | "XBB" | "XBC" | "XBD" | "XCD" | "XCG" | "XDR" | "XOF" | "XPD" | "XPF" | "XPT" | "XSU" | "XTS" | "XUA" | "XXX" | "YER" | "ZAR" | "ZMW" | "ZWG";

export type Ping = {
  pong: boolean;
  environment: "sandbox" | "production";
  /** compare with the client clock */
  server_time: string;
};

export type PingEnvelope = {
  success: true;
  data: Ping;
  request_id: string;
};

export type WhoamiPartner = {
  code: string;
  name: string;
};

export type WhoamiKey = {
  key_id: string;
  name: string;
  environment: "sandbox" | "production";
  requires_signature: boolean;
  expires_at: string | null;
  rate_limit_per_minute: number;
};

export type Whoami = {
  partner: WhoamiPartner;
  key: WhoamiKey;
  scopes: Array<string>;
  /** count of the partner's mapped properties in the key's environment, paused ones included */
  mapped_properties: number;
};

export type WhoamiEnvelope = {
  success: true;
  data: Whoami;
  request_id: string;
};

export type HotelSummary = {
  hotel_code: string;
  name: string;
  country: string;
  currency: string;
  max_child_age: number;
};

export type HotelList = {
  hotels: Array<HotelSummary>;
};

export type HotelListEnvelope = {
  success: true;
  data: HotelList;
  request_id: string;
};

export type MappedRoomType = {
  room_type_code: string;
  name: string;
  max_occupancy: number;
};

export type RatePlanOccupancy = {
  base_adults: number;
  max_adults: number;
  max_children: number;
  max_occupancy: number;
};

export type Penalty = {
  type: "nights" | "percent" | "amount";
  value: number;
};

export type PolicyTier = {
  /** applies when the cancellation is this many hours or fewer before 00:00 of the check-in date, property time */
  within_hours: number;
  penalty: Penalty;
};

export type CancellationPolicy = {
  non_refundable: boolean;
  tiers: Array<PolicyTier>;
};

export type MappedRatePlan = {
  rate_plan_code: string;
  name: string;
  board_type: "RO" | "BB" | "HB" | "FB" | "AI";
  currency: string;
  room_type_codes: Array<string>;
  occupancy: RatePlanOccupancy;
  cancellation_policy: CancellationPolicy;
};

export type HotelDetail = {
  hotel_code: string;
  name: string;
  country: string;
  currency: string;
  max_child_age: number;
  timezone: string;
  /** true when this partner is the hotel's receiver of bookings made by other partners: each becomes a `hotel_booking.confirmed` / `hotel_booking.cancelled` event in GET /events (set by the operator) */
  receives_bookings: boolean;
  room_types: Array<MappedRoomType>;
  rate_plans: Array<MappedRatePlan>;
};

export type HotelDetailData = {
  hotel: HotelDetail;
};

export type HotelDetailDataEnvelope = {
  success: true;
  data: HotelDetailData;
  request_id: string;
};

export type Occupancy = {
  adults: number;
  /** default 0 */
  children?: number;
  /** exactly `children` entries when sent; a child older than the property's `max_child_age` is priced as an adult */
  child_ages?: Array<number>;
};

export type SearchRequest = {
  /** today or later, property time */
  check_in: string;
  /** after check_in; at most 365 nights */
  check_out: string;
  rooms: number;
  /** one entry applied to every room, or exactly `rooms` entries (one per room) */
  occupancy: Array<Occupancy>;
  /** ISO 3166-1 alpha-2 country code */
  nationality?: CountryCode;
  /** ISO 4217; prices are converted into it */
  currency?: CurrencyCode;
  /** the partner's hotel codes, 1-200 */
  hotel_codes: Array<string>;
};

export type SearchHotel = {
  hotel_code: string;
  /** some room type and rate plan is sellable for the whole stay */
  available: boolean;
  /** cheapest whole-stay total for the requested rooms and occupancy; null when not available */
  lowest_total_amount: number | null;
  currency: string;
};

export type SearchResult = {
  /** one entry per requested code mapped and active for the caller */
  hotels: Array<SearchHotel>;
  /** every requested code not mapped and active for the caller in the key's environment: a typo, another environment's code, or a hotel whose distribution is paused */
  unknown_hotel_codes: Array<string>;
  /** the codes of `unknown_hotel_codes` that the caller maps but whose distribution is paused: not sold until resumed (the `mapping.paused` event tells of a pause) */
  paused_hotel_codes: Array<string>;
};

export type SearchResultEnvelope = {
  success: true;
  data: SearchResult;
  request_id: string;
};

export type RatesRequest = {
  /** today or later, property time */
  check_in: string;
  /** after check_in; at most 365 nights */
  check_out: string;
  rooms: number;
  /** one entry applied to every room, or exactly `rooms` entries (one per room) */
  occupancy: Array<Occupancy>;
  /** ISO 3166-1 alpha-2 country code */
  nationality?: CountryCode;
  /** ISO 4217; prices are converted into it */
  currency?: CurrencyCode;
  hotel_code: string;
  /** narrows the answer to these codes */
  room_type_codes?: Array<string>;
  /** narrows the answer to these codes */
  rate_plan_codes?: Array<string>;
};

export type Night = {
  date: string;
  /** the night's price for all the stay's rooms; null without a rate */
  amount: number | null;
  available_rooms: number;
  closed: boolean;
  min_stay: number | null;
  max_stay: number | null;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
};

export type RatePlanRates = {
  rate_plan_code: string;
  board_type: "RO" | "BB" | "HB" | "FB" | "AI";
  sellable: boolean;
  reasons: Array<"closed" | "sold_out" | "min_stay" | "max_stay" | "closed_to_arrival" | "closed_to_departure" | "occupancy" | "nationality" | "no_rate">;
  /** sum of the nights' amounts; null when a night has no rate */
  total_amount: number | null;
  nights: Array<Night>;
  cancellation_policy: CancellationPolicy;
};

export type RoomTypeRates = {
  room_type_code: string;
  rate_plans: Array<RatePlanRates>;
};

export type RatesResult = {
  hotel_code: string;
  check_in: string;
  check_out: string;
  currency: string;
  room_types: Array<RoomTypeRates>;
};

export type RatesResultEnvelope = {
  success: true;
  data: RatesResult;
  request_id: string;
};

export type Change = {
  hotel_code: string;
  /** null for `distribution` and `content` */
  room_type_code: string | null;
  /** null when the change is at the room-type level, and for `distribution` and `content` */
  rate_plan_code: string | null;
  from_date: string | null;
  /** inclusive; the range may cover dates that did not change */
  to_date: string | null;
  kinds: Array<"availability" | "rate" | "restrictions" | "distribution" | "content">;
  changed_at: string;
};

export type Changes = {
  /** oldest first; at least once (a change may appear again), never less */
  changes: Array<Change>;
  /** where the next poll starts */
  next_cursor: string;
  /** true: more changes are ready now, poll again at once */
  has_more: boolean;
};

export type ChangesEnvelope = {
  success: true;
  data: Changes;
  request_id: string;
};

export type QuoteRequest = {
  /** today or later, property time */
  check_in: string;
  /** after check_in; at most 365 nights */
  check_out: string;
  rooms: number;
  /** one entry applied to every room, or exactly `rooms` entries (one per room) */
  occupancy: Array<Occupancy>;
  /** ISO 3166-1 alpha-2 country code */
  nationality?: CountryCode;
  /** ISO 4217; prices are converted into it */
  currency?: CurrencyCode;
  hotel_code: string;
  room_type_code: string;
  rate_plan_code: string;
};

export type QuoteResult = {
  hotel_code: string;
  room_type_code: string;
  rate_plan_code: string;
  check_in: string;
  check_out: string;
  rooms: number;
  total_amount: number;
  currency: string;
  /** send with POST /bookings within the validity; at most 512 characters; signed, not encrypted */
  quote_token: string;
  expires_at: string;
  nights: Array<Night>;
  cancellation_policy: CancellationPolicy;
};

export type QuoteResultEnvelope = {
  success: true;
  data: QuoteResult;
  request_id: string;
};

export type Guest = {
  /** 1 to `rooms` */
  room_number: number;
  first_name: string;
  last_name: string;
  is_adult: boolean;
  /** a child's age prices it (older than the property's `max_child_age`: as an adult); a child without an age is priced as a child */
  age?: number;
  /** ISO 3166-1 alpha-2 country code */
  nationality?: CountryCode;
  /** at most one guest; the lead guest's nationality is the booking's when no quote_token is sent (else the first adult of room 1's) */
  is_lead?: boolean;
};

export type Contact = {
  first_name: string;
  last_name?: string;
  /** valid by a standard e-mail validator, which also bounds the parts (at most 64 characters before the @, 254 in all) */
  email: string;
  phone?: string;
};

export type BookingRequest = {
  /** the idempotency key: unique per partner and environment */
  partner_reference: string;
  /** from POST /bookings/quote: the quoted total and currency apply */
  quote_token?: string;
  hotel_code: string;
  room_type_code: string;
  rate_plan_code: string;
  /** today or later, property time */
  check_in: string;
  /** after check_in */
  check_out: string;
  rooms: number;
  /** per room, keyed by `room_number`; every room 1..`rooms` has at least one `is_adult` guest; the occupancy that prices the booking comes from here */
  guests: Array<Guest>;
  contact: Contact;
  /** the partner's expected total; must equal the service's to the minor unit, else 409 `price_mismatch`; at most 6 decimal places */
  total_amount: number;
  /** ISO 4217 currency code */
  currency: CurrencyCode;
  special_requests?: string;
  arrival_time?: string;
};

export type StayNight = {
  date: string;
  /** the night's price, all rooms */
  amount: number;
};

export type Booking = {
  hotel_code: string;
  room_type_code: string;
  rate_plan_code: string;
  check_in: string;
  check_out: string;
  rooms: number;
  total_amount: number;
  currency: string;
  partner_reference: string;
  confirmation_number: string;
  status: "confirmed" | "cancelled";
  nights: Array<StayNight>;
  /** as in force when the booking was made; the penalty follows it */
  cancellation_policy: CancellationPolicy;
  /** null once `guest_data_purged` */
  guests: Array<Guest> | null;
  /** null once `guest_data_purged` */
  contact: Contact | {
    [key: string]: unknown;
  } | null;
  special_requests?: string | null;
  arrival_time?: string | null;
  created_at: string;
  /** null until cancelled */
  cancelled_at: string | null;
  /** null until cancelled */
  penalty_amount: number | null;
  /** true once the guests' personal data expired (the service keeps it for a set time after check-out): `guests`, `contact` and `special_requests` are then null; the stay, amounts, references and policy stay */
  guest_data_purged: boolean;
  /** when it expired; null while the booking holds it */
  guest_data_purged_at: string | null;
  /** the hotel's own confirmation code, as its system gave it when it acknowledged the booking (what the front desk knows the stay by); null until the hotel gives one, and replaced when it gives another */
  hotel_confirmation_code: string | null;
  /** when the hotel's system first said it loaded the confirmed booking; null until then (a booking cancelled before the hotel loaded it stays null) */
  hotel_acknowledged_at: string | null;
};

export type BookingResult = {
  booking: Booking;
  /** true when partner_reference was already a booking: that booking is returned (200) and nothing else happens */
  idempotent_replay: boolean;
  /** on a replay, true when this body differs from the original's */
  request_differs: boolean;
};

export type BookingResultEnvelope = {
  success: true;
  data: BookingResult;
  request_id: string;
};

export type BookingList = {
  /** oldest `created_at` first */
  bookings: Array<Booking>;
  /** null exactly when `has_more` is false */
  next_cursor: string | null;
  has_more: boolean;
};

export type BookingListEnvelope = {
  success: true;
  data: BookingList;
  request_id: string;
};

export type BookingData = {
  booking: Booking;
};

export type BookingDataEnvelope = {
  success: true;
  data: BookingData;
  request_id: string;
};

export type CancelRequest = {
  reason?: string;
  /** the most the caller accepts to pay; a higher penalty is 409 `penalty_exceeds_expectation` and nothing is cancelled; at most 6 decimal places */
  expected_penalty_amount?: number;
  /** of expected_penalty_amount: the booking's currency (422 otherwise) */
  currency?: CurrencyCode;
};

export type CancelResult = {
  booking: Booking;
  penalty_amount: number;
  currency: string;
  /** true when the booking was already cancelled: the recorded result */
  idempotent_replay: boolean;
};

export type CancelResultEnvelope = {
  success: true;
  data: CancelResult;
  request_id: string;
};

export type HotelBooking = {
  /** the service's number of the booking: what the hotel acknowledges */
  confirmation_number: string;
  status: "confirmed" | "cancelled";
  check_in: string;
  check_out: string;
  rooms: number;
  nights: Array<StayNight>;
  total_amount: number;
  currency: string;
  cancellation_policy: CancellationPolicy;
  /** null once `guest_data_purged` */
  guests: Array<Guest> | null;
  /** null once `guest_data_purged` */
  contact: Contact | {
    [key: string]: unknown;
  } | null;
  created_at: string;
  cancelled_at: string | null;
  penalty_amount: number | null;
  /** your code of the hotel */
  hotel_code: string;
  /** your code of the room type; null when you map none (see `unmapped`) */
  room_type_code: string | null;
  /** your code of the rate plan; null when you map none (see `unmapped`) */
  rate_plan_code: string | null;
  /** the booking partner's display name */
  channel_name: string;
  /** the levels you have no code for */
  unmapped: Array<"room_type" | "rate_plan">;
  /** true when the hotel acknowledged the booking's current status; a cancellation after an acknowledgement makes it false until the cancellation is acknowledged */
  acknowledged: boolean;
  /** when the current status was first acknowledged; null while it is not */
  acknowledged_at: string | null;
  /** the hotel's own code, as last acknowledged with it; null until given */
  hotel_confirmation_code: string | null;
  /** true once the guests' personal data expired: `guests` and `contact` are then null (the hotel_booking.* events show the same once purged) */
  guest_data_purged: boolean;
  guest_data_purged_at: string | null;
};

export type HotelBookingList = {
  /** oldest `created_at` first */
  hotel_bookings: Array<HotelBooking>;
  /** null exactly when `has_more` is false */
  next_cursor: string | null;
  has_more: boolean;
};

export type HotelBookingListEnvelope = {
  success: true;
  data: HotelBookingList;
  request_id: string;
};

export type HotelBookingData = {
  hotel_booking: HotelBooking;
};

export type HotelBookingDataEnvelope = {
  success: true;
  data: HotelBookingData;
  request_id: string;
};

export type AcknowledgeRequest = {
  /** the status the hotel's system loaded; must be the booking's current one (409 `status_changed` otherwise, nothing stored) */
  status: "confirmed" | "cancelled";
  /** the hotel's own confirmation code; replaces the stored one, left out keeps it */
  hotel_confirmation_code?: string;
};

export type AriItem = {
  /** not sellable whatever the availability */
  closed?: boolean;
  /** nights, judged on the check-in date */
  min_stay?: number;
  /** nights, judged on the check-in date */
  max_stay?: number;
  closed_to_arrival?: boolean;
  closed_to_departure?: boolean;
  room_type_code: string;
  /** absent for an update of inventory (or room-type restrictions) only */
  rate_plan_code?: string;
  date: string;
  /** rooms left to sell for the room type on this date */
  availability?: number;
  /** per night, per room, in the rate plan's currency; at most 6 decimal places */
  rate?: number;
  /** ISO 4217; when sent it must be the rate plan's (else a rejected row) */
  currency?: CurrencyCode;
  /** the night's price for one adult; at most 6 decimal places */
  single_rate?: number;
  /** per adult above the plan's base; at most 6 decimal places */
  extra_adult_rate?: number;
  /** per child; at most 6 decimal places */
  extra_child_rate?: number;
};

export type AriRequest = {
  hotel_code: string;
  /** 1-5000 per-date upserts (a hard cap: split larger pushes) */
  items: Array<AriItem>;
};

export type RejectedRow = {
  /** 0-based position in items */
  index: number;
  code: "currency_mismatch" | "date_in_past" | "date_too_far" | "min_stay_above_max_stay" | "price_without_rate_plan" | "rate_plan_not_for_room_type" | "sandbox_scenario" | "unknown_rate_plan" | "unknown_room_type";
  message: string;
};

export type FieldChange = {
  /** 0-based position in items of the item whose value would be in force */
  index: number;
  room_type_code: string;
  /** null when the field is the room type's (availability, or restrictions sent without rate_plan_code) */
  rate_plan_code: string | null;
  date: string;
  field: "availability" | "rate" | "single_rate" | "extra_adult_rate" | "extra_child_rate" | "closed" | "min_stay" | "max_stay" | "closed_to_arrival" | "closed_to_departure";
  /** the stored value now, null when never set */
  from: unknown | null;
  /** the value the push would store */
  to: unknown;
};

export type DryRunResult = {
  dry_run: true;
  item_count: number;
  applied_count: number;
  rejected_count: number;
  /** exactly the rows the real push would report rejected if applied now */
  rejected: Array<RejectedRow>;
  /** every stored field the push would change; a restrictions item gives one change per date and field */
  changes: Array<FieldChange>;
};

export type DryRunResultEnvelope = {
  success: true;
  data: DryRunResult;
  request_id: string;
};

export type BatchAccepted = {
  batch_id: string;
  status: "queued";
  item_count: number;
};

export type BatchAcceptedEnvelope = {
  success: true;
  data: BatchAccepted;
  request_id: string;
};

export type RestrictionItem = {
  /** not sellable whatever the availability */
  closed?: boolean;
  /** nights, judged on the check-in date */
  min_stay?: number;
  /** nights, judged on the check-in date */
  max_stay?: number;
  closed_to_arrival?: boolean;
  closed_to_departure?: boolean;
  room_type_code: string;
  /** absent: the restriction is the room type's, for all its rate plans */
  rate_plan_code?: string;
  from_date: string;
  /** on or after from_date; inclusive */
  to_date: string;
  /** 0 = Monday ... 6 = Sunday; the weekdays of the range it applies to. Absent: all seven (an empty list selects none and is refused) */
  days_of_week?: Array<number>;
};

export type RestrictionsRequest = {
  hotel_code: string;
  /** 1-1000 date-range upserts */
  items: Array<RestrictionItem>;
};

export type BatchOutcome = {
  batch_id: string;
  kind: "ari" | "restrictions";
  hotel_code: string;
  status: "queued" | "processing" | "applied" | "partially_applied" | "rejected" | "failed";
  item_count: number;
  applied_count: number;
  rejected_count: number;
  rejected: Array<RejectedRow>;
  received_at: string;
  /** when the outcome was recorded; null while queued or processing */
  applied_at: string | null;
};

export type BatchOutcomeEnvelope = {
  success: true;
  data: BatchOutcome;
  request_id: string;
};

export type RoomTypeDay = {
  date: string;
  closed: boolean | null;
  min_stay: number | null;
  max_stay: number | null;
  closed_to_arrival: boolean | null;
  closed_to_departure: boolean | null;
  /** rooms left to sell */
  availability: number | null;
  /** rooms of the night held by confirmed pull bookings and live pushed reservations of every partner */
  rooms_sold: number;
  /** per field that has a value: the batch_id of the batch whose value is in force, or `other_partner` when another partner pushed it */
  set_by: {
    [key: string]: string;
  };
};

export type RatePlanDay = {
  date: string;
  closed: boolean | null;
  min_stay: number | null;
  max_stay: number | null;
  closed_to_arrival: boolean | null;
  closed_to_departure: boolean | null;
  rate: number | null;
  single_rate: number | null;
  extra_adult_rate: number | null;
  extra_child_rate: number | null;
  /** per field that has a value: the batch_id of the batch whose value is in force, or `other_partner` when another partner pushed it */
  set_by: {
    [key: string]: string;
  };
};

export type ReadBackRatePlan = {
  rate_plan_code: string;
  currency: string;
  days: Array<RatePlanDay>;
};

export type ReadBackRoomType = {
  room_type_code: string;
  days: Array<RoomTypeDay>;
  rate_plans: Array<ReadBackRatePlan>;
};

export type ReadBack = {
  hotel_code: string;
  from_date: string;
  to_date: string;
  room_types: Array<ReadBackRoomType>;
};

export type ReadBackEnvelope = {
  success: true;
  data: ReadBack;
  request_id: string;
};

export type NightlyRate = {
  date: string;
  /** for one room unit, that night; at most 6 decimal places */
  amount: number;
};

export type PushedRoom = {
  /** an unmapped code is accepted, kept and flagged `unmapped_room_type` */
  room_type_code: string;
  /** an unmapped code is accepted, kept and flagged `unmapped_rate_plan` */
  rate_plan_code?: string;
  quantity: number;
  /** at least 1: a room with no adult is rejected */
  adults: number;
  children?: number;
  child_ages?: Array<number>;
  /** per room unit, one entry per night of the stay; without it the total is unverified */
  nightly_rates?: Array<NightlyRate>;
};

export type ReservationGuest = {
  room_number: number;
  first_name: string;
  last_name?: string;
  is_adult: boolean;
  /** ISO 3166-1 alpha-2 country code */
  nationality?: CountryCode;
};

export type ReservationContact = {
  /** valid by a standard e-mail validator, which also bounds the parts (at most 64 characters before the @, 254 in all) */
  email?: string;
  phone?: string;
};

export type ReservationRequest = {
  /** the idempotency key (the channel's id) */
  partner_reference: string;
  guest_confirmation?: string;
  /** mapped for the caller (a paused mapping still accepts reservations) */
  hotel_code: string;
  status: "confirmed" | "cancelled" | "modified";
  check_in: string;
  /** after check_in; at most 365 nights */
  check_out: string;
  rooms: Array<PushedRoom>;
  guests: Array<ReservationGuest>;
  contact?: ReservationContact;
  /** what the guest paid the channel; needs `sell_currency`; at most 6 decimal places */
  sell_amount?: number;
  /** ISO 4217 currency code */
  sell_currency?: CurrencyCode;
  /** what the channel owes the service; at most 6 decimal places */
  net_amount: number;
  /** ISO 4217 currency code */
  net_currency: CurrencyCode;
  is_non_refundable?: boolean;
  cancellation_deadline?: string;
  special_requests?: string;
  booked_at?: string;
};

export type NightlyRateOut = {
  date: string;
  amount: number;
};

export type RoomOut = {
  room_type_code: string;
  rate_plan_code?: string;
  quantity: number;
  adults: number;
  children?: number;
  child_ages?: Array<number>;
  nightly_rates?: Array<NightlyRateOut>;
};

export type GuestOut = {
  room_number: number;
  first_name: string;
  last_name?: string;
  is_adult: boolean;
  nationality?: string;
};

export type ContactOut = {
  email?: string;
  phone?: string;
};

export type Reservation = {
  partner_reference: string;
  status: "confirmed" | "cancelled" | "modified";
  /** false while only a cancel or a modify of it has arrived; the fields of its content are then null */
  received: boolean;
  guest_confirmation?: string | null;
  hotel_code?: string | null;
  check_in?: string | null;
  check_out?: string | null;
  rooms?: Array<RoomOut> | null;
  /** null before the reservation arrived, and once `guest_data_purged` */
  guests?: Array<GuestOut> | null;
  /** null when not sent, and once `guest_data_purged` */
  contact?: ContactOut | {
    [key: string]: unknown;
  } | null;
  sell_amount?: number | null;
  sell_currency?: string | null;
  net_amount?: number | null;
  net_currency?: string | null;
  is_non_refundable?: boolean | null;
  cancellation_deadline?: string | null;
  special_requests?: string | null;
  booked_at?: string | null;
  modified_at?: string | null;
  /** when the reservation itself arrived */
  received_at?: string | null;
  /** when the first delivery of this reference arrived */
  created_at: string;
  updated_at: string;
  /** deliveries of this reference received so far, redeliveries included */
  version: number;
  /** true once the guests' personal data expired (the service keeps it for a set time after check-out): `guests`, `contact` and `special_requests` are then null; the stay, rooms, amounts and references stay */
  guest_data_purged: boolean;
  /** when it expired; null while the reservation holds it */
  guest_data_purged_at: string | null;
};

export type Acknowledgement = {
  /** names the delivery; a redelivery gets the original's */
  ack_id: string;
  received_at: string;
};

export type ReconciliationItem = {
  code: "inventory_shortfall" | "orphan_cancellation" | "unknown_modification" | "modification_after_cancellation" | "unmapped_room_type" | "unmapped_rate_plan" | "nightly_rates_missing" | "nightly_rates_mismatch" | "penalty_claim_differs";
  message: string;
};

export type DeliveryResult = {
  reservation: Reservation;
  acknowledgement: Acknowledgement;
  idempotent_replay: boolean;
  /** on a redelivery: its body differs from the original's (which stands) */
  request_differs?: boolean;
  /** what this delivery disagrees on; empty when clean */
  reconciliation: Array<ReconciliationItem>;
};

export type DeliveryResultEnvelope = {
  success: true;
  data: DeliveryResult;
  request_id: string;
};

export type RecordedReservation = {
  partner_reference: string;
  status: "confirmed" | "cancelled" | "modified";
  /** false while only a cancel or a modify of it has arrived; the fields of its content are then null */
  received: boolean;
  guest_confirmation?: string | null;
  hotel_code?: string | null;
  check_in?: string | null;
  check_out?: string | null;
  rooms?: Array<RoomOut> | null;
  /** null before the reservation arrived, and once `guest_data_purged` */
  guests?: Array<GuestOut> | null;
  /** null when not sent, and once `guest_data_purged` */
  contact?: ContactOut | {
    [key: string]: unknown;
  } | null;
  sell_amount?: number | null;
  sell_currency?: string | null;
  net_amount?: number | null;
  net_currency?: string | null;
  is_non_refundable?: boolean | null;
  cancellation_deadline?: string | null;
  special_requests?: string | null;
  booked_at?: string | null;
  modified_at?: string | null;
  /** when the reservation itself arrived */
  received_at?: string | null;
  /** when the first delivery of this reference arrived */
  created_at: string;
  updated_at: string;
  /** deliveries of this reference received so far, redeliveries included */
  version: number;
  /** true once the guests' personal data expired (the service keeps it for a set time after check-out): `guests`, `contact` and `special_requests` are then null; the stay, rooms, amounts and references stay */
  guest_data_purged: boolean;
  /** when it expired; null while the reservation holds it */
  guest_data_purged_at: string | null;
  /** true when a cancellation arrived before the reservation itself */
  orphan: boolean;
};

export type ReservationVersion = {
  /** from 1: the first delivery, each modify and the cancel add one (a redelivery is not one) */
  version: number;
  status: "confirmed" | "cancelled" | "modified";
  received_at: string;
  ack_id: string;
};

export type RecordedItem = {
  code: "inventory_shortfall" | "orphan_cancellation" | "unknown_modification" | "modification_after_cancellation" | "unmapped_room_type" | "unmapped_rate_plan" | "nightly_rates_missing" | "nightly_rates_mismatch" | "penalty_claim_differs";
  message: string;
  created_at: string;
  /** when the operator resolved it; null while open */
  resolved_at: string | null;
};

export type ReservationRecord = {
  reservation: RecordedReservation;
  /** oldest first */
  versions: Array<ReservationVersion>;
  /** every item raised by this reservation's deliveries, oldest first */
  reconciliation: Array<RecordedItem>;
};

export type ReservationRecordEnvelope = {
  success: true;
  data: ReservationRecord;
  request_id: string;
};

export type ReservationCancelRequest = {
  /** the reservation's hotel, mapped for the caller. Optional; when it is sent for a reservation received before, it must be that reservation's hotel */
  hotel_code?: string;
  /** the day the guest cancelled; else the day the cancellation arrived (property time) */
  cancelled_at?: string;
  reason?: string;
  /** the partner's claim; recorded, not applied; at most 6 decimal places */
  penalty_amount?: number;
  /** ISO 4217; default the reservation's `net_currency` */
  penalty_currency?: CurrencyCode;
};

export type ReservationPenalty = {
  /** the service's penalty; null until the reservation is known */
  amount: number | null;
  currency: string | null;
  /** the partner's `penalty_amount`, recorded, not applied */
  partner_claim: number | null;
  partner_claim_currency?: string | null;
};

export type ReservationCancelResult = {
  reservation: Reservation;
  acknowledgement: Acknowledgement;
  idempotent_replay: boolean;
  /** on a redelivery: its body differs from the original's (which stands) */
  request_differs?: boolean;
  /** what this delivery disagrees on; empty when clean */
  reconciliation: Array<ReconciliationItem>;
  penalty: ReservationPenalty;
  /** true when the reservation had not been received */
  orphan: boolean;
};

export type ReservationCancelResultEnvelope = {
  success: true;
  data: ReservationCancelResult;
  request_id: string;
};

export type ModifiedRoom = {
  room_type_code: string;
  quantity: number;
  adults: number;
  children?: number;
};

export type ModifyRequest = {
  /** the reservation's hotel, mapped for the caller. Optional; when it is sent for a reservation received before, it must be that reservation's hotel */
  hotel_code?: string;
  check_in: string;
  /** after check_in; at most 365 nights */
  check_out: string;
  rooms: Array<ModifiedRoom>;
  /** At most 6 decimal places */
  net_amount: number;
  /** ISO 4217 currency code */
  net_currency: CurrencyCode;
  modified_at?: string;
};

export type Event = {
  /** the same on every reading and every webhook delivery: deduplicate by it */
  event_id: string;
  type: "ari_batch.finished" | "booking.confirmed" | "booking.cancelled" | "booking.hotel_confirmed" | "hotel_booking.confirmed" | "hotel_booking.cancelled" | "reservation.flagged" | "mapping.paused" | "mapping.resumed";
  created_at: string;
  /** by type: `ari_batch.finished` the batch as GET /ari/batches/{batchId} answers it; `booking.*` and `hotel_booking.*` `{"booking"}`; `reservation.flagged` `partner_reference`, `hotel_code`, `code`, `message`; `mapping.*` `hotel_code` (the operation's description says more) */
  data: {
    [key: string]: unknown;
  };
};

export type Events = {
  /** oldest first; at least once (an event may appear again, with the same event_id), never less */
  events: Array<Event>;
  /** always a string: where the next poll starts */
  next_cursor: string;
  /** true: more events are ready now, poll again at once */
  has_more: boolean;
};

export type EventsEnvelope = {
  success: true;
  data: Events;
  request_id: string;
};

export type WebhookEndpointRequest = {
  /** absolute; production keys https only, sandbox keys http or https; the host must be, or resolve only to, public addresses (loopback only for sandbox keys of a service whose operator allows it, such as a local demo); port 80, 443 or 1024-65535; checked again at every delivery */
  url: string;
  /** 1-20 types of GET /events (`ari_batch.finished`, `booking.confirmed`, `booking.cancelled`, `booking.hotel_confirmed`, `hotel_booking.confirmed`, `hotel_booking.cancelled`, `reservation.flagged`, `mapping.paused`, `mapping.resumed`), or `["*"]` alone for every type the key may see */
  event_types: Array<"ari_batch.finished" | "booking.confirmed" | "booking.cancelled" | "booking.hotel_confirmed" | "hotel_booking.confirmed" | "hotel_booking.cancelled" | "reservation.flagged" | "mapping.paused" | "mapping.resumed" | "*">;
  /** 1-200 characters of text, or null */
  description?: string | null;
};

export type WebhookEndpoint = {
  endpoint_id: string;
  url: string;
  /** as sent at creation (`["*"]` stays so) */
  event_types: Array<"ari_batch.finished" | "booking.confirmed" | "booking.cancelled" | "booking.hotel_confirmed" | "hotel_booking.confirmed" | "hotel_booking.cancelled" | "reservation.flagged" | "mapping.paused" | "mapping.resumed" | "*">;
  description: string | null;
  /** `enabled`; `disabled` after 5 days of failing deliveries (POST .../enable enables it); `deleted` only in the answer of DELETE */
  status: "enabled" | "disabled" | "deleted";
  created_at: string;
};

export type WebhookEndpointCreated = {
  endpoint: WebhookEndpoint;
  /** `whsec_` and the base64 of 32 random bytes: the key of every delivery's signature. Shown only in this answer: keep it. */
  secret: string;
};

export type WebhookEndpointCreatedEnvelope = {
  success: true;
  data: WebhookEndpointCreated;
  request_id: string;
};

export type WebhookEndpointList = {
  /** oldest first; never a secret */
  endpoints: Array<WebhookEndpoint>;
};

export type WebhookEndpointListEnvelope = {
  success: true;
  data: WebhookEndpointList;
  request_id: string;
};

export type WebhookEndpointAnswer = {
  endpoint: WebhookEndpoint;
};

export type WebhookEndpointAnswerEnvelope = {
  success: true;
  data: WebhookEndpointAnswer;
  request_id: string;
};

export type WebhookPing = {
  event_id: string;
  type: "ping";
  created_at: string;
  data: {
    [key: string]: unknown;
  };
};

export type WebhookPingEnvelope = {
  success: true;
  data: WebhookPing;
  request_id: string;
};

export type WebhookDelivery = {
  /** the event's id, sent as `webhook-id` */
  event_id: string;
  /** the event's type, or `ping` */
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  last_attempt_at: string | null;
  /** the endpoint's last HTTP status; null when it gave none (a timeout, a refused connection, a URL refused by the rules) */
  last_status_code: number | null;
  /** why the last attempt failed; null after a success */
  last_error: string | null;
  /** when a pending delivery is tried next; null once delivered or failed */
  next_attempt_at: string | null;
};

export type WebhookDeliveryList = {
  /** newest first */
  deliveries: Array<WebhookDelivery>;
  /** null exactly when has_more is false */
  next_cursor: string | null;
  has_more: boolean;
};

export type WebhookDeliveryListEnvelope = {
  success: true;
  data: WebhookDeliveryList;
  request_id: string;
};

export type WebhookReplay = {
  event_id: string;
};

export type WebhookReplayEnvelope = {
  success: true;
  data: WebhookReplay;
  request_id: string;
};
