"""Shared by the API tests."""

from __future__ import annotations

import dataclasses

import pytest

from app import create_app


@pytest.fixture
def make_app(settings):
    """make_app(**settings_changes) -> a fresh app with pools of its own; closed at teardown."""
    made = []

    def _make(**changes):
        application = create_app(dataclasses.replace(settings, **changes))
        made.append(application)
        return application

    yield _make
    for application in made:
        application.extensions["connectivity.db"].close()
        application.extensions["connectivity.guards"].close()
