"""Stay restrictions of one date, and how the room-type and rate-plan levels combine.

Restrictions can be set for a room type (and so all its rate plans) and for one rate plan of it
(contract section 8). The effective value is always the stricter of the two, so neither level
can loosen what the other one set.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NightRestrictions", "effective"]


@dataclass(frozen=True)
class NightRestrictions:
    """Restrictions on one date. None means "not set at this level" (ARI is a per-field upsert,
    so a level may have set only some of them)."""

    closed: bool | None = None
    min_stay: int | None = None
    max_stay: int | None = None
    closed_to_arrival: bool | None = None
    closed_to_departure: bool | None = None


def _stricter(a: int | None, b: int | None, pick) -> int | None:
    values = [v for v in (a, b) if v is not None]
    return pick(values) if values else None


def effective(room_type_level: NightRestrictions | None,
              rate_plan_level: NightRestrictions | None) -> NightRestrictions:
    """The restrictions that apply to a (room type, rate plan, date).

    Closed, CTA and CTD if either level says so (absent counts as open, so the flags come out
    as plain booleans); `min_stay` the larger and `max_stay` the smaller of those set, None when
    neither level set one (no limit).
    """
    rt = room_type_level or NightRestrictions()
    rp = rate_plan_level or NightRestrictions()
    return NightRestrictions(
        closed=bool(rt.closed) or bool(rp.closed),
        min_stay=_stricter(rt.min_stay, rp.min_stay, max),
        max_stay=_stricter(rt.max_stay, rp.max_stay, min),
        closed_to_arrival=bool(rt.closed_to_arrival) or bool(rp.closed_to_arrival),
        closed_to_departure=bool(rt.closed_to_departure) or bool(rp.closed_to_departure),
    )
