
from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import requires
from ..docs import GUARDED, WITH_BODY, error_responses
from ..pending import not_implemented

blp = ApiBlueprint("ari", __name__, url_prefix=API_PREFIX,
                description="ARI push: rates, inventory and restrictions, applied asynchronously.")


@blp.route("/ari", methods=["PUT"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("ari.write")
def put_ari():
    """Upsert rates and inventory per date (scope ari.write)"""
    not_implemented()


@blp.route("/ari/restrictions", methods=["PUT"])
@error_responses(blp, *GUARDED, *WITH_BODY, 501)
@requires("restriction.write")
def put_restrictions():
    """Upsert restrictions over date ranges (scope restriction.write)"""
    not_implemented()


@blp.route("/ari/batches/<batch_id:batchId>", methods=["GET"])
@error_responses(blp, *GUARDED, 404, 501)
@requires("ari.write", "restriction.write", any_of=True)
def get_batch(batchId):  # noqa: N803 - the specification's parameter name
    """Outcome of an accepted batch (scope ari.write or restriction.write)"""
    not_implemented()
