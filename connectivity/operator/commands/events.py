"""`events prune`."""

from __future__ import annotations

from flask.cli import AppGroup

from connectivity.events.retention import MIN_RETENTION_DAYS, prune_events
from connectivity.operator.commands.context import add_log_prune

group = AppGroup("events", help="The event log (GET /events, webhooks).")
add_log_prune(group, prune_events, MIN_RETENTION_DAYS, "event")
