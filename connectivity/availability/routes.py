
from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import requires
from ..docs import GUARDED, WITH_BODY, error_responses
from ..pending import not_implemented

blp = ApiBlueprint("availability", __name__, url_prefix=API_PREFIX,
                description="Availability: what is sellable, and per-night rates.")


@blp.route("/availability/search", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("ari.read")
def search():
    """Which properties have anything sellable for a stay (scope ari.read)"""
    not_implemented()


@blp.route("/availability/rates", methods=["POST"])
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 501)
@requires("ari.read")
def rates():
    """Per-night rates, inventory and restrictions of one property (scope ari.read)"""
    not_implemented()
