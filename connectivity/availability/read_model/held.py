"""What a search and a rates request read of one held hotel, for one partner's code: worked out
once when the grid is held (or moved), not on each request."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from connectivity.availability.grid import Mapping, Offer, PropertyGrid, columns_of

# The columns of offers.sql `offers` that are the rate plan's, besides its cancellation policy
# (the others: the partner's codes, the ids and the room type's capacity).
PLAN_COLUMNS = ("board_type", "currency", "base_adults", "max_adults", "max_children",
                "max_occupancy", "allowed_nationalities", "blocked_nationalities")


@dataclass(frozen=True, slots=True)
class RatesCatalogue:
    """A partner's mapping's offers as POST /availability/rates lists them (offers.sql
    `offers`), loaded with the hotel (model_rate_offers). What is the property's, its plans'
    columns and its room types' capacities, is one object for all its mappings, and equal
    values one object model-wide (`_shared`): on the bench data set 3.1 MiB for 1,500
    mappings, against 9.8 MiB as a tuple per offer and mapping (docs/operations.md 6.5)."""
    order: tuple[int, ...]           # indices into the grid's offers, in offers.sql's order
    room_type_codes: dict[int, str]  # room type -> the partner's code
    rate_plan_codes: dict[int, str]  # rate plan -> the partner's code
    plans: dict[int, dict]           # rate plan -> its PLAN_COLUMNS and policy (never changed)
    capacity: dict[int, int]         # room type -> its max occupancy


Rows = list[dict]


class Held:
    """A partner's code for a held hotel, and what every search of it reads, worked out once
    when the grid is held (or moved), not on each of the hotel's searches. Flat: a search
    reads these for up to 200 hotels, and one object each is what keeps that cheap (each
    object more is one more likely cache miss per hotel)."""

    __slots__ = ("grid", "mapping", "code", "active", "exact", "start", "window_end",
                 "timezone", "currency", "max_child_age", "arena", "offers", "columns",
                 "sole_currency", "native")

    def __init__(self, grid: PropertyGrid, mapping: Mapping):
        self.grid, self.mapping = grid, mapping
        self.code, self.active, self.exact = mapping.hotel_code, mapping.active, grid.exact
        self.start, self.window_end = grid.start, grid.window_end
        self.timezone, self.currency = grid.timezone, grid.currency
        self.max_child_age, self.arena = grid.max_child_age, grid.arena
        self.offers = (grid, mapping.rows)  # as grid.cheapest takes them
        self.columns = columns_of([(grid, mapping.rows)])  # where its mapped offers lie
        # The currency of every mapped plan when they share one ("" when none is mapped):
        # an answer in it converts nothing.
        currencies = mapping.currencies
        self.sole_currency = ("" if not currencies else
                              next(iter(currencies)) if len(currencies) == 1 else None)
        self.native = self.converts_nothing_into(grid.currency)  # answered in its own

    def converts_nothing_into(self, currency: str) -> bool:
        return self.sole_currency == "" or self.sole_currency == currency

    def covers(self, check_in: dt.date, check_out: dt.date) -> bool:
        """Whether the stay and its check-out day lie inside the grid's days."""
        return self.start <= check_in and check_out < self.window_end

    def rate_offers(self, room_type_codes: list[str] | None, rate_plan_codes: list[str] | None
                    ) -> tuple[list[dict], np.ndarray]:
        return rate_offers(self.mapping.rates, self.grid.offers, room_type_codes,
                           rate_plan_codes)


def rate_offers(rates: RatesCatalogue | None, held: tuple[Offer, ...],
                room_type_codes: list[str] | None, rate_plan_codes: list[str] | None
                ) -> tuple[list[dict], np.ndarray]:
    """A mapping's offers as offers.sql `offers` reads them (narrowed to the codes when given,
    in its order), and their indices in the grid's offers (`held`). The dicts are new; the
    policies and nationality tuples in them are shared and never changed."""
    offers, local = [], []
    if rates is not None:
        rooms = None if room_type_codes is None else set(room_type_codes)
        plans = None if rate_plan_codes is None else set(rate_plan_codes)
        for at in rates.order:
            rt, rp = held[at].room_type_id, held[at].rate_plan_id
            room_code, plan_code = rates.room_type_codes[rt], rates.rate_plan_codes[rp]
            if (rooms is None or room_code in rooms) and (plans is None or plan_code in plans):
                offers.append({"room_type_code": room_code, "room_type_id": rt,
                               "room_type_max_occupancy": rates.capacity[rt],
                               "rate_plan_code": plan_code, "rate_plan_id": rp,
                               **rates.plans[rp]})
                local.append(at)
    return offers, np.array(local, np.int64)
