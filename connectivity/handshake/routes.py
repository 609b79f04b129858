
from .. import API_PREFIX
from ..api import ApiBlueprint
from ..auth.access import current_caller, requires
from ..availability.stay import utc_now
from ..docs import error_responses
from ..envelope import enveloped
from ..ready_body import ready_response
from . import service
from .schemas import PingSchema, WhoamiSchema

blp = ApiBlueprint("handshake", __name__, url_prefix=API_PREFIX,
                description="Handshake: check credentials, clock and what a key may do.")


@blp.route("/ping", methods=["GET"])
@blp.response(200, enveloped(PingSchema))
@error_responses(blp, 401, 429, 503)
@requires(needs_mapped_properties=False)
def ping():
    """Check the key and the clock

    Needs no scope. `server_time` tells a stale-request rejection from a bad secret."""
    # A ready body (ready_body.py), which flask-smorest passes through without its schema dump
    # (two dumps, envelope and payload: about 60 us of CPU for three fields, measured in-process);
    # tests/api/test_authentication.py checks the body equals the schema's dump.
    return ready_response(service.ping(current_caller(), utc_now()))


@blp.route("/whoami", methods=["GET"])
@blp.response(200, enveloped(WhoamiSchema))
@error_responses(blp, 401, 429, 503)
@requires(needs_mapped_properties=False)
def whoami():
    """Who this key is and what it holds

    Needs no scope. The diagnostic for a 403: the scopes held, and whether `mapped_properties`
    is 0. Never returns secret material."""
    return service.whoami(current_caller())
