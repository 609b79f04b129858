"""What a command reads of the app it runs in (the FlaskGroup pushes the app context)."""

from __future__ import annotations

from connectivity.settings import Settings
from connectivity.store.database import Database
from connectivity.web.services import services


def database() -> Database:
    return services().db


def settings() -> Settings:
    return services().settings
