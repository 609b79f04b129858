from flask import current_app

from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import current_caller, requires
from ..docs import GUARDED, WITH_BODY, error_responses
from ..envelope import enveloped
from ..ready_body import ready_response
from .rates import rates as read_rates
from .schemas import RatesRequestSchema, RatesResultSchema, SearchRequestSchema, SearchResultSchema
from .search import search as search_hotels
from .stay import utc_now
# Below the area's own imports: the sandbox's forced answers (contract 11.4) reuse them.
from ..sandbox import pull as sandbox

blp = ApiBlueprint("availability", __name__, url_prefix=API_PREFIX,
                description="Availability: what is sellable, and per-night rates.")


def _search_sold_out(request):
    return ready_response(sandbox.search_sold_out(current_app.extensions["connectivity.db"],
                                                  current_caller(), request, utc_now()))


def _rates_sold_out(request):
    return ready_response(sandbox.rates_sold_out(current_app.extensions["connectivity.db"],
                                                 current_caller(), request, utc_now()))


@blp.route("/availability/search", methods=["POST"])
@blp.arguments(SearchRequestSchema)
@blp.response(200, enveloped(SearchResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY)
@requires("ari.read", scenarios={"sold_out": _search_sold_out})
def search(request):
    """Which properties have anything sellable for a stay (scope ari.read)

    Up to 200 of the partner's hotel codes in one call. A hotel is `available` when some room
    type and rate plan is sellable for the whole stay (contract section 8: a rate every night,
    not closed, enough rooms, arrival and departure restrictions, length of stay, occupancy,
    nationality); `lowest_total_amount` is then the cheapest whole-stay total for the requested
    rooms and occupancy, in the requested `currency` or else the hotel's own. Codes not mapped
    and active for the caller (unknown, another environment's, paused) are listed in
    `unknown_hotel_codes`; a request whose codes are all unknown is still a 200.
    `check_in` must be today or later at every hotel searched (422 otherwise); a `currency`
    that some searched hotel's prices cannot be converted into is 422
    `currency_not_supported`."""
    return ready_response(search_hotels(current_app.extensions["connectivity.reads"],
                                        current_caller(), request, utc_now()))


@blp.route("/availability/rates", methods=["POST"])
@blp.arguments(RatesRequestSchema)
@blp.response(200, enveloped(RatesResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("ari.read", scenarios={"sold_out": _rates_sold_out})
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
    return ready_response(read_rates(current_app.extensions["connectivity.reads"], current_caller(),
                                     request, utc_now()))
