// Compiled, never run (tsc --noEmit, tests/system/clients/test_typescript_client.py): the
// declarations hold together under --strict, and a wrong use is a compile error.
import { ApiError, Client, type BatchOutcome, type QuoteResult } from "../src/index.js";

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
