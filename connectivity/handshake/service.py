"""Handshake use cases: answered from the authenticated caller alone, no further query."""

from __future__ import annotations

from datetime import datetime

from connectivity.auth.authenticate import Caller
from connectivity.auth.scopes import SCOPES


def ping(caller: Caller, now: datetime) -> dict:
    return {"pong": True, "environment": caller.environment,
            "server_time": now.replace(microsecond=0)}


def whoami(caller: Caller) -> dict:
    return {
        "partner": {"code": caller.partner_code, "name": caller.partner_name},
        "key": {"key_id": caller.key_id, "name": caller.key_name,
                "environment": caller.environment,
                "requires_signature": caller.requires_signature,
                "expires_at": caller.expires_at,
                "rate_limit_per_minute": caller.rate_limit_per_minute},
        "scopes": [s for s in SCOPES if s in caller.scopes],
        "mapped_properties": caller.mapped_properties,
    }
