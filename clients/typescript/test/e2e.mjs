// The client end to end against a sandbox (the service and its worker): the recommended call
// order, idempotent bookings, retrieval and the event log, errors, retries after Retry-After,
// signing and the clock.
// tests/system/clients/test_typescript_client.py runs it against the live test service; run it
// against your own sandbox with PCS_URL, PCS_PULL_TOKEN and PCS_PUSH_TOKEN set (npm test), and
// PCS_CHANNEL_TOKEN for the hotel's side (the demo-channel key).
// It prints one JSON line of what it saw, and exits non-zero at the first surprise.
//
// A sandbox already used (by an earlier run, the walk-through, your own tries) holds bookings
// and events of its own: this run books under references of its own on a stay of its own, a
// random one 100 to 330 days ahead (past the demo's closed and restricted days, inside its
// 365 days of ARI), and reads back only what it made since it started (bookings created since,
// on that check-in day; events after the position it took first).
import assert from "node:assert/strict";

import { ApiError, Client, InvalidRequest } from "../src/index.js";

const { PCS_URL, PCS_PULL_TOKEN, PCS_PUSH_TOKEN } = process.env;
const GUESTS = [{ room_number: 1, first_name: "Ana", last_name: "Silva", is_adult: true },
                { room_number: 1, first_name: "Rui", last_name: "Silva", is_adult: true }];
const CONTACT = { first_name: "Ana", email: "ana@example.com" };
const reference = process.env.PCS_REFERENCE ??
  `ts-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// Two nights in the demo hotels' timezone, on a day of this run's own.
const today = new Date().toLocaleDateString("en-CA", { timeZone: "Europe/Lisbon" });
const plus = (days) => new Date(Date.parse(today) + days * 86400000).toISOString().slice(0, 10);
const ahead = 100 + Math.floor(Math.random() * 230);
const checkIn = plus(ahead), checkOut = plus(ahead + 2);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function collect(iterator) {
  const all = [];
  for await (const item of iterator) all.push(item);
  return all;
}

const sleeps = [];
const recordSleep = async (seconds) => { sleeps.push(seconds); };
const pull = new Client(PCS_URL, PCS_PULL_TOKEN);
const push = new Client(PCS_URL, PCS_PUSH_TOKEN, { signed: true });
const seen = {};

// the handshake
assert.ok(Math.abs(await pull.checkClock()) < 150);
const me = await pull.whoami();
assert.deepEqual([me.partner.code, me.key.environment, me.mapped_properties], ["acme", "sandbox", 2]);
const cursor = (await pull.request("GET", "/availability/changes")).next_cursor;
const eventsFrom = (await pull.request("GET", "/events", { query: { start: "latest" } }))
  .next_cursor;
const since = (await pull.ping()).server_time;   // this run's bookings are created from here on
const ours = { createdFrom: since, checkInFrom: checkIn, checkInTo: checkIn };
seen.check_in = checkIn;

// mapping, search, rates
assert.deepEqual((await pull.hotels()).map((h) => h.hotel_code), ["ACME-LIS", "ACME-OPO"]);
assert.equal((await pull.hotel("ACME-LIS")).timezone, "Europe/Lisbon");
const found = await pull.search(["ACME-LIS", "ACME-OPO", "NOPE"], checkIn, checkOut);
assert.deepEqual(found.hotels.map((h) => h.available), [true, true]);
assert.deepEqual(found.unknown_hotel_codes, ["NOPE"]);
const rates = await pull.rates("ACME-LIS", checkIn, checkOut,
                               { roomTypeCodes: ["ACME-DBL"], ratePlanCodes: ["ACME-BAR"] });
const flexible = rates.room_types[0].rate_plans[0];

// quote, book (twice: one booking), read, cancel
const quote = await pull.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", checkIn, checkOut);
assert.equal(quote.total_amount, flexible.total_amount);
const booked = await pull.book(quote, { guests: GUESTS, contact: CONTACT, partnerReference: reference });
assert.deepEqual([booked.booking.status, booked.idempotent_replay], ["confirmed", false]);
const again = await pull.book(quote, { guests: GUESTS, contact: CONTACT, partnerReference: reference });
assert.equal(again.idempotent_replay, true);
assert.equal(again.booking.confirmation_number, booked.booking.confirmation_number);
const other = await pull.book(quote, { guests: GUESTS, contact: CONTACT,
                                      partnerReference: `${reference}-B` });
assert.equal((await pull.booking(reference)).status, "confirmed");
const cancelled = await pull.cancel(reference, { expectedPenaltyAmount: 0, currency: "EUR" });
assert.deepEqual([cancelled.booking.status, cancelled.penalty_amount], ["cancelled", 0]);
seen.reference = reference;
seen.confirmation_number = booked.booking.confirmation_number;

// retrieval: the bookings listed (one a page here: the pages are followed), and filtered
const listed = await collect(pull.listBookings({ limit: 1, ...ours }));
assert.deepEqual(listed.map((b) => [b.partner_reference, b.status]),
                 [[reference, "cancelled"], [`${reference}-B`, "confirmed"]]);
assert.deepEqual((await collect(pull.listBookings({ status: "confirmed", ...ours })))
  .map((b) => b.confirmation_number), [other.booking.confirmation_number]);
assert.deepEqual(await collect(pull.listBookings({ hotelCode: "ACME-OPO", createdFrom: since })),
                 []);
seen.listed = listed.length;

// the event log from the position taken first. An event is listed once every transaction
// older than it on the database server has ended: read again until all three show.
const kinds = ["booking.confirmed", "booking.cancelled"];
let events = [];
for (const until = Date.now() + 60000; events.length < 3; await pause(200)) {
  assert.ok(Date.now() < until, `not three booking events within 60 s: ${JSON.stringify(events)}`);
  events = await collect(pull.events(eventsFrom, { types: kinds, limit: 2 }));
}
assert.deepEqual(events.map(([e]) => [e.type, e.data.booking.partner_reference]), [
  ["booking.confirmed", reference], ["booking.confirmed", `${reference}-B`],
  ["booking.cancelled", reference]]);
assert.deepEqual(await collect(pull.events(events.at(-1)[1], { types: kinds })), []);  // resumed
assert.deepEqual(await collect(pull.events(null, { start: "latest", types: kinds })), []);
seen.events = events.map(([e]) => e.event_id);

// an error: its code, details and request id
await assert.rejects(pull.quote("ACME-LIS", "ACME-DBL", "ACME-RES", checkIn, checkOut), (error) => {
  assert.ok(error instanceof ApiError);
  assert.deepEqual([error.status, error.code, error.retryable], [409, "not_sellable", false]);
  assert.ok(error.details.reasons.length > 0 && error.requestId);
  return true;
});
await assert.rejects(pull.booking("a/b"), InvalidRequest);   // refused before sending

// retries: 429 with Retry-After, waited (recorded here), then given up after maxAttempts
const patient = new Client(PCS_URL, PCS_PULL_TOKEN, { maxAttempts: 3, sleep: recordSleep });
await assert.rejects(patient.withScenario("rate_limited").hotels(), (error) => {
  assert.deepEqual([error.status, error.code, error.retryAfter], [429, "rate_limited", 1]);
  return true;
});
seen.sleeps = sleeps;
assert.match(pull.lastRateLimit, /^"default";r=\d+;t=\d+$/);

// the push side, signed: one item applied, one rejected
const accepted = await push.pushAri("ACME-LIS", [
  { room_type_code: "ACME-DBL", rate_plan_code: "ACME-BAR", date: checkIn, rate: "133.50",
    availability: 4 },
  { room_type_code: "ACME-NOPE", date: checkIn, availability: 1 }]);
assert.deepEqual([accepted.status, accepted.item_count], ["queued", 2]);
const batch = await push.waitForBatch(accepted.batch_id, { timeout: 120, every: 0.2 });
assert.deepEqual([batch.status, batch.applied_count], ["partially_applied", 1]);
assert.deepEqual(batch.rejected.map((r) => [r.index, r.code]), [[1, "unknown_room_type"]]);
const night = await pull.rates("ACME-LIS", checkIn, plus(ahead + 1),
                               { roomTypeCodes: ["ACME-DBL"], ratePlanCodes: ["ACME-BAR"] });
assert.equal(night.room_types[0].rate_plans[0].total_amount, 133.5);
seen.batch_status = batch.status;

// a reservation pushed by the channel manager, read back with its versions and reconciliation
await push.request("POST", "/reservations", { body: {
  partner_reference: `${reference}-CM`, hotel_code: "ACME-LIS", status: "confirmed",
  check_in: checkIn, check_out: checkOut,
  rooms: [{ room_type_code: "ACME-DBL", rate_plan_code: "ACME-BAR", quantity: 1, adults: 2 }],
  guests: [GUESTS[0]], net_amount: "170.00", net_currency: "EUR" } });
const record = await push.getReservation(`${reference}-CM`);
assert.deepEqual([record.reservation.status, record.reservation.orphan], ["confirmed", false]);
assert.deepEqual(record.versions.map((v) => v.version), [1]);
assert.deepEqual(record.reconciliation.map((i) => i.code), ["nightly_rates_missing"]);
await assert.rejects(push.getReservation(`${reference}-NONE`), (error) => error.status === 404);
await assert.rejects(push.getReservation("a/b"), InvalidRequest);
seen.reservation_versions = record.versions.length;

// the change feed since the start: the pushed ARI and the booking show for ACME-LIS. A change
// is listed once every transaction older than it on the database server has ended, so on a
// busy server it may take a moment: read again from the last cursor until it shows.
const changes = [];
let position = cursor;
for (const until = Date.now() + 60000; !changes.some((c) => c.hotel_code === "ACME-LIS");) {
  assert.ok(Date.now() < until, `no ACME-LIS change listed within 60 s: ${JSON.stringify(changes)}`);
  for await (const [change, next] of pull.changes(position)) {
    assert.equal(typeof next, "string");
    changes.push(change);
    position = next;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
seen.changes = changes.length;

// the hotel's side (PCS_CHANNEL_TOKEN: lisboa-cm, ACME-LIS's receiver in the demo catalogue):
// what it has not loaded yet, its acknowledgement with the hotel's code, which acme then sees
if (process.env.PCS_CHANNEL_TOKEN) {
  const channel = new Client(PCS_URL, process.env.PCS_CHANNEL_TOKEN);
  // this run's among them (a used sandbox holds others: the walk-through's, earlier runs')
  const mine = new Set([booked, other].map((b) => b.booking.confirmation_number));
  const waiting = (await collect(channel.listHotelBookings({ acknowledged: false, limit: 1 })))
    .filter((b) => mine.has(b.confirmation_number));
  assert.deepEqual(waiting.map((b) => [b.confirmation_number, b.status]), [
    [booked.booking.confirmation_number, "cancelled"],
    [other.booking.confirmation_number, "confirmed"]]);
  const loaded = await channel.acknowledge(other.booking.confirmation_number, "confirmed",
                                           { hotelConfirmationCode: "LIS-77" });
  assert.deepEqual([loaded.acknowledged, loaded.hotel_confirmation_code], [true, "LIS-77"]);
  assert.deepEqual(await channel.hotelBooking(other.booking.confirmation_number), loaded);
  assert.equal((await pull.booking(`${reference}-B`)).hotel_confirmation_code, "LIS-77");
  await assert.rejects(channel.acknowledge(booked.booking.confirmation_number, "confirmed"),
    (error) => error.code === "status_changed" && error.details.status === "cancelled");
  seen.hotel_confirmation_code = loaded.hotel_confirmation_code;
}

// a clock 10 minutes behind: stale_request says by how much, and clockOffset makes up for it
const late = new Client(PCS_URL, PCS_PUSH_TOKEN, { signed: true, clockOffset: -600 });
await assert.rejects(late.ping(), (error) => {
  assert.equal(error.code, "stale_request");
  late.clockOffset += error.details.skew_seconds;
  return true;
});
assert.equal((await late.ping()).environment, "sandbox");

console.log(JSON.stringify(seen));
