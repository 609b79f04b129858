"""Process health for the platform: outside the versioned prefix, no authentication."""

from __future__ import annotations

from flask import Blueprint, jsonify

from connectivity.web.envelope import error_response, success_body
from connectivity.store.queries import queries
from connectivity.web.services import services

blp = Blueprint("health", __name__)


@blp.get("/healthz")
def healthz():
    """The process is up and answering."""
    return jsonify(success_body({"status": "ok"}))


@blp.get("/readyz")
def readyz():
    """The database and Redis are reachable: the process can serve traffic."""
    checks = {"database": _check(_database), "redis": _check(_redis)}
    if all(v == "ok" for v in checks.values()):
        return jsonify(success_body({"status": "ready", "checks": checks}))
    return error_response(503, "service_unavailable", "a backing service is unreachable",
                          {"checks": checks}, {"Retry-After": "5"})


def _database() -> None:
    services().db.run(queries().health.ping_database)


def _redis() -> None:
    services().redis.ping()


def _check(probe) -> str:
    try:
        probe()
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready"; reported, not raised
        return f"unavailable ({type(exc).__name__})"
