
from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import requires
from ..docs import GUARDED, WITH_BODY, error_responses
from ..pending import not_implemented

blp = ApiBlueprint("reservations", __name__, url_prefix=API_PREFIX,
                description="Push reservations: deliver reservations already confirmed.")


@blp.route("/reservations", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("reservation.write")
def push_reservation():
    """Deliver an already-confirmed reservation (scope reservation.write)"""
    not_implemented()


@blp.route("/reservations/<reference:reference>/cancel", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("reservation.cancel")
def cancel_reservation(reference):
    """Deliver a cancellation (scope reservation.cancel)"""
    not_implemented()


@blp.route("/reservations/<reference:reference>/modify", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("reservation.write")
def modify_reservation(reference):
    """Deliver the complete new state of a reservation (scope reservation.write)"""
    not_implemented()
