"""The environments have one list, web/validators.ENVIRONMENTS. The places that enumerate them
in a form of their own list exactly those: the key id prefixes, the change-feed cursor's
encoding (it stores an environment as its position) and the operator CLI's choices."""

from __future__ import annotations

import click

from connectivity.auth.credentials import KEY_ID_PREFIX
from connectivity.availability import feed_cursor
from connectivity.web.validators import ENVIRONMENTS


def test_key_ids_have_a_prefix_per_environment():
    assert tuple(KEY_ID_PREFIX) == ENVIRONMENTS


def test_the_feed_cursor_encodes_every_environment():
    assert feed_cursor.ENVIRONMENTS == ENVIRONMENTS


def test_the_cli_offers_the_environments(app):
    with click.Context(app.cli) as context:
        issue = app.cli.get_command(context, "keys").get_command(context, "issue")
    [option] = [p for p in issue.params if p.name == "environment"]
    assert tuple(option.type.choices) == ENVIRONMENTS
