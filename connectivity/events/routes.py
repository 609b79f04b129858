from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.error_responses import GUARDED, error_responses
from connectivity.web.envelope import ErrorEnvelopeSchema, enveloped
from connectivity.web.ready_body import ready_json_response
from connectivity.web.services import services
from connectivity.events.log import EVENT_SCOPES
from connectivity.events.reading import read_events
from connectivity.events.schemas import EventsQuerySchema, EventsSchema

blp = ApiBlueprint("events", __name__, url_prefix=API_PREFIX,
                   description="Events: what happened to the partner's bookings, batches, "
                               "reservations and hotels, in one ordered log.")

_ANY_EVENT_SCOPE = sorted(set().union(*EVENT_SCOPES.values()))

_EXAMPLE = {"success": True, "request_id": "5f0c1d2e3a4b4c5d", "data": {
    "events": [{"event_id": "evt_5b7e0c2f4d1a4e6f9a3b8c7d6e5f4a3b", "type": "mapping.paused",
                "created_at": "2026-11-24T15:04:05.123456+00:00",
                "data": {"hotel_code": "ACME-LIS"}}],
    "next_cursor": "AQAA5QWAKA.ksN2Hk9U1zks3l6RGFEJbjKQqjPyGckCCd-LIxPkx2I", "has_more": False}}


@blp.route("/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, enveloped(EventsSchema), example=_EXAMPLE)
@blp.alt_response(410, schema=ErrorEnvelopeSchema, description=(
    "`cursor_expired`: the cursor is older than the events kept (at least 30 days) or is not "
    "one this key was given; start again without a cursor"))
@error_responses(blp, *GUARDED, 422)
@requires(*_ANY_EVENT_SCOPE, any_of=True)
def list_events(query):
    """The partner's event log, oldest first (any scope of the types below)

    One log per partner and environment. A key sees the events whose type lists a scope it
    holds: `ari_batch.finished` (ari.write, restriction.write; data: the batch as GET
    /ari/batches/{batchId} answers it once finished), `booking.confirmed`, `booking.cancelled`
    (booking.read; data: `{"booking"}` as GET /bookings/{reference} answers it),
    `booking.hotel_confirmed` (booking.read; the same data, when the hotel first acknowledges
    the confirmed booking and whenever its `hotel_confirmation_code` changes),
    `hotel_booking.confirmed`, `hotel_booking.cancelled` (reservation.write; another partner's
    pull booking on a hotel whose mapping for this partner has `receives_bookings`, in this
    partner's codes: a room type or rate plan it has no code for is null and named in
    `unmapped`; `channel_name` is the booking partner's name; never the partner's own
    bookings), `reservation.flagged` (reservation.write, reservation.cancel; a reconciliation
    item opened for a reservation the partner pushed: `partner_reference`, `hotel_code`, `code`,
    `message`), `mapping.paused`, `mapping.resumed` (content.read, ari.read, ari.write;
    `hotel_code`). A key holding none of these scopes is 403 `insufficient_scope`.

    Without `cursor`: the first page starts at the oldest event kept; with `start=latest`, no
    events and `next_cursor` the current position. With `cursor`: the events after it (a cursor
    is a position, valid with any `types`). `limit` 1-500 (default 100); `types` filters
    (comma-separated; an unknown type or one the key may not see is 422 naming `types`).
    `next_cursor` is always a string: poll from it later; `has_more` says another page is ready
    now.

    No gap: an event committed after a page was served is in a later page, whatever the order
    in which concurrent writers commit; an event appears only once its cause is committed and
    readable (an `ari_batch.finished` event's batch already reads as finished), usually within a
    second. At least once: an event may appear again, with the same `event_id`. An event is
    written in the same transaction as its cause: never lost, never for something that did not
    happen (a sandbox scenario's forced answer stores nothing and makes no event). Events are
    kept at least 30 days; an older cursor, or one not given to this key, is 410
    `cursor_expired`: start again without a cursor."""
    return ready_json_response(read_events(services().db, services().event_cursors,
                                           current_caller(), query, services().read_fence))
