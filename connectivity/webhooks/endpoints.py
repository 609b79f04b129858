"""The webhook endpoints of a partner and environment (contract 12.3): create, list, delete,
enable. Each use case is one transaction.

An endpoint is seen (listed, deleted, enabled, pinged, replayed) by every key of its partner and
environment that may see all of its types; `["*"]` stands for the types the creating key could
see. At most 10 live endpoints per partner and environment: the slot a creation takes is unique
among them (migration 0021), so two creations at once cannot both pass the limit."""

from __future__ import annotations

import secrets
import string
from typing import Any

import structlog
from psycopg.types.json import Jsonb

from connectivity.auth.authenticate import Caller
from connectivity.auth.credentials import SigningVault
from connectivity.events import log as event_log
from connectivity.logtail.positions import positions_to_list
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import Conflict, InsufficientScope, NotFound, ValidationFailed
from connectivity.webhooks.destination import (RefusedDestination, ResolutionTimedOut,
                                               resolve_destination, system_resolver, within)
from connectivity.webhooks.sender import ATTEMPT_SECONDS
from connectivity.webhooks.signature import new_webhook_secret

log = structlog.get_logger(__name__)

MAX_ENDPOINTS = 10
ALL_TYPES = "*"
ID_PREFIX = "we_"
_ID_CHARS = string.ascii_letters + string.digits


def visible_types(caller: Caller) -> list[str]:
    return list(event_log.types_visible_to(caller.scopes))


def subscribed_types(caller: Caller, event_types: list[str]) -> list[str]:
    """What the endpoint's `event_types` stand for; 403 for a type the key may not see (the
    schema has refused unknown ones already)."""
    visible = visible_types(caller)
    if event_types == [ALL_TYPES]:
        return visible
    hidden = [t for t in event_types if t not in visible]
    if hidden:
        needed = sorted(set().union(*(event_log.EVENT_SCOPES[t] for t in hidden)))
        raise InsufficientScope(
            f"this key may not see the event type(s) {', '.join(hidden)}: each needs one of "
            "the scopes in details.required", details={"required": needed,
                                                        "held": sorted(caller.scopes)})
    return list(event_types)


def create_endpoint(db: Database, vault: SigningVault, caller: Caller, request: dict[str, Any],
                    *, allow_loopback: bool = False) -> dict[str, Any]:
    """201's data: the endpoint and its secret, shown this once. `allow_loopback`:
    WEBHOOK_ALLOW_LOOPBACK."""
    _check_url(request["url"], caller.environment, allow_loopback)
    types = subscribed_types(caller, request["event_types"])
    secret = new_webhook_secret()
    endpoint = db.run(_create, caller, request, types, vault.seal(secret), vault.sealed_by)
    log.info("webhook_endpoint_created", endpoint_id=endpoint["endpoint_id"],
             partner=caller.partner_code, environment=caller.environment)
    return {"endpoint": endpoint, "secret": secret}


def _check_url(url: str, environment: str, allow_loopback: bool) -> None:
    """The URL rules, the host resolved now (the same rules again at every delivery), given as
    long as a delivery would give it."""
    try:
        resolve_destination(url, environment, within(system_resolver, ATTEMPT_SECONDS),
                            allow_loopback=allow_loopback)
    except RefusedDestination as refused:
        raise ValidationFailed({"url": [str(refused)]}) from None
    except ResolutionTimedOut:
        raise ValidationFailed({"url": [f"the host did not resolve within {ATTEMPT_SECONDS:g} "
                                        "s; try again, or check its DNS"]}) from None


def _create(conn, caller: Caller, request: dict[str, Any], types: list[str], sealed: bytes,
            sealed_by: str) -> dict[str, Any]:
    q = queries().webhooks
    # From now on: an endpoint receives the events committed after its creation.
    position = Jsonb(positions_to_list(event_log.latest(conn)))
    endpoint_id = ID_PREFIX + "".join(secrets.choice(_ID_CHARS) for _ in range(24))
    # Each try is a statement with a fresh snapshot: a slot another creation took meanwhile is
    # seen taken by the next one.
    for _ in range(MAX_ENDPOINTS + 1):
        created = q.create_endpoint(
            conn, partner_id=caller.partner_id, id=endpoint_id, environment=caller.environment,
            url=request["url"], event_types=request["event_types"], subscribed_types=types,
            description=request.get("description"), secret_sealed=sealed,
            secret_key_id=sealed_by, log_position=position)
        if created is not None:
            return created
        if q.count_live_endpoints(conn, partner_id=caller.partner_id,
                                  environment=caller.environment) >= MAX_ENDPOINTS:
            break
    raise Conflict("limit_reached",
                   f"the partner already has {MAX_ENDPOINTS} webhook endpoints in the "
                   f"{caller.environment} environment; delete one it no longer needs first",
                   details={"limit": MAX_ENDPOINTS})


def list_endpoints(db: Database, caller: Caller) -> dict[str, Any]:
    with db.connection() as conn:
        rows = queries().webhooks.list_endpoints(conn, partner_id=caller.partner_id,
                                                 environment=caller.environment,
                                                 visible_types=visible_types(caller))
    return {"endpoints": rows}


def find_endpoint(conn, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    """The caller's endpoint, or 404 (another partner's, deleted, or one whose types the key
    may not all see)."""
    found = queries().webhooks.find_endpoint(conn, partner_id=caller.partner_id,
                                             environment=caller.environment, id=endpoint_id,
                                             visible_types=visible_types(caller))
    if found is None:
        raise not_found(endpoint_id)
    return found


def not_found(endpoint_id: str) -> NotFound:
    return NotFound(f"no webhook endpoint {endpoint_id!r} of this partner and environment that "
                    "this key may see")


def delete_endpoint(db: Database, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    return {"endpoint": db.run(_delete, caller, endpoint_id)}


def _delete(conn, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    q = queries().webhooks
    deleted = q.delete_endpoint(conn, partner_id=caller.partner_id,
                                environment=caller.environment, id=endpoint_id,
                                visible_types=visible_types(caller))
    if deleted is None:
        raise not_found(endpoint_id)
    q.drop_pending_deliveries(conn, partner_id=caller.partner_id, endpoint_id=endpoint_id)
    return deleted


def enable_endpoint(db: Database, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    return {"endpoint": db.run(_enable, caller, endpoint_id)}


def _enable(conn, caller: Caller, endpoint_id: str) -> dict[str, Any]:
    enabled = queries().webhooks.enable_endpoint(conn, partner_id=caller.partner_id,
                                                 environment=caller.environment,
                                                 id=endpoint_id,
                                                 visible_types=visible_types(caller))
    if enabled is None:
        raise not_found(endpoint_id)
    return enabled
