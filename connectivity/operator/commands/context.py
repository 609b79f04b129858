"""What a command reads of the app it runs in (the FlaskGroup pushes the app context)."""

from __future__ import annotations

from flask import current_app

from connectivity.settings import Settings
from connectivity.store.database import Database


def database() -> Database:
    return current_app.extensions["connectivity.db"]


def settings() -> Settings:
    return current_app.extensions["connectivity.settings"]
