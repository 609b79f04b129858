// Compiled, never run (tsc --noEmit, tests/system/clients/test_typescript_client.py): the
// declarations hold together under --strict, and a wrong use is a compile error.
import {
  ApiError, Client, verifyWebhook, WebhookVerificationError, type BatchOutcome, type QuoteResult,
} from "../src/index.js";

async function example(client: Client): Promise<string> {
  const quote: QuoteResult = await client.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", "2027-01-01",
                                                new Date(Date.UTC(2027, 0, 3)));
  const booked = await client.book(quote, {
    guests: [{ room_number: 1, first_name: "Ana", last_name: "Silva", is_adult: true }],
    contact: { first_name: "Ana", email: "ana@example.com" }, partnerReference: "REF-1" });
  const total: number = booked.booking.total_amount;
  const batch: BatchOutcome = await client.waitForBatch(
    (await client.pushAri("ACME-LIS", [{ room_type_code: "ACME-DBL", date: "2027-01-01",
                                         availability: 3 }])).batch_id);
  for await (const [change, cursor] of client.changes(null, { limit: 10 })) {
    console.log(change.hotel_code, cursor.length);
  }
  for await (const booking of client.listBookings({ status: "confirmed",
                                                     checkInFrom: new Date() })) {
    console.log(booking.partner_reference);
  }
  // @ts-expect-error: the API's snake_case name, where the client takes camelCase
  client.listBookings({ check_in_from: "2027-01-01" });
  // @ts-expect-error: an option cancel does not take
  await client.cancel("REF-1", { expected_penalty_amount: 0 });
  await client.rates("ACME-LIS", "2027-01-01", "2027-01-03", { roomTypeCodes: ["ACME-DBL"] });
  for await (const [event, cursor] of client.events(null, { start: "latest",
                                                           types: ["booking.cancelled"] })) {
    console.log(event.event_id, event.data, cursor);
  }
  // @ts-expect-error: an event type the log does not have
  client.events(null, { types: ["booking.lost"] });
  const record = await client.getReservation("CM-1");
  console.log(record.reservation.status, record.versions.length, record.reconciliation);
  try {
    const delivered = await verifyWebhook(new Headers(), new Uint8Array(), "whsec_AAAA");
    console.log(delivered.type === "ping" ? "test event" : delivered.event_id);
  } catch (error) {
    if (error instanceof WebhookVerificationError) console.log("answer 400");
  }
  try {
    await client.withScenario("sold_out").search(["ACME-LIS"], "2027-01-01", "2027-01-03");
  } catch (error) {
    if (error instanceof ApiError && error.retryable) console.log(error.retryAfter);
  }
  // @ts-expect-error: a status the description does not have
  const wrong: typeof batch.status = "done";
  return `${total} ${batch.status} ${wrong} ${(await client.whoami()).partner.code}`;
}

export { example };
