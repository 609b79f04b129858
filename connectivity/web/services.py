"""The process's services, as every part of it gets them (routes, the guard, health, metrics, the
CLI): built once by the app factory (app.py), read by `services()` (`services_of(app)` outside a
request or app context). The types of the layers above the web are named for the type checker only:
the web layer never imports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask, current_app

if TYPE_CHECKING:
    import redis

    from connectivity.ari.queue import BatchQueue
    from connectivity.auth.credentials import SigningVault
    from connectivity.auth.guards import Guards
    from connectivity.availability.feed_cursor import CursorSigner
    from connectivity.bookings.confirmation import ConfirmationKey
    from connectivity.bookings.listing import ListCursors
    from connectivity.availability.read_model import SearchModel
    from connectivity.bookings.quote_token import QuoteTokens
    from connectivity.events.cursor import EventCursors
    from connectivity.settings import Settings
    from connectivity.store.database import Database
    from connectivity.store.read_fence import ReadFence
    from connectivity.store.replica import ReadTarget

EXTENSION = "connectivity.services"


@dataclass(frozen=True)
class Services:
    settings: Settings
    # Everything that decides (quotes, bookings, reservations, the ARI push and its reads).
    db: Database
    # The reads that decide nothing: the replica while it keeps up, else `db` (replica.py).
    reads: ReadTarget
    redis: redis.Redis
    guards: Guards
    ari_queue: BatchQueue
    feed_cursors: CursorSigner
    event_cursors: EventCursors
    booking_cursors: ListCursors
    hotel_booking_cursors: ListCursors
    quote_tokens: QuoteTokens
    # Seals the webhook endpoints' secrets (webhooks/), as the keys' signing secrets are sealed.
    vault: SigningVault
    # Moved by whoever is about to tell a client of a write that reads must then reflect.
    read_fence: ReadFence
    # The deployment's numbering of bookings (bookings/confirmation.py), read once.
    confirmation_key: ConfirmationKey
    # Search's read model; None when SEARCH_READ_MODEL is off.
    search_model: SearchModel | None = None


def register(app: Flask, services: Services) -> None:
    app.extensions[EXTENSION] = services


def services_of(app: Flask) -> Services:
    return app.extensions[EXTENSION]


def services() -> Services:
    """The running app's services (in a request or app context)."""
    return current_app.extensions[EXTENSION]
