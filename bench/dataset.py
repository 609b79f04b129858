"""The bench catalogue: 1,000 sandbox properties x 10 room types x 3 rate plans (each plan sells
all 10 room types), two partners, FX rates. Seeded, so every run builds the same catalogue, and
the scenarios can name hotels and codes without asking the database.

The variety is deliberate: occupancy limits differ per plan, some plans carry nationality rules,
currencies include one without minor units (JPY), so that search and rates do the work they do
in production rather than the easy path only."""

from __future__ import annotations

import json
import os
import random
from dataclasses import asdict, dataclass
from decimal import Decimal

SEED = 20261121
# Bump when the shape or the values of the generated data change: the marker then no longer
# matches and the next run regenerates.
DATASET_VERSION = 1

ALL_PARTNER = "bench-all"      # maps every property
HALF_PARTNER = "bench-half"    # maps every other property, two of the three plans

# (country, timezone, currency); cycled over the properties.
LOCATIONS = (
    ("PT", "Europe/Lisbon", "EUR"), ("ES", "Europe/Madrid", "EUR"), ("FR", "Europe/Paris", "EUR"),
    ("IT", "Europe/Rome", "EUR"), ("DE", "Europe/Berlin", "EUR"), ("GB", "Europe/London", "GBP"),
    ("US", "America/New_York", "USD"), ("JP", "Asia/Tokyo", "JPY"), ("NL", "Europe/Amsterdam", "EUR"),
    ("GR", "Europe/Athens", "EUR"),
)
# (code, name, max_occupancy)
ROOM_TYPES = (
    ("SGL", "Single", 1), ("DBL", "Double", 2), ("TWN", "Twin", 2), ("TRP", "Triple", 3),
    ("QUA", "Quadruple", 4), ("FAM", "Family room", 5), ("STU", "Studio", 2),
    ("JSU", "Junior suite", 3), ("SUI", "Suite", 4), ("APT", "Apartment", 6),
)
# (code, name, board type, price factor, cancellation policy)
RATE_PLANS = (
    ("BAR", "Flexible", "BB", Decimal("1.00"),
     {"non_refundable": False, "tiers": [{"within_hours": 48, "penalty": {"type": "nights", "value": 1}}]}),
    ("NRF", "Non-refundable", "RO", Decimal("0.85"), {"non_refundable": True, "tiers": []}),
    ("HBR", "Half board, residents", "HB", Decimal("1.30"),
     {"non_refundable": False, "tiers": [{"within_hours": 168, "penalty": {"type": "percent", "value": 50}},
                                         {"within_hours": 24, "penalty": {"type": "percent", "value": 100}}]}),
)
FX_RATES = (("EUR", "USD", "1.0850"), ("USD", "EUR", "0.9217"), ("EUR", "GBP", "0.8600"),
            ("GBP", "EUR", "1.1628"), ("EUR", "JPY", "162.40"), ("JPY", "EUR", "0.006158"),
            ("USD", "GBP", "0.7926"), ("GBP", "USD", "1.2616"))


# BENCH_HOTELS: how many properties (1,000 unless set; the memory and cold-start measurements
# of docs/benchmarks.md use 10,000 too, in a database of their own: BENCH_DATABASE).
HOTELS = int(os.environ.get("BENCH_HOTELS", "1000"))


@dataclass(frozen=True)
class Spec:
    properties: int = HOTELS
    days: int = 365
    seed: int = SEED
    version: int = DATASET_VERSION

    def as_dict(self) -> dict:
        return asdict(self)


def property_code(n: int) -> str:
    return f"BP{n:04d}"  # BP0001 .. BP1000, then BP10000 on: still distinct


def hotel_code(partner: str, prop_code: str) -> str:
    return f"{'BA' if partner == ALL_PARTNER else 'BH'}-{prop_code}"


def hotel_codes(spec: Spec, partner: str = ALL_PARTNER) -> list[str]:
    """The hotel codes `partner` knows, in property order (what search scenarios ask for)."""
    return [hotel_code(partner, property_code(n)) for n in range(1, spec.properties + 1)
            if partner == ALL_PARTNER or n % 2 == 0]


def mapped_code(partner: str, internal: str) -> str:
    """A partner's code for a room type or rate plan: the same for every property."""
    return f"{'BA' if partner == ALL_PARTNER else 'BH'}-{internal}"


def build_catalog(spec: Spec) -> dict:
    """The catalogue in the shape `catalog load` reads (contract section 9)."""
    rng = random.Random(spec.seed)
    properties = []
    for n in range(1, spec.properties + 1):
        country, tz, currency = LOCATIONS[(n - 1) % len(LOCATIONS)]
        plans = []
        for p, (code, name, board, _, policy) in enumerate(RATE_PLANS):
            base_adults = rng.choice((1, 2, 2, 2))
            max_adults = base_adults + rng.choice((0, 1, 1, 2))
            max_children = rng.choice((0, 1, 2, 2, 3))
            plans.append({
                "code": code, "name": name, "board_type": board, "currency": currency,
                "room_types": [r[0] for r in ROOM_TYPES], "base_adults": base_adults,
                "max_adults": max_adults, "max_children": max_children,
                "max_occupancy": max(max_adults, min(6, max_adults + max_children)),
                **_nationality_rules(n, p), "cancellation_policy": policy})
        properties.append({
            "code": property_code(n), "name": f"Bench hotel {n}", "environment": "sandbox",
            "country": country, "timezone": tz, "currency": currency,
            "max_child_age": rng.choice((11, 12, 15, 17)),
            "room_types": [{"code": c, "name": nm, "max_occupancy": occ} for c, nm, occ in ROOM_TYPES],
            "rate_plans": plans})
    partners = [_partner(spec, ALL_PARTNER, "Bench (all properties)", [r[0] for r in RATE_PLANS]),
                _partner(spec, HALF_PARTNER, "Bench (half the properties)", ["BAR", "NRF"])]
    fx = [{"base": b, "quote": q, "rate": r} for b, q, r in FX_RATES]
    return {"properties": properties, "partners": partners, "fx_rates": fx}


def catalog_json(spec: Spec) -> str:
    return json.dumps(build_catalog(spec), default=str)


def _nationality_rules(n: int, plan_index: int) -> dict:
    # The residents' plan of one property in five sells to Iberian guests only, and one in
    # seven blocks a nationality: search and rates must evaluate the rules, not skip them.
    if plan_index == 2 and n % 5 == 0:
        return {"allowed_nationalities": ["PT", "ES"], "blocked_nationalities": []}
    if plan_index == 0 and n % 7 == 0:
        return {"allowed_nationalities": [], "blocked_nationalities": ["RU"]}
    return {"allowed_nationalities": [], "blocked_nationalities": []}


def _partner(spec: Spec, code: str, name: str, plans: list[str]) -> dict:
    mappings = []
    for n in range(1, spec.properties + 1):
        if code != ALL_PARTNER and n % 2:
            continue
        mappings.append({
            "property": property_code(n), "hotel_code": hotel_code(code, property_code(n)),
            "active": True,
            "room_types": {r[0]: mapped_code(code, r[0]) for r in ROOM_TYPES},
            "rate_plans": {p: mapped_code(code, p) for p in plans}})
    return {"code": code, "name": name, "mappings": mappings}
