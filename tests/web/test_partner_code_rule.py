"""The one partner-code rule (validators.PARTNER_CODE_RE, the description's pattern, the path
converter) against the database's CHECK `^[^/[:cntrl:]]{1,120}$`: whatever the API lets through
the database stores, so a code can never turn into a 500 at the INSERT."""

from __future__ import annotations

import random

import psycopg

from connectivity.web.routing import HotelCodeConverter
from connectivity.web.validators import PARTNER_CODE_PATTERN, PARTNER_CODE_RE

SAMPLES = ["ACME-LIS", "a", "x" * 120, "x" * 121, "", "with/slash", "tab\there", "nul\x00",
           "del\x7f", "c1\x85", "c1\x9f", "Lisboa Centro ☀", "ü" * 120, "日本", "emoji 🏨",
           "quote'\"", "percent%20", "back\\slash", "\u00a0nbsp", "line\nbreak"]


def database_accepts(conn, value: str) -> bool:
    return conn.execute("SELECT %s ~ '^[^/[:cntrl:]]{1,120}$'", (value,)).fetchone()[0]


def test_what_the_api_accepts_the_database_stores(services):
    rng = random.Random(20261124)
    generated = ["".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0, 0x20),
                                         rng.randrange(0x7f, 0xa0), rng.randrange(0xa0, 0x3000),
                                         0x2f]))
                         for _ in range(rng.randrange(1, 8))) for _ in range(400)]
    with psycopg.connect(services.database_url, prepare_threshold=None) as conn:
        for value in SAMPLES + generated:
            if "\x00" in value:
                continue  # PostgreSQL text cannot hold it at all; wire.py refuses it first
            api = bool(PARTNER_CODE_RE.match(value))
            if api:
                assert database_accepts(conn, value), repr(value)
            # Outside C1 (which the API refuses and the server's locale may not call control
            # characters) the two agree exactly.
            if not any("\x80" <= ch <= "\x9f" for ch in value):
                assert api == database_accepts(conn, value), repr(value)


def test_the_description_and_the_path_say_the_same_rule():
    assert PARTNER_CODE_PATTERN == "^" + PARTNER_CODE_RE.pattern[1:-2] + "$"
    assert HotelCodeConverter.pattern == PARTNER_CODE_PATTERN


def test_a_list_of_codes_loads_as_the_per_item_list_does():
    """PartnerCodes takes a valid list in one pass: what it loads, and every message it gives
    for a bad list, must be those of fields.List(PartnerCode()), item by item."""
    from marshmallow import ValidationError, fields

    from connectivity.web.fields import PartnerCode, PartnerCodes
    from connectivity.web.schema import Schema

    class OnePass(Schema):
        codes = PartnerCodes()

    class PerItem(Schema):
        codes = fields.List(PartnerCode())

    def outcome(schema, value):
        try:
            return "loaded", schema.load({"codes": value})
        except ValidationError as exc:
            return "refused", exc.messages

    bad_ones = [None, 7, "ACME-LIS", {"a": 1}, True, 3.5, ["ok", 5], ["ok", None]]
    for value in [SAMPLES, [s for s in SAMPLES if PARTNER_CODE_RE.match(s)], [], ["a", "a"],
                  *bad_ones, *[[s] for s in SAMPLES]]:
        assert outcome(OnePass(), value) == outcome(PerItem(), value), repr(value)
    assert outcome(OnePass(), ["ACME-LIS", "x/y"])[0] == "refused"
