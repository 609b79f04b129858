from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, current_read_fence, requires
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.envelope import ErrorEnvelopeSchema, enveloped
from connectivity.web.clock import utc_now
from connectivity.web.ready_body import ready_json_response, ready_response
from connectivity.web.services import services
from connectivity.availability.changes import read_changes
from connectivity.availability.rates import rates as read_rates
from connectivity.availability.schemas import (ChangesQuerySchema, ChangesSchema,
                                               RatesRequestSchema, RatesResultSchema,
                                               SearchRequestSchema, SearchResultSchema)
from connectivity.availability.search import search as search_hotels

blp = ApiBlueprint("availability", __name__, url_prefix=API_PREFIX,
                description="Availability: what is sellable, and per-night rates.")


@blp.route("/availability/search", methods=["POST"])
@blp.arguments(SearchRequestSchema)
@blp.response(200, enveloped(SearchResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY)
@requires("ari.read")
def search(request):
    """Which properties have anything sellable for a stay (scope ari.read)

    Up to 200 of the partner's hotel codes in one call. A hotel is `available` when some room
    type and rate plan is sellable for the whole stay (a rate every night, not closed, enough
    rooms, arrival and departure restrictions, length of stay, occupancy, nationality);
    `lowest_total_amount` is then the cheapest whole-stay total for the requested rooms and
    occupancy, in the requested `currency` or else the hotel's own. Every code not mapped and
    active for the caller (a typo, another environment's, or one whose distribution is paused)
    is listed in `unknown_hotel_codes`; the paused ones among them also in
    `paused_hotel_codes` (not sold until resumed; the `mapping.paused` event tells of it). A
    request whose codes are all unknown is still a 200.
    `check_in` must be today or later at every hotel searched (422 otherwise); a `currency`
    that some searched hotel's prices cannot be converted into is 422
    `currency_not_supported`."""
    return ready_response(search_hotels(services().reads, current_caller(), request,
                                        utc_now(), services().search_model,
                                        current_read_fence()))


@blp.route("/availability/rates", methods=["POST"])
@blp.arguments(RatesRequestSchema)
@blp.response(200, enveloped(RatesResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("ari.read")
def rates(request):
    """Per-night rates, inventory and restrictions of one property (scope ari.read)

    Every room type and rate plan the partner maps for the hotel (narrowed by
    `room_type_codes` / `rate_plan_codes`), each with `sellable`, the `reasons` when it is not,
    every night's amount for all the stay's rooms with its available rooms and effective
    restrictions (the stricter of room-type and rate-plan level), the total, and the
    cancellation policy. Unsellable plans are listed too, priced where a rate exists. Amounts
    are in the requested `currency` (each night converted and rounded, the total the sum of the
    nights), else in the hotel's. 404 `not_found` when the hotel is not mapped and active for
    the caller."""
    return ready_response(read_rates(services().reads, current_caller(), request, utc_now(),
                                     services().search_model, current_read_fence()),
                          dates_only=True)


_CHANGES_EXAMPLE = {"success": True, "request_id": "5f0c1d2e3a4b4c5d", "data": {
    "changes": [{"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL",
                 "rate_plan_code": "ACME-BAR", "from_date": "2027-01-01",
                 "to_date": "2027-01-31", "kinds": ["rate"],
                 "changed_at": "2026-11-24T15:04:05.123456+00:00"}],
    "next_cursor": "AQAA5QWAKA.ksN2Hk9U1zks3l6RGFEJbjKQqjPyGckCCd-LIxPkx2I", "has_more": False}}


@blp.route("/availability/changes", methods=["GET"])
@blp.arguments(ChangesQuerySchema, location="query")
@blp.response(200, enveloped(ChangesSchema), example=_CHANGES_EXAMPLE)
@blp.alt_response(410, schema=ErrorEnvelopeSchema, description=(
    "`cursor_expired`: the cursor is older than the changes kept (at least 7 days) or is not "
    "one this key was given; start again without a cursor"))
@error_responses(blp, *GUARDED, 422)
@requires("ari.read")
def changes(query):
    """What changed since a cursor, for a reseller's cache (scope ari.read)

    Without `cursor`: no change and `next_cursor`, the current position; read what you need
    (search, rates), then poll from it. With `cursor` (and `limit`, 1-1000, default 500): the
    changes after it, oldest first, and the cursor to poll from next; `has_more` says another
    page is ready now. Each change names the hotel, room type and rate plan (null at the room
    type level) in the caller's codes, an inclusive date range, and its `kinds`:
    `availability`, `rate`, `restrictions`, `distribution` (the mapping was paused or resumed;
    codes and dates null) or `content` (a catalogue reload changed the hotel's room types, plans
    or policies; same nulls). Causes: ARI applied by any partner, bookings and cancellations,
    pushed reservations with their cancels and modifies, distribution pause and resume,
    catalogue loads; only hotels mapped to the caller in its environment, and a paused hotel
    shows its `distribution` change and nothing else until resumed.

    No gap: a change committed after a page was served is in a later page, whatever the order
    in which concurrent transactions commit; a change appears only once committed, usually
    within a second. At least once: a range may cover dates that did not change, and a change
    may appear twice. Changes are kept at least 7 days; an older cursor, or one not given to
    this key, is 410 `cursor_expired`: start again without a cursor.

    Search and rates never run behind this feed: a request that starts after a page was
    served reflects every change on it (see Freshness), so a changed hotel can be read again
    at once."""
    return ready_json_response(read_changes(services().reads, services().feed_cursors,
                                            current_caller(), query, services().read_fence))
