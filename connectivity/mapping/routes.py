from flask_smorest import Blueprint

from .. import API_PREFIX
from ..auth.access import requires
from ..docs import GUARDED, error_responses
from ..pending import not_implemented

blp = Blueprint("mapping", __name__, url_prefix=API_PREFIX,
                description="Mapping: the properties mapped and active for the calling partner.")


@blp.route("/mapping/hotels", methods=["GET"])
@error_responses(blp, *GUARDED, 501)
@requires("content.read")
def list_hotels():
    """Properties mapped and active for the caller (scope content.read)"""
    not_implemented()


@blp.route("/mapping/hotels/<hotel_code:hotel_code>", methods=["GET"])
@error_responses(blp, *GUARDED, 404, 501)
@requires("content.read")
def get_hotel(hotel_code):
    """One property's room types and rate plans (scope content.read)"""
    not_implemented()
