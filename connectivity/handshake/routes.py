
from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.clock import utc_now
from connectivity.web.error_responses import error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.ready_body import ready_response
from connectivity.handshake import service
from connectivity.handshake.schemas import PingSchema, WhoamiSchema

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
    # (two dumps, envelope and payload: a noticeable share of this small answer's CPU);
    # tests/auth/test_authentication.py checks the body equals the schema's dump.
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
