"""Application factory: settings -> pool -> blueprints, errors, CLI. Nothing here does I/O: the
pool opens on first use (after gunicorn forks) and Redis connects on first command."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from flask import Flask

from connectivity import API_PREFIX
from connectivity.web.api import init_api
from connectivity.ari.queue import BatchQueue
from connectivity.ari.routes import blp as ari_blp
from connectivity.auth.access import guard_request, policy_of
from connectivity.auth.credentials import SigningVault
from connectivity.auth.keycache import KEY_STATE_CHANGED
from connectivity.availability.feed_cursor import CursorSigner
from connectivity.availability.read_model import HostedModel, MappedRates, ReadModel
from connectivity.availability.read_model.mapped import ORDERED_MEMORY
from connectivity.availability.read_model.building import search_model_of
from connectivity.availability.read_model.host import socket_key
from connectivity.availability.routes import blp as availability_blp
from connectivity.bookings.confirmation import ConfirmationKey
from connectivity.bookings.listing import ListCursors
from connectivity.bookings.quote_token import QuoteTokens
from connectivity.bookings.routes import blp as bookings_blp
from connectivity.bookings.hotel_bookings import CURSOR_SALT as HOTEL_BOOKING_CURSOR_SALT
from connectivity.bookings.hotel_routes import blp as hotel_bookings_blp
from connectivity.store.database import Database
from connectivity.store.read_fence import READS_CHANGED, ReadFence, primary_wal_position
from connectivity.web.docs_page import PUBLIC_ENDPOINTS as DOCS_PAGE_ENDPOINTS, register_docs_page
from connectivity.web.console import blp as console_blp
from connectivity.auth.guards import Guards, build_guards
from connectivity.handshake.routes import blp as handshake_blp
from connectivity.health import blp as health_blp
from connectivity.logs import configure_logging
from connectivity.mapping.routes import blp as mapping_blp
from connectivity.metrics.endpoint import init_metrics
from connectivity.operator import (SettingsMissing, cli_without_settings, register_cli,
                                   settings_from_env)
from connectivity.store.replica import LagMonitor, ReadTarget
from connectivity.reservations.routes import blp as reservations_blp
from connectivity.events.cursor import EventCursors
from connectivity.events.routes import blp as events_blp
from connectivity.sandbox.openapi import SandboxScenarioPlugin
from connectivity.sandbox.operations import OPERATIONS as SANDBOX_OPERATIONS
from connectivity.sandbox.scenarios import SandboxScenarios
from connectivity.web import forced_outcomes, services
from connectivity.web.routing import register_converters
from connectivity.settings import Settings
from connectivity.webhooks.routes import blp as webhooks_blp
from connectivity.web.wire import (assign_request_id, enforce_body_cap, finish_response,
                                   forget_request, parse_json_body)

API_BLUEPRINTS = (handshake_blp, mapping_blp, availability_blp, bookings_blp, hotel_bookings_blp,
                  ari_blp, reservations_blp, events_blp, webhooks_blp)


@dataclass(frozen=True)
class Services:
    """What every part of the process gets through `connectivity.web.services.services()`:
    built once by `create_app`. Defined here, at the composition root, because it names every
    layer's classes: the web layer that keeps it names none of them."""
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
    # Search's read model: the machine's model host (HostedModel) or this process's own
    # (SearchModel); None when SEARCH_READ_MODEL is off.
    search_model: ReadModel | None = None


# Under the API prefix but public: the description and its docs page.
PUBLIC_ENDPOINT_PREFIXES = ("api-docs.", *DOCS_PAGE_ENDPOINTS)


def redis_pool(settings: Settings) -> redis.ConnectionPool:
    """A web process's Redis connections: at most `redis_pool_size`, a full pool waiting (up to
    the socket timeout) for one instead of failing; no bound when the size is None. (Not a
    BlockingConnectionPool of a huge size: it fills a queue with one slot per connection
    allowed, at creation.)"""
    options = {"socket_timeout": 2, "socket_connect_timeout": 2}
    if settings.redis_pool_size is None:
        return redis.ConnectionPool.from_url(settings.redis_url, **options)
    return redis.BlockingConnectionPool.from_url(
        settings.redis_url, max_connections=settings.redis_pool_size, timeout=2, **options)


def read_target(settings: Settings, primary: Database) -> ReadTarget:
    """Search, rates and the mapping reads: on DATABASE_READ_URL's replica when it is set."""
    if settings.database_read_url is None:
        return ReadTarget(primary)
    replica = Database(settings.database_read_url, max_size=settings.db_pool_size,
                       # A replica that stopped answering sends the read to the primary after
                       # this wait, not after the primary pool's full one.
                       timeout=min(1.0, settings.db_pool_timeout_seconds),
                       application_name="pcs-web-read",
                       statement_timeout_seconds=settings.db_statement_timeout_seconds,
                       idle_in_transaction_timeout_seconds=(
                           settings.db_idle_in_transaction_timeout_seconds))
    return ReadTarget(primary, replica,
                      LagMonitor(settings.database_read_url, settings.read_max_lag_seconds))


def search_model_for(settings: Settings, db: Database, read_fence: ReadFence) -> ReadModel:
    """The machine's model host when the gunicorn master started one (SEARCH_MODEL_SOCKET),
    else a model of this process's own."""
    if settings.search_model_socket:
        mapped = (MappedRates(read_fence.untouched, settings.search_model_refresh_seconds)
                  if (settings.search_model_mapped and settings.search_model_refresh_seconds
                      and ORDERED_MEMORY) else None)
        return HostedModel(settings.search_model_socket, socket_key(settings.secret_key),
                           mapped)
    return search_model_of(settings, db, read_fence.read_since)


def create_app(settings: Settings | None = None) -> Flask:
    if settings is None:
        try:
            settings = settings_from_env()
        except SettingsMissing as missing:
            # `flask --app app --help` in a shell without the settings: the commands, listed.
            return cli_without_settings(missing)
    configure_logging(settings.log_level)

    app = Flask("connectivity", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    # Every answer is in the envelope: no automatic OPTIONS (it would be an empty text/html 200),
    # and '//' in a path is 404 rather than a redirect.
    app.config["PROVIDE_AUTOMATIC_OPTIONS"] = False
    app.url_map.merge_slashes = False
    app.json.sort_keys = False
    db = Database(settings.database_url, max_size=settings.db_pool_size,
                  timeout=settings.db_pool_timeout_seconds,
                  statement_timeout_seconds=settings.db_statement_timeout_seconds,
                  idle_in_transaction_timeout_seconds=(
                      settings.db_idle_in_transaction_timeout_seconds))
    reads = read_target(settings, db)
    redis_client = redis.Redis(connection_pool=redis_pool(settings))
    read_fence = ReadFence(redis_client, settings.redis_prefix,
                           wal_position=(lambda: primary_wal_position(db))
                           if settings.database_read_url else None)
    guards = build_guards(settings, redis_client, read_fence)
    # Operator changes of what a key's row holds are announced after they commit, so every web
    # process's key cache drops its copies on the next request (auth/keycache.py).
    db.listen(KEY_STATE_CHANGED, guards.key_generation.replace)
    # Writes that reads must reflect move the read fence after they commit and before anyone is
    # told (store/read_fence.py). A route answers whatever happens: the write is committed.
    db.listen(READS_CHANGED, read_fence.move_or_warn)
    vault = SigningVault(settings.secret_key, settings.secret_key_previous)
    built = Services(
        settings=settings, db=db, reads=reads, redis=redis_client, guards=guards,
        ari_queue=BatchQueue(redis_client, settings.redis_prefix),
        feed_cursors=CursorSigner(settings.secret_keys),
        event_cursors=EventCursors(settings.secret_keys),
        booking_cursors=ListCursors(settings.secret_keys),
        hotel_booking_cursors=ListCursors(settings.secret_keys, HOTEL_BOOKING_CURSOR_SALT),
        quote_tokens=QuoteTokens(settings.secret_keys, settings.quote_ttl_seconds),
        vault=vault, confirmation_key=ConfirmationKey(db, vault),
        read_fence=read_fence,
        search_model=(search_model_for(settings, db, read_fence) if settings.search_read_model
                      else None))
    if built.search_model and settings.search_model_preload and not settings.search_model_socket:
        built.search_model.preload()
    services.register(app, built)

    # The sandbox scenarios: a plug-in of the forced outcomes, and the header's documentation.
    scenarios = SandboxScenarios(app, SANDBOX_OPERATIONS)
    forced_outcomes.register(app, scenarios)
    api = init_api(app, spec_plugins=[SandboxScenarioPlugin(scenarios)])
    app.extensions["connectivity.api"] = api
    register_converters(app, api)
    for hook in (assign_request_id, enforce_body_cap, guard_request, parse_json_body):
        app.before_request(hook)
    app.after_request(finish_response)
    app.teardown_request(forget_request)
    for blueprint in API_BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.register_blueprint(health_blp)
    init_metrics(app)

    register_docs_page(app, api.spec.title)
    app.register_blueprint(console_blp)  # /console: outside the API prefix, static files
    register_cli(app)
    _refuse_unguarded_routes(app)
    return app


def _refuse_unguarded_routes(app: Flask) -> None:
    """Fail closed: an API route that forgot `@requires` would be open to anyone."""
    with app.test_request_context():
        for rule in app.url_map.iter_rules():
            if (rule.rule.startswith(API_PREFIX)
                    and not rule.endpoint.startswith(PUBLIC_ENDPOINT_PREFIXES)
                    and policy_of(rule.endpoint) is None):
                raise RuntimeError(f"route {rule.rule} declares no access policy (@requires)")
