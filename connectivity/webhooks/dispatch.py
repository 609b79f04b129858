"""From the event log to deliveries: each enabled endpoint tails its partner's log from its own
position, as a GET /events reader does, so the log's guarantees carry over (no gap whatever
the commit order of the writers; an event read twice is delivered once, the delivery's key being
the endpoint and the event id). Nothing is added to the transactions that write events.

One transaction per endpoint and page: lock the endpoint (a second dispatcher skips it), read the
events of its types after its position, store their deliveries, move the position."""

from __future__ import annotations

import json

import structlog
from psycopg.types.json import Jsonb

from connectivity.events import log as event_log
from connectivity.logtail import tail
from connectivity.logtail.positions import positions_from_list, positions_to_list
from connectivity.store.database import Database
from connectivity.store.queries import queries

log = structlog.get_logger(__name__)

PAGE_SIZE = 500


def feed_endpoints(db: Database, page_size: int = PAGE_SIZE) -> int:
    """One round over every enabled endpoint; how many deliveries it stored. An endpoint whose
    position is the log's current horizon on every origin has nothing new to read (every event
    below the horizons was read, and none above is readable yet): it costs no transaction."""
    with db.connection() as conn:
        endpoints = queries().webhooks.endpoints_to_feed(conn)
        now = tail.horizons(conn)
    stored = 0
    for endpoint in endpoints:
        if positions_from_list(endpoint["log_position"]) == now:
            continue
        while True:
            added, more = db.run(_feed, endpoint["partner_id"], endpoint["id"], page_size)
            stored += added
            if not more:
                break
    return stored


def _feed(conn, partner_id: int, endpoint_id: str, page_size: int) -> tuple[int, bool]:
    q = queries().webhooks
    endpoint = q.lock_endpoint_to_feed(conn, partner_id=partner_id, id=endpoint_id)
    if endpoint is None:  # disabled or deleted since, or another dispatcher has it
        return 0, False
    after = positions_from_list(endpoint["log_position"])
    try:
        page = event_log.read_page(conn, partner_id, endpoint["environment"], after, page_size,
                                   endpoint["subscribed_types"])
    except event_log.CursorExpired:
        # Disabled for longer than the log keeps events: what was pruned cannot be sent; the
        # endpoint goes on from the oldest event kept.
        log.warning("webhook_endpoint_position_expired", endpoint_id=endpoint_id)
        after = event_log.oldest(conn)
        page = event_log.read_page(conn, partner_id, endpoint["environment"], after, page_size,
                                   endpoint["subscribed_types"], check_expiry=False)
    if page.events:
        q.add_deliveries(conn, partner_id=partner_id, endpoint_id=endpoint_id,
                         deliveries=json.dumps([{"event_id": e.event_id, "event_type": e.type,
                                                 "body": e.body} for e in page.events]))
    if page.next != after or page.events:
        q.advance_position(conn, partner_id=partner_id, id=endpoint_id,
                           log_position=Jsonb(positions_to_list(page.next)))
    return len(page.events), page.has_more
