from flask import request as http_request

from connectivity import API_PREFIX
from connectivity.auth.access import current_caller, requires
from connectivity.events.log import EVENT_SCOPES
from connectivity.web.api import ApiBlueprint
from connectivity.web.clock import utc_now
from connectivity.web.envelope import enveloped
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.errors import ValidationFailed
from connectivity.web.services import services
from connectivity.webhooks.deliveries import list_deliveries, ping_endpoint, replay_delivery
from connectivity.webhooks.endpoints import (create_endpoint, delete_endpoint, enable_endpoint,
                                             list_endpoints)
from connectivity.webhooks.schemas import (WebhookDeliveriesQuerySchema, WebhookDeliveryListSchema,
                                           WebhookEndpointAnswerSchema,
                                           WebhookEndpointCreatedSchema, WebhookEndpointListSchema,
                                           WebhookEndpointRequestSchema, WebhookPingSchema,
                                           WebhookReplaySchema)

blp = ApiBlueprint("webhooks", __name__, url_prefix=API_PREFIX, description=(
    "Webhooks: events of GET /events sent to the partner's endpoints as they happen, signed as "
    "the Standard Webhooks specification says, retried, replayable."))

# Any key that may see some event type may manage the endpoints whose types it may see.
EVENT_READING_SCOPES = sorted(set().union(*EVENT_SCOPES.values()))
ENDPOINT = "/webhook-endpoints/<endpoint_id:endpointId>"


@blp.route("/webhook-endpoints", methods=["POST"])
@blp.arguments(WebhookEndpointRequestSchema, example={
    # A sandbox key testing on its own machine; production: https on a public address.
    "url": "http://127.0.0.1:8080/pcs-webhooks",
    "event_types": ["booking.confirmed", "booking.cancelled"],
    "description": "bookings to our PMS"})
@blp.response(201, enveloped(WebhookEndpointCreatedSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 409)
@requires(*EVENT_READING_SCOPES, any_of=True)
def create_webhook_endpoint(request):
    """Create a webhook endpoint (any scope that sees an event type)

    `url`: absolute, at most 2,000 characters. Production keys: `https` only; the host must not
    be, nor resolve to, a loopback (`localhost` included), private, link-local (169.254.0.0/16),
    multicast, unspecified, reserved or otherwise non-global address. Sandbox keys may also use
    `http`, and loopback addresses where the service's operator allows them (a local demo
    does; loopback is the service's own machine). The port, when written, is 80, 443 or
    1024-65535, as a plain number. Otherwise 422 `validation_failed` naming `url`; a refused
    host is said to be no public address, never what it resolved to. `event_types`: 1-20 types
    of GET /events, or `["*"]` for every type the key may see; an unknown type (`ping`
    included) is 422 naming `event_types`, a type the key may not see 403 `insufficient_scope`.
    `description`: optional, at most 200 characters. At most 10 endpoints per partner and
    environment: 409 `limit_reached`.

    The answer holds the endpoint and its `secret` (`whsec_...`), shown only here. The endpoint
    receives the events that happen from its creation on.

    Each event of a subscribed type is sent to every enabled endpoint at least once, ordering not
    guaranteed: `POST` to the url, body the event object of GET /events as JSON, headers
    `webhook-id` (the event id: deduplicate by it), `webhook-timestamp` (unix seconds of this
    attempt), `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"
    keyed with the base64-decoded part of the secret after "whsec_">` and `Content-Type:
    application/json`. A 2xx answer within 10 s delivers it; anything else (another status, a
    redirect, which is never followed, a timeout, a refused connection) is retried after 5 s, 5 min,
    30 min, 2 h, 5 h, 10 h and 10 h (each after the one before: about 27 hours; the service's
    `WEBHOOK_RETRY_SCHEDULE`), then the delivery is `failed`. An endpoint whose deliveries have all
    failed for 5 days becomes `disabled` (POST .../enable enables it). The URL rules are checked
    again at every delivery: one they refuse then fails with `last_error` saying so. An attempt
    has 10 s in all, from connecting to the answer's last header byte, however slowly it comes.
    A slow or failing endpoint delays no other endpoint's deliveries, nor another partner's."""
    return create_endpoint(services().db, services().vault, current_caller(), request,
                           allow_loopback=services().settings.webhook_allow_loopback)


@blp.route("/webhook-endpoints", methods=["GET"])
@blp.response(200, enveloped(WebhookEndpointListSchema))
@error_responses(blp, *GUARDED)
@requires(*EVENT_READING_SCOPES, any_of=True)
def list_webhook_endpoints():
    """List the webhook endpoints (any scope that sees an event type)

    Every endpoint of the partner and environment whose event types this key may all see,
    oldest first, without secrets. Deleted endpoints are not listed."""
    return list_endpoints(services().db, current_caller())


@blp.route(ENDPOINT, methods=["DELETE"])
@blp.response(200, enveloped(WebhookEndpointAnswerSchema))
@error_responses(blp, *GUARDED, 404)
@requires(*EVENT_READING_SCOPES, any_of=True)
def delete_webhook_endpoint(endpointId):  # noqa: N803 - the contract's parameter name
    """Delete a webhook endpoint

    Answers the endpoint with `status: "deleted"`; nothing more is sent to it (deliveries still
    pending become `failed`) and it is no longer listed. Another partner's, an unknown one, or
    one whose types this key may not all see: 404 `not_found`."""
    return delete_endpoint(services().db, current_caller(), endpointId)


@blp.route(f"{ENDPOINT}/enable", methods=["POST"])
@blp.response(200, enveloped(WebhookEndpointAnswerSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires(*EVENT_READING_SCOPES, any_of=True)
def enable_webhook_endpoint(endpointId):  # noqa: N803
    """Enable a webhook endpoint

    An endpoint whose deliveries have all failed for 5 days is `disabled`; this enables it again
    (an enabled one stays so). The events that happened meanwhile are then delivered, as far
    as the event log still holds them (30 days). Takes no body."""
    _no_body()
    return enable_endpoint(services().db, current_caller(), endpointId)


@blp.route(f"{ENDPOINT}/ping", methods=["POST"])
@blp.response(202, enveloped(WebhookPingSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires(*EVENT_READING_SCOPES, any_of=True)
def ping_webhook_endpoint(endpointId):  # noqa: N803
    """Send a test event to a webhook endpoint

    Answers 202 at once with the event sent: `{"event_id", "type": "ping", "created_at",
    "data": {}}`, signed like any delivery (not in the event log; listed among the deliveries).
    Sent even to a disabled endpoint. Takes no body."""
    _no_body()
    return ping_endpoint(services().db, current_caller(), endpointId, utc_now())


@blp.route(f"{ENDPOINT}/deliveries", methods=["GET"])
@blp.arguments(WebhookDeliveriesQuerySchema, location="query")
@blp.response(200, enveloped(WebhookDeliveryListSchema))
@error_responses(blp, *GUARDED, 404, 422)
@requires(*EVENT_READING_SCOPES, any_of=True)
def list_webhook_deliveries(query, endpointId):  # noqa: N803
    """List an endpoint's deliveries

    Newest first, `limit` (1-200, default 50) per page; `status` (`pending`, `delivered` or
    `failed`) narrows the list; `cursor` is the `next_cursor` of the page before (anything else
    is 422 naming `cursor`)."""
    return list_deliveries(services().db, current_caller(), endpointId, query)


@blp.route(f"{ENDPOINT}/deliveries/<event_id:eventId>/retry", methods=["POST"])
@blp.response(202, enveloped(WebhookReplaySchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires(*EVENT_READING_SCOPES, any_of=True)
def retry_webhook_delivery(endpointId, eventId):  # noqa: N803
    """Send an event to an endpoint again (replay)

    202: the event is sent again now, whatever its delivery's status (even to a disabled
    endpoint), counting as one more attempt; a failure is retried as long as the delivery's
    retry schedule has times left, else it is `failed` again. An event never delivered to the
    endpoint: 404 `not_found`. Takes no body."""
    _no_body()
    replay_delivery(services().db, current_caller(), endpointId, eventId)
    return {"event_id": eventId}


def _no_body() -> None:
    if http_request.get_data(cache=True).strip():
        raise ValidationFailed({"body": ["this operation takes no body"]})
