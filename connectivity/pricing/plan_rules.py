"""What a rate plan allows: occupancy limits and nationality rules.

These are properties of the plan, not of a night, so they are checked once per stay (and per
room for occupancy) rather than per date.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from connectivity.pricing.occupancy import RoomOccupancy

__all__ = ["RatePlanRules", "nationality_allowed", "occupancy_fits"]


@dataclass(frozen=True)
class RatePlanRules:
    """A rate plan's occupancy and nationality rules, as the catalogue holds them.

    `base_adults` is how many adults the room `rate` already covers; each adult above it pays
    `extra_adult_rate`. Nationalities are ISO-2 codes; an empty `allowed_nationalities` means
    "no allow-list", not "nobody".
    """

    base_adults: int
    max_adults: int
    max_children: int
    max_occupancy: int
    allowed_nationalities: frozenset[str] = frozenset()
    blocked_nationalities: frozenset[str] = frozenset()

    @classmethod
    def build(cls, *, base_adults: int, max_adults: int, max_children: int, max_occupancy: int,
              allowed_nationalities: Iterable[str] = (),
              blocked_nationalities: Iterable[str] = ()) -> RatePlanRules:
        """From plain values (e.g. a database row's lists); codes are upper-cased once here so
        that the comparison in `nationality_allowed` is case-insensitive."""
        return cls(base_adults, max_adults, max_children, max_occupancy,
                   frozenset(c.upper() for c in allowed_nationalities),
                   frozenset(c.upper() for c in blocked_nationalities))

    @property
    def has_nationality_rules(self) -> bool:
        return bool(self.allowed_nationalities or self.blocked_nationalities)


def occupancy_fits(plan: RatePlanRules, room: RoomOccupancy,
                   room_type_max_occupancy: int) -> bool:
    """Whether one room's guests are within the plan's limits and the room type's capacity.

    Over-age children are already adults in `room`, so they count against `max_adults`.
    A room needs an adult: the contract bounds adults to at least 1 everywhere.
    """
    return (1 <= room.adults <= plan.max_adults
            and room.children <= plan.max_children
            and room.total <= plan.max_occupancy
            and room.total <= room_type_max_occupancy)


def nationality_allowed(plan: RatePlanRules, nationality: str | None) -> bool:
    """Whether the plan may be sold to a guest of this nationality.

    A plan with any nationality rule needs a nationality to check it against: selling a
    restricted (often cheaper, market-specific) plan to an unknown guest would defeat the rule
    (contract section 10).
    """
    if not plan.has_nationality_rules:
        return True
    if nationality is None:
        return False
    code = nationality.upper()
    if plan.allowed_nationalities and code not in plan.allowed_nationalities:
        return False
    return code not in plan.blocked_nationalities
