"""Who sleeps in each room: the per-room occupancy that prices and fits a stay.

Two inputs produce it. Availability, rates and quote requests send an `occupancy` array (one
entry for every room, or one entry per room); a booking sends `guests` keyed by `room_number`.
Both end as one RoomOccupancy per room, with children older than the property's
`max_child_age` already moved to the adults (contract section 8: such a child "counts and is
priced as an adult"), so nothing downstream needs the age threshold again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["OccupancyError", "RoomOccupancy", "normalise_occupancy", "occupancy_from_guests"]


class OccupancyError(ValueError):
    """Invalid occupancy; `fields` maps a request path to messages, as 422 `validation_failed`
    reports them in `details.fields` (e.g. {"occupancy.1.child_ages": ["..."]})."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{path}: {', '.join(msgs)}" for path, msgs in fields.items()))
        self.fields = fields


@dataclass(frozen=True)
class RoomOccupancy:
    """Guests of one room, as priced: `adults` includes children above the age threshold;
    `children_ages` holds one entry per child priced as a child, None when no age was given
    (a child with no age is still a child: contract section 10)."""

    adults: int
    children_ages: tuple[int | None, ...] = ()

    @property
    def children(self) -> int:
        return len(self.children_ages)

    @property
    def total(self) -> int:
        return self.adults + self.children

    def with_extra_adult(self) -> RoomOccupancy:
        return RoomOccupancy(self.adults + 1, self.children_ages)


def _classify(adults: int, ages: Sequence[int | None], max_child_age: int) -> RoomOccupancy:
    """Move children older than the threshold to the adults; keep the rest as children."""
    over_age = sum(1 for age in ages if age is not None and age > max_child_age)
    children = tuple(age for age in ages if age is None or age <= max_child_age)
    return RoomOccupancy(adults + over_age, children)


def _is_count(value: Any) -> bool:
    # bool is an int in Python but `true` is not a head count.
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_entry(entry: Mapping[str, Any], path: str,
                 errors: dict[str, list[str]]) -> tuple[int, list[int | None]] | None:
    """(adults, child ages) of one occupancy entry, or None after recording its errors.

    The schema already bounds these fields; the checks here keep this function total on its own
    (no KeyError or TypeError reaches the API as a 500).
    """
    ok = True
    adults = entry.get("adults") if isinstance(entry, Mapping) else None
    if not _is_count(adults) or adults < 1:
        errors.setdefault(f"{path}.adults", []).append("must be an integer of at least 1")
        ok = False
    children = entry.get("children", 0) if isinstance(entry, Mapping) else 0
    if children is None:
        children = 0
    if not _is_count(children) or children < 0:
        errors.setdefault(f"{path}.children", []).append("must be an integer of at least 0")
        return None
    ages = entry.get("child_ages") if isinstance(entry, Mapping) else None
    if ages is None:
        # Ages not sent: every child is a child (priced with extra_child_rate).
        ages = [None] * children
    elif not isinstance(ages, Sequence) or isinstance(ages, str):
        errors.setdefault(f"{path}.child_ages", []).append("must be an array of ages")
        return None
    elif len(ages) != children:
        errors.setdefault(f"{path}.child_ages", []).append(
            f"must have exactly one age per child: {children} expected, {len(ages)} given")
        return None
    else:
        for i, age in enumerate(ages):
            if not _is_count(age) or age < 0:
                errors.setdefault(f"{path}.child_ages.{i}", []).append(
                    "must be an integer of at least 0")
                ok = False
    return (adults, list(ages)) if ok else None


def normalise_occupancy(entries: Sequence[Mapping[str, Any]], rooms: int, max_child_age: int,
                        *, field: str = "occupancy") -> tuple[RoomOccupancy, ...]:
    """One RoomOccupancy per room from a request's `occupancy` array.

    One entry applies to every room; otherwise there must be exactly `rooms` entries, in room
    order. Anything else is ambiguous (which room gets which guests?) and is refused rather than
    guessed. Raises OccupancyError with every failing path at once.
    """
    if rooms < 1:
        raise ValueError("rooms must be at least 1")
    if not entries:
        raise OccupancyError({field: ["must have at least one entry"]})
    if len(entries) not in (1, rooms):
        raise OccupancyError({field: [
            f"must have 1 entry (applied to every room) or exactly {rooms} (one per room), "
            f"{len(entries)} given"]})
    errors: dict[str, list[str]] = {}
    parsed = [_parse_entry(entry, f"{field}.{i}", errors) for i, entry in enumerate(entries)]
    if errors:
        raise OccupancyError(errors)
    per_room = [_classify(adults, ages, max_child_age) for adults, ages in parsed]
    if len(per_room) == 1:
        per_room = per_room * rooms
    return tuple(per_room)


def occupancy_from_guests(guests: Sequence[Mapping[str, Any]], rooms: int, max_child_age: int,
                          *, field: str = "guests") -> tuple[RoomOccupancy, ...]:
    """One RoomOccupancy per room from a booking's `guests` (contract section 10).

    `is_adult` guests are adults; the others are children with their `age`, and a child older
    than `max_child_age` is priced as an adult. Every room 1..rooms needs at least one guest
    declared `is_adult`: an over-age child makes the price an adult's, but does not make a
    room of minors a room with an adult in it.
    """
    if rooms < 1:
        raise ValueError("rooms must be at least 1")
    errors: dict[str, list[str]] = {}
    adults = [0] * (rooms + 1)          # index 0 unused: room numbers start at 1
    declared_adults = [0] * (rooms + 1)
    ages: list[list[int | None]] = [[] for _ in range(rooms + 1)]
    for i, guest in enumerate(guests):
        number = guest.get("room_number") if isinstance(guest, Mapping) else None
        if not _is_count(number) or not 1 <= number <= rooms:
            errors.setdefault(f"{field}.{i}.room_number", []).append(
                f"must be a room number between 1 and {rooms}")
            continue
        if guest.get("is_adult") is True:
            adults[number] += 1
            declared_adults[number] += 1
            continue
        age = guest.get("age")
        if age is not None and (not _is_count(age) or age < 0):
            errors.setdefault(f"{field}.{i}.age", []).append("must be an integer of at least 0")
            continue
        ages[number].append(age)
    for number in range(1, rooms + 1):
        if declared_adults[number] == 0:
            errors.setdefault(field, []).append(f"room {number} must have at least one adult")
    if errors:
        raise OccupancyError(errors)
    return tuple(_classify(adults[n], ages[n], max_child_age) for n in range(1, rooms + 1))
