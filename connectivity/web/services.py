"""The process's services, as every part of it gets them (routes, the guard, health, metrics, the
CLI): built once by the composition root (app.py, whose `Services` names what they are and
their types), read by `services()` (`services_of(app)` outside a request or app context). The
web layer only keeps them: it names no class of the layers above it, not even for the type
checker (.importlinter's layers)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app

EXTENSION = "connectivity.services"


def register(app: Flask, services: Any) -> None:
    app.extensions[EXTENSION] = services


def services_of(app: Flask) -> Any:
    return app.extensions[EXTENSION]


def services() -> Any:
    """The running app's services (in a request or app context)."""
    return current_app.extensions[EXTENSION]
