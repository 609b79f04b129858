"""The operators' CLI of contract section 9: `flask --app app db|catalog|keys|distribution ...`,
`privacy purge`, and `citus distribute` (docs/operations.md 6.4).

commands/ holds one module per command group, each command a thin shell over one use case; the
modules beside it (catalog, keys, key_rotation, migrations, citus, demo_ari, privacy) are the
operators' use cases."""

from __future__ import annotations

from flask import Flask

from connectivity.operator.commands import (ari, catalog, changes, citus, db, distribution,
                                            events, keys, privacy, reconciliation, webhooks)


def register_cli(app: Flask) -> None:
    for command_group in (db, catalog, keys, distribution, ari, changes, events, reconciliation,
                          citus, privacy, webhooks):
        app.cli.add_command(command_group.group)
