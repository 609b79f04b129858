from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.error_responses import GUARDED, error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.services import services
from connectivity.mapping import service
from connectivity.mapping.schemas import HotelDetailDataSchema, HotelListSchema

blp = ApiBlueprint("mapping", __name__, url_prefix=API_PREFIX,
                description="Mapping: the properties mapped and active for the calling partner.")


@blp.route("/mapping/hotels", methods=["GET"])
@blp.response(200, enveloped(HotelListSchema))
@error_responses(blp, *GUARDED)
@requires("content.read")
def list_hotels():
    """Properties mapped and active for the caller (scope content.read)

    In the partner's hotel codes. A property whose distribution is paused is omitted."""
    return service.list_hotels(services().reads, current_caller())


@blp.route("/mapping/hotels/<hotel_code:hotelCode>", methods=["GET"])
@blp.response(200, enveloped(HotelDetailDataSchema))
@error_responses(blp, *GUARDED, 404)
@requires("content.read")
def get_hotel(hotelCode):  # noqa: N803 - the specification's parameter name
    """One property's room types and rate plans (scope content.read)

    In the partner's codes, with the occupancy limits, board type and cancellation policy of
    each rate plan. 404 `not_found` when the code is not mapped and active for the caller."""
    return service.hotel_detail(services().reads, current_caller(), hotelCode)
