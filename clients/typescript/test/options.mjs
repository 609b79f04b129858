// Options checked at run time, as plain JavaScript calls them (no service needed: a fetch of
// our own records what would be sent). An option a call does not know, the API's snake_case
// name above all, is refused before anything is sent, naming the nearest known one; the
// camelCase options are sent under the API's names. Exits non-zero at the first surprise.
import assert from "node:assert/strict";

import {
  Client, InvalidRequest, signedHeaders, UnknownOption, verifyWebhook,
} from "../src/index.js";

const sent = [];
async function recording(url, init) {
  sent.push({ url, body: init.body === undefined ? undefined
    : JSON.parse(new TextDecoder().decode(init.body)) });
  const data = url.includes("/bookings?") ? { bookings: [], next_cursor: "c", has_more: false }
    : { booking: {}, penalty_amount: 0 };
  return new Response(JSON.stringify({ success: true, data, request_id: "r" }),
                      { status: 200, headers: { "Content-Type": "application/json" } });
}
const client = new Client("http://127.0.0.1:9", "sbx_key.secret", { fetch: recording });
const quote = { quote_token: "t", hotel_code: "H", room_type_code: "R", rate_plan_code: "P",
                check_in: "2027-03-01", check_out: "2027-03-03", rooms: 1, total_amount: 200,
                currency: "EUR" };
const guests = [{ room_number: 1, first_name: "Ana", last_name: "Silva", is_adult: true }];
const contact = { first_name: "Ana", email: "ana@example.com" };

function refusal(option, suggestion, call) {
  return (error) => {
    assert.ok(error instanceof UnknownOption && error instanceof InvalidRequest, String(error));
    assert.deepEqual([error.option, error.suggestion], [option, suggestion]);
    assert.ok(error.message.startsWith(
      `${call}: unknown option '${option}'; did you mean '${suggestion}'?`), error.message);
    assert.ok(error.known.includes(suggestion));
    return true;
  };
}

// The case: a non-refundable booking cancelled at a penalty its caller meant to refuse.
await assert.rejects(client.cancel("REF-1", { expected_penalty_amount: 0 }),
                     refusal("expected_penalty_amount", "expectedPenaltyAmount", "cancel()"));
await assert.rejects(client.book(quote, { guests, contact, special_requests: "late" }),
                     refusal("special_requests", "specialRequests", "book()"));
await assert.rejects(client.book(quote, { guests, contact, partner_reference: "REF-1" }),
                     refusal("partner_reference", "partnerReference", "book()"));
await assert.rejects(client.book(quote, { guests, contact, arrival_time: "22:00" }),
                     refusal("arrival_time", "arrivalTime", "book()"));
await assert.rejects(client.rates("H", "2027-03-01", "2027-03-03", { room_type_codes: ["R"] }),
                     refusal("room_type_codes", "roomTypeCodes", "rates()"));
await assert.rejects(client.search(["H"], "2027-03-01", "2027-03-03", { ocupancy: [] }),
                     refusal("ocupancy", "occupancy", "search()"));
await assert.rejects(client.quote("H", "R", "P", "2027-03-01", "2027-03-03", { room: 2 }),
                     refusal("room", "rooms", "quote()"));
await assert.rejects(
  client.acknowledge("PCS-ABCDEFGHJKLM", "confirmed", { hotel_confirmation_code: "LIS-1" }),
  refusal("hotel_confirmation_code", "hotelConfirmationCode", "acknowledge()"));
await assert.rejects(client.waitForBatch("b-1", { interval: 1 }),
                     (error) => error instanceof UnknownOption);
await assert.rejects(client.request("GET", "/ping", { params: {} }),
                     (error) => error instanceof UnknownOption);
await assert.rejects(verifyWebhook({}, "", "whsec_AAAA", { tolerance_seconds: 10 }),
                     refusal("tolerance_seconds", "toleranceSeconds", "verifyWebhook()"));
await assert.rejects(signedHeaders("k", "s", "GET", "/", "", { time_stamp: 1 }),
                     refusal("time_stamp", "timestamp", "signedHeaders()"));
// The iterators refuse at the call, before the first page is asked for.
assert.throws(() => client.listBookings({ check_in_from: "2027-03-01" }),
              refusal("check_in_from", "checkInFrom", "listBookings()"));
assert.throws(() => client.listHotelBookings({ hotel_code: "CM-LIS" }),
              refusal("hotel_code", "hotelCode", "listHotelBookings()"));
assert.throws(() => client.events(null, { poll_seconds: 5 }),
              refusal("poll_seconds", "pollSeconds", "events()"));
assert.throws(() => client.changes(null, { limt: 5 }), refusal("limt", "limit", "changes()"));
assert.throws(() => client.changes(null, { poll: 5 }), refusal("poll", "pollSeconds", "changes()"));
assert.throws(() => new Client("http://127.0.0.1:9", "sbx_key.secret", { max_attempts: 2 }),
              refusal("max_attempts", "maxAttempts", "new Client()"));
await assert.rejects(client.cancel("REF-1", 0), InvalidRequest);   // not an options object
assert.deepEqual(sent, []);   // nothing refused was sent

// The camelCase options go out under the API's names.
await client.cancel("REF-1", { expectedPenaltyAmount: 0, currency: "EUR" });
await client.book(quote, { guests, contact, partnerReference: "REF-2", specialRequests: "late",
                           arrivalTime: "22:00" });
await client.rates("H", "2027-03-01", "2027-03-03", { roomTypeCodes: ["R"], ratePlanCodes: ["P"] });
for await (const booking of client.listBookings({ hotelCode: "H", checkInFrom: "2027-03-01",
                                                  createdFrom: new Date(0), limit: 5 })) {
  assert.fail(`no booking expected: ${JSON.stringify(booking)}`);
}
assert.deepEqual(sent[0].body, { expected_penalty_amount: 0, currency: "EUR" });
assert.deepEqual([sent[1].body.partner_reference, sent[1].body.special_requests,
                  sent[1].body.arrival_time], ["REF-2", "late", "22:00"]);
assert.deepEqual([sent[2].body.room_type_codes, sent[2].body.rate_plan_codes], [["R"], ["P"]]);
assert.equal(new URL(sent[3].url).search, "?hotel_code=H&created_from=" +
             encodeURIComponent("1970-01-01T00:00:00.000Z") + "&check_in_from=2027-03-01&limit=5");

console.log(JSON.stringify({ options: "ok" }));
