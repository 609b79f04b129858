
from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import requires
from ..docs import GUARDED, WITH_BODY, error_responses
from ..pending import not_implemented

blp = ApiBlueprint("bookings", __name__, url_prefix=API_PREFIX,
                description="Pull bookings: quote, book, read and cancel.")


@blp.route("/bookings/quote", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409, 501)
@requires("booking.quote")
def quote():
    """Price an exact stay and get a short-lived quote token (scope booking.quote)"""
    not_implemented()


@blp.route("/bookings", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409, 501)
@requires("booking.write", "booking.quote")
def create_booking():
    """Create a confirmed booking (scopes booking.write and booking.quote)"""
    not_implemented()


@blp.route("/bookings/<reference:reference>", methods=["GET"])
@error_responses(blp, *GUARDED, 404, 501)
@requires("booking.read")
def get_booking(reference):
    """A booking by the partner's own reference (scope booking.read)"""
    not_implemented()


@blp.route("/bookings/<reference:reference>/cancel", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409, 501)
@requires("booking.cancel")
def cancel_booking(reference):
    """Cancel a booking; returns the penalty applied (scope booking.cancel)"""
    not_implemented()
