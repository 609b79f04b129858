from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.clock import utc_now
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.services import services
from connectivity.bookings.create import create_booking as book
from connectivity.bookings.listing import list_bookings as listing
from connectivity.bookings.manage import cancel_booking as cancel, read_booking
from connectivity.bookings.quote import quote as price_quote
from connectivity.bookings.schemas import (BookingDataSchema, BookingListQuerySchema,
                                           BookingListSchema, BookingRequestSchema,
                                           BookingResultSchema, CancelRequestSchema,
                                           CancelResultSchema, QuoteRequestSchema,
                                           QuoteResultSchema)

blp = ApiBlueprint("bookings", __name__, url_prefix=API_PREFIX,
                description="Pull bookings: quote, book, read and cancel.")


@blp.route("/bookings/quote", methods=["POST"])
@blp.arguments(QuoteRequestSchema)
@blp.response(200, enveloped(QuoteResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409)
@requires("booking.quote")
def quote(request):
    """Price an exact stay and get a short-lived quote token (scope booking.quote)

    Priced exactly as POST /availability/rates prices the same room type and rate plan: every
    night for all the rooms, in the requested `currency` (each night converted and rounded, the
    total their sum), else in the hotel's. `quote_token` carries that total and currency, is
    bound to the partner, environment, hotel, room type, rate plan, dates, rooms and the guests
    per room, and is valid for `QUOTE_TTL_SECONDS` (default 900 s, 15 minutes) until
    `expires_at`. It is signed (it cannot be forged or altered) but not encrypted, and is at most
    512 characters.

    Checks in order: 422 `validation_failed`; 404 `not_found` (hotel not mapped and active for
    the caller, or room type / rate plan not mapped for it); 409 `not_sellable` with
    `details.reasons` (closed, restrictions, occupancy, nationality, missing rate); 422
    `currency_not_supported`; 409 `sold_out` when some night has fewer rooms than requested."""
    return price_quote(services().db, services().quote_tokens, current_caller(), request,
                       utc_now())


@blp.route("/bookings", methods=["POST"])
@blp.arguments(BookingRequestSchema)
@blp.response(201, enveloped(BookingResultSchema))
@blp.alt_response(200, schema=enveloped(BookingResultSchema),
                  description="a replay of an existing `partner_reference`: the original "
                              "booking, `idempotent_replay: true`")
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409)
@requires("booking.write", "booking.quote")
def create_booking(request):
    """Create a confirmed booking (scopes booking.write and booking.quote)

    `partner_reference` is the idempotency key, unique per partner and environment. A request
    whose reference is already a booking gets that booking back with 200 and
    `idempotent_replay: true`, before any other check (a retry after a price change still gets
    its booking), and `request_differs: true` when its body is not the original's (compared
    after parsing: key order and number spelling do not count). Never a second booking, never a
    second inventory decrement, also when the retries run concurrently.

    The occupancy comes from `guests`, per `room_number` (`is_adult` guests are adults, the
    others children with their `age`). The nationality is the quote token's when one is sent,
    else the lead guest's (`is_lead`, else the first adult of room 1). With `quote_token` the
    quoted total and currency apply (the stored nights are the current ones when they still add
    up to it, else the quoted total spread over the nights in their proportions); without one
    the current price does.

    Checks in order (nothing is stored unless all pass): 422 `validation_failed`; 200 replay;
    404 `not_found` (hotel, room type or rate plan not mapped and active for the caller); 422
    `invalid_quote_token`, 409 `quote_expired`, 409 `quote_mismatch` (issued for another stay,
    occupancy or partner; `details.fields` names each field that differs, e.g. `{"occupancy":
    {"quoted": [{"adults": 2, "child_ages": []}], "requested": [{"adults": 1, "child_ages":
    []}]}}`); 409 `not_sellable` with `details.reasons`; 422
    `currency_not_supported`; 409 `price_mismatch` when `total_amount` or `currency` differs
    from the service's figure to the minor unit (`details` has that figure); 409 `sold_out` when
    some night has fewer rooms left than `rooms` (all nights are taken or none). The booking
    keeps its nights and a copy of the cancellation policy in force."""
    payload, status = book(services().db, services().quote_tokens, services().confirmation_key,
                           current_caller(), request, utc_now())
    return payload, status


@blp.route("/bookings", methods=["GET"])
@blp.arguments(BookingListQuerySchema, location="query")
@blp.response(200, enveloped(BookingListSchema))
@error_responses(blp, *GUARDED, 422)
@requires("booking.read")
def list_bookings(query):
    """The caller's bookings, oldest first, filtered and in pages (scope booking.read)

    The caller's pull bookings in the key's environment, oldest `created_at` first, each as GET
    /bookings/{reference} answers it. Filters, all optional: `hotel_code` (a code not mapped for
    the caller gives an empty list, not 404; a paused hotel's bookings are listed), `status`
    (`confirmed` or `cancelled`), `created_from` / `created_to` (ISO 8601 timestamps with an
    offset, inclusive), `check_in_from` / `check_in_to` (dates, inclusive). `limit` 1-200
    (default 50). `next_cursor` is null exactly when `has_more` is false; send it back with the
    same filters for the next page: a cursor is only valid with the filters it was issued for,
    and one that is not (or is malformed) is 422 `validation_failed` naming `cursor`. A listing,
    not a feed: to learn of new bookings and cancellations as they happen, read GET /events."""
    return listing(services().db, services().booking_cursors, current_caller(), query)


@blp.route("/bookings/<reference:reference>", methods=["GET"])
@blp.response(200, enveloped(BookingDataSchema))
@error_responses(blp, *GUARDED, 404)
@requires("booking.read")
def get_booking(reference):
    """A booking by the partner's own reference (scope booking.read)

    Only the caller's bookings in the key's environment; another partner's reference answers
    404 `not_found` exactly as an absent one. A booking stays readable when its property's
    distribution is paused."""
    return read_booking(services().db, current_caller(), reference)


@blp.route("/bookings/<reference:reference>/cancel", methods=["POST"])
@blp.arguments(CancelRequestSchema, required=False)
@blp.response(200, enveloped(CancelResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409)
@requires("booking.cancel")
def cancel_booking(request, reference):
    """Cancel a booking; returns the penalty applied (scope booking.cancel)

    The penalty follows the cancellation policy copied into the booking when it was made (a
    later policy change does not move it): hours are counted from now to 00:00 of the check-in
    date in the property's timezone; every tier whose `within_hours` covers them applies and the
    largest penalty wins (`nights`: the first N nights' amounts; `percent`: of the total;
    `amount`: per booking, converted at the booking's rate); non-refundable is the total; never
    more than the total. Once check-in time has passed every tier applies.

    With `expected_penalty_amount` (in the booking's `currency`; another `currency` is 422) a
    higher penalty is 409 `penalty_exceeds_expectation` with `details.penalty_amount` and
    nothing changes. Otherwise the booking becomes `cancelled`, its rooms are released once and
    the penalty is recorded. Cancelling a cancelled booking returns the recorded result with
    `idempotent_replay: true` and releases nothing. A booking stays cancellable when its
    property's distribution is paused."""
    return cancel(services().db, current_caller(), reference, request, utc_now())
