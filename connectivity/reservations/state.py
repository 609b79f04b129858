"""A reservation's state as stored (jsonb: amounts as exact decimal strings, dates ISO) and as
shown to the partner."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from connectivity.pricing.money import round_money

# What a modify replaces: the complete new stay, never a diff (specification, modify).
MODIFIED_FIELDS = ("check_in", "check_out", "rooms", "net_amount", "net_currency", "modified_at")
SHOWN_FIELDS = ("guest_confirmation", "hotel_code", "check_in", "check_out", "rooms", "guests",
                "contact", "sell_amount", "sell_currency", "net_amount", "net_currency",
                "is_non_refundable", "cancellation_deadline", "special_requests", "booked_at",
                "modified_at")


# The personal fields of a delivery, which `privacy purge` removes (connectivity/operator/
# privacy.py, sql/queries/operator/purge_guest_data.sql): a cancel's free-text reason, the
# others' guests, contact and special requests.
PERSONAL_FIELDS = {"cancel": ("reason",), "create": ("guests", "contact", "special_requests")}


def purged_fields(row: dict, kind: str) -> list[str]:
    """What a delivery of this kind keeps out once the reservation's guest data was purged: a
    redelivery or a late cancel does not bring it back."""
    return list(PERSONAL_FIELDS.get(kind, ())) if row["guest_data_purged_at"] else []


def to_json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return value


def with_modification(state: dict, modification: dict) -> dict:
    new = {k: v for k, v in state.items() if k not in MODIFIED_FIELDS}
    new.update({k: v for k, v in to_json(modification).items() if k in MODIFIED_FIELDS})
    return new


def _money(amount: str | None, currency: str | None) -> Decimal | None:
    if amount is None:
        return None
    return round_money(Decimal(amount), currency) if currency else Decimal(amount)


def shown(row: dict) -> dict:
    """The `reservation` of a response. Before the reservation itself arrived (only a cancel or
    a modify did) every field of its content is null."""
    state = row["state"] or {}
    view = {name: state.get(name) for name in SHOWN_FIELDS}
    view["sell_amount"] = _money(state.get("sell_amount"), state.get("sell_currency"))
    view["net_amount"] = _money(state.get("net_amount"), state.get("net_currency"))
    if view["rooms"] is not None:
        view["rooms"] = [
            {**room, **({"nightly_rates": [{"date": r["date"], "amount": Decimal(r["amount"])}
                                           for r in room["nightly_rates"]]}
                        if "nightly_rates" in room else {})}
            for room in view["rooms"]]
    return {"partner_reference": row["partner_reference"], "status": row["status"],
            "received": row["received_at"] is not None, **view,
            "received_at": row["received_at"], "created_at": row["created_at"],
            "updated_at": row["updated_at"], "version": row["version"],
            # `privacy purge` (connectivity/operator/privacy.py) took guests, contact and
            # special_requests out of the state: they read null, and this says why.
            "guest_data_purged": row["guest_data_purged_at"] is not None,
            "guest_data_purged_at": row["guest_data_purged_at"]}
