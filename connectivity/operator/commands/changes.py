"""`changes prune`."""

from __future__ import annotations

from flask.cli import AppGroup

from connectivity.availability.changes_retention import MIN_RETENTION_DAYS, prune_changes
from connectivity.operator.commands.context import add_log_prune

group = AppGroup("changes", help="The change feed (GET /availability/changes).")
add_log_prune(group, prune_changes, MIN_RETENTION_DAYS, "change")
