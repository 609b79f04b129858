"""From the statements' rows to the model's values: a hotel's days as arrays, its offers, each
partner's mapping and rates catalogue. Equal values are one object model-wide."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from connectivity.availability.grid import (INEXACT, PLAN_WIDTH, ROOM_WIDTH, Mapping, Offer,
                                            int8_rows, lookup, pack_restrictions)
from connectivity.pricing.money import minor_units
from connectivity.availability.read_model.held import PLAN_COLUMNS, RatesCatalogue

def fill_days(rp_sent: bytes | None, rt_sent: bytes | None, offers, room_type_ids, money,
              plan_flags, room_flags, available) -> bool:
    """Write a property's day rows (model_days, as sent) into its arrays; False when a value
    does not fit the integer layout."""
    rp, rt = int8_rows(rp_sent, PLAN_WIDTH), int8_rows(rt_sent, ROOM_WIDTH)
    exact = not (rp[:, 3:7] == INEXACT).any()
    if len(rp) and offers:
        keys = np.array([o.room_type_id << 32 | o.rate_plan_id for o in offers], np.int64)
        rows, hit = lookup(keys, rp[:, 0] << 32 | rp[:, 1])  # a pair no plan sells: no offer
        day = rp[hit, 2]
        money[rows, day] = rp[hit, 3:7]
        plan_flags[rows, day] = pack_restrictions(*rp[hit, 7:12].T)
    if len(rt) and room_type_ids:
        at, hit = lookup(np.array(room_type_ids, np.int64), rt[:, 0])
        available[at, rt[hit, 1]] = rt[hit, 2]
        room_flags[at, rt[hit, 1]] = pack_restrictions(*rt[hit, 3:8].T)
    return bool(exact)


def offer_of(row: dict) -> Offer:
    # Currencies and nationality sets are shared (`shared`): every hotel's offers have them,
    # and a frozenset made anew is 216 bytes, even empty (about 13 KiB a hotel of 30 offers).
    return Offer(row["room_type_id"], row["rate_plan_id"], shared(row["currency"]),
                 minor_units(row["currency"]), row["base_adults"], row["max_adults"],
                 row["max_children"], row["max_occupancy"],
                 shared(frozenset(c.upper() for c in row["allowed_nationalities"])),
                 shared(frozenset(c.upper() for c in row["blocked_nationalities"])))


def mapping_of(row: dict, offers: list[Offer], offer_rows: dict,
             rates: RatesCatalogue | None) -> Mapping:
    rts, rps = set(row["room_type_ids"]), set(row["rate_plan_ids"])
    rows = np.array([i for (rt, rp), i in offer_rows.items() if rt in rts and rp in rps],
                    np.int64)
    rows = np.sort(rows)
    return Mapping(row["mapping_id"], row["partner_id"], row["environment"], row["hotel_code"],
                   row["distribution_active"], rows, frozenset(row["plan_currencies"]), rates)


def rates_catalogues(rows: Iterable[dict], offer_rows: dict) -> dict[int, RatesCatalogue]:
    """One property's model_rate_offers rows, in their order, as each mapping's catalogue."""
    plans: dict[int, dict] = {}
    capacity: dict[int, int] = {}
    mapped: dict[int, tuple[list[int], dict[int, str], dict[int, str]]] = {}
    for row in rows:
        rt, rp = row["room_type_id"], row["rate_plan_id"]
        at = offer_rows.get((rt, rp))
        if at is None:
            # An offer the load's earlier statement did not see: a catalogue load committed in
            # between, whose content change reloads the hotel.
            continue
        if rp not in plans:
            plans[rp] = {**{c: shared(row[c]) for c in PLAN_COLUMNS},
                         "cancellation_policy": policy_of(row["cancellation_policy"])}
        capacity[rt] = row["room_type_max_occupancy"]
        order, room_codes, plan_codes = mapped.setdefault(row["mapping_id"], ([], {}, {}))
        order.append(at)
        room_codes[rt] = shared(row["room_type_code"])
        plan_codes[rp] = shared(row["rate_plan_code"])
    return {mapping_id: RatesCatalogue(tuple(order), room_codes, plan_codes, plans, capacity)
            for mapping_id, (order, room_codes, plan_codes) in mapped.items()}


# Equal catalogue values of every hotel held are one object (codes, boards and currencies
# repeat across hotels and channels, policies across plans): without it they were two thirds
# of the catalogues' memory. Bounded: a value no longer held stays cached until pushed out.
@lru_cache(maxsize=65536)
def policy_of(text: str) -> dict:
    return json.loads(text)  # shared: never changed (rates only writes it out)


def shared(value):
    """The one object of a value equal to it (a list becomes a tuple)."""
    return interned(tuple(value) if isinstance(value, list) else value)


@lru_cache(maxsize=65536, typed=True)
def interned(value):
    return value
