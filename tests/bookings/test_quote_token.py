"""Quote tokens without a server: bound, signed, bounded in length, expiring."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from connectivity.bookings.quote_token import MAX_TOKEN_LENGTH, QuoteTokens, StayBinding
from connectivity.bookings.records import request_fingerprint
from connectivity.web.errors import Conflict, InvalidQuoteToken
from connectivity.pricing import RoomOccupancy

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc)
TOKENS = QuoteTokens("s" * 40, 900)


def binding(**changes) -> StayBinding:
    fields = dict(partner_id=7, environment="sandbox", hotel_code="H", room_type_code="R",
                  rate_plan_code="P", check_in=dt.date(2026, 12, 1),
                  check_out=dt.date(2026, 12, 3), rooms=2,
                  occupancy=(RoomOccupancy(2), RoomOccupancy(1, (5, None))))
    return StayBinding(**{**fields, **changes})


def test_round_trip_and_expiry():
    token, expires = TOKENS.issue(binding(), Decimal("123.45"), "EUR", "PT", NOW)
    assert expires == NOW + dt.timedelta(seconds=900)
    quoted = TOKENS.open(token, NOW + dt.timedelta(seconds=899))
    assert (quoted.total, quoted.currency, quoted.nationality) == (Decimal("123.45"), "EUR", "PT")
    TOKENS.ensure_for(quoted, binding())
    with pytest.raises(Conflict) as exc:
        TOKENS.open(token, NOW + dt.timedelta(seconds=900))
    assert exc.value.code == "quote_expired"


def test_a_token_signed_before_a_rotation_opens_while_its_key_is_previous():
    """SECRET_KEY_PREVIOUS (docs/operations.md 5.4): the old key verifies, the new one signs."""
    old_token, _ = QuoteTokens("o" * 40, 900).issue(binding(), Decimal("10"), "EUR", None, NOW)
    rotating = QuoteTokens(["o" * 40, "n" * 40], 900)
    assert rotating.open(old_token, NOW).total == Decimal("10")
    new_token, _ = rotating.issue(binding(), Decimal("11"), "EUR", None, NOW)
    assert QuoteTokens("n" * 40, 900).open(new_token, NOW).total == Decimal("11")
    with pytest.raises(InvalidQuoteToken):
        QuoteTokens("n" * 40, 900).open(old_token, NOW)  # once the old key is dropped


@pytest.mark.parametrize("changes", [
    {"partner_id": 8}, {"environment": "production"}, {"hotel_code": "H2"},
    {"room_type_code": "R2"}, {"rate_plan_code": "P2"}, {"check_in": dt.date(2026, 11, 30)},
    {"check_out": dt.date(2026, 12, 4)}, {"rooms": 3},
    {"occupancy": (RoomOccupancy(2), RoomOccupancy(1, (5, 6)))},
    {"occupancy": (RoomOccupancy(2), RoomOccupancy(2, (5, None)))},
])
def test_bound_to_every_part_of_the_stay(changes):
    quoted = TOKENS.open(TOKENS.issue(binding(), Decimal(1), "EUR", None, NOW)[0], NOW)
    with pytest.raises(Conflict) as exc:
        TOKENS.ensure_for(quoted, binding(**changes))
    assert exc.value.code == "quote_mismatch"


@pytest.mark.parametrize("changes, fields", [
    ({"partner_id": 8}, {}), ({"environment": "production"}, {}),   # the stay is the same
    ({"hotel_code": "H2", "check_in": dt.date(2026, 11, 30)},
     {"hotel_code": {"quoted": "H", "requested": "H2"},
      "check_in": {"quoted": "2026-12-01", "requested": "2026-11-30"}}),
    ({"occupancy": (RoomOccupancy(1, (None, 5)), RoomOccupancy(3))},
     {"occupancy": {"quoted": [{"adults": 1, "child_ages": [None, 5]},
                               {"adults": 2, "child_ages": []}],
                    "requested": [{"adults": 1, "child_ages": [None, 5]},
                                  {"adults": 3, "child_ages": []}]}}),
])
def test_a_mismatch_names_each_field_with_its_quoted_and_requested_values(changes, fields):
    quoted = TOKENS.open(TOKENS.issue(binding(), Decimal(1), "EUR", None, NOW)[0], NOW)
    with pytest.raises(Conflict) as exc:
        TOKENS.ensure_for(quoted, binding(**changes))
    assert exc.value.details == {"fields": fields}
    assert ("another partner or environment" in exc.value.message) is (not fields)


def test_a_value_too_long_to_carry_is_named_without_its_quoted_value():
    long_code = "R" * 40   # over CARRIED_BYTES: carried as a digest
    many_rooms = tuple(RoomOccupancy(a, (c,)) for a in range(1, 6) for c in range(6))
    quoted = TOKENS.open(TOKENS.issue(binding(room_type_code=long_code, rooms=30,
                                              occupancy=many_rooms),
                                      Decimal(1), "EUR", None, NOW)[0], NOW)
    TOKENS.ensure_for(quoted, binding(room_type_code=long_code, rooms=30, occupancy=many_rooms))
    with pytest.raises(Conflict) as exc:
        TOKENS.ensure_for(quoted, binding(room_type_code=long_code + "X", rooms=30,
                                          occupancy=many_rooms[:-1] + (RoomOccupancy(9),)))
    fields = exc.value.details["fields"]
    assert list(fields) == ["room_type_code", "occupancy"]
    assert fields["room_type_code"] == {"quoted": None, "requested": long_code + "X"}
    assert fields["occupancy"]["quoted"] is None
    assert len(fields["occupancy"]["requested"]) == 30


def test_a_token_from_before_it_carried_the_stay_still_books_and_mismatches_plainly():
    # Issued just before the upgrade (its payload has no "s"): read as then, for its 15 minutes.
    serializer = TOKENS._serializer
    older = serializer.dumps({"b": binding().digest(), "t": "1", "c": "EUR", "n": None,
                              "x": int(NOW.timestamp()) + 900})
    quoted = TOKENS.open(older, NOW)
    TOKENS.ensure_for(quoted, binding())
    with pytest.raises(Conflict) as exc:
        TOKENS.ensure_for(quoted, binding(rooms=3))
    assert exc.value.code == "quote_mismatch" and not exc.value.details


def test_room_order_does_not_matter():
    quoted = TOKENS.open(TOKENS.issue(binding(), Decimal(1), "EUR", None, NOW)[0], NOW)
    TOKENS.ensure_for(quoted, binding(occupancy=(RoomOccupancy(1, (None, 5)), RoomOccupancy(2))))


def test_another_key_or_salt_is_invalid():
    token, _ = QuoteTokens("t" * 40, 900).issue(binding(), Decimal(1), "EUR", None, NOW)
    with pytest.raises(InvalidQuoteToken):
        TOKENS.open(token, NOW)


@given(st.integers(0, 200), st.sampled_from("AZaz09-_."))
def test_no_altered_character_changes_what_it_says(position, replacement):
    """Refused, except where base64 ignores the bits: the signature's last character carries
    2 unused bits, so a few spellings decode to the very same signature and say the same."""
    token, _ = TOKENS.issue(binding(), Decimal("99.99"), "EUR", None, NOW)
    position %= len(token)
    altered = token[:position] + replacement + token[position + 1:]
    if altered == token:
        return
    try:
        quoted = TOKENS.open(altered, NOW)
    except InvalidQuoteToken:
        return
    assert position == len(token) - 1
    assert quoted == TOKENS.open(token, NOW)


def test_longest_stay_fits_in_512_characters():
    longest = binding(hotel_code="H" * 120, room_type_code="R" * 120, rate_plan_code="P" * 120,
                      rooms=30, occupancy=(RoomOccupancy(20, (17,) * 10),) * 30)
    token, _ = TOKENS.issue(longest, Decimal("999999999999.999"), "KWD", "PT", NOW)
    assert len(token) <= MAX_TOKEN_LENGTH


def test_the_longest_stay_carried_in_plain_fits_in_512_characters():
    # Codes of random two-byte characters just within CARRIED_BYTES and distinct rooms just
    # within CARRIED_OCCUPANCY_BYTES: the least compressible payload that carries every value.
    rnd = random.Random(7)
    longest = 0
    for _ in range(50):
        codes = ["".join(chr(rnd.randrange(0xA0, 0x7FF)) for _ in range(16)) for _ in range(3)]
        rooms: list[RoomOccupancy] = []
        while True:
            more = [*rooms, RoomOccupancy(rnd.randint(1, 20), tuple(
                rnd.randint(0, 17) for _ in range(rnd.randint(0, 3))))]
            stay = binding(hotel_code=codes[0], room_type_code=codes[1], rate_plan_code=codes[2],
                           check_out=dt.date(2027, 11, 30), rooms=len(more), occupancy=tuple(more))
            if isinstance(stay.carried()[-1], dict):
                break
            rooms = more
        stay = binding(hotel_code=codes[0], room_type_code=codes[1], rate_plan_code=codes[2],
                       check_out=dt.date(2027, 11, 30), rooms=len(rooms), occupancy=tuple(rooms))
        assert not any(isinstance(value, dict) for value in stay.carried())
        token, _ = TOKENS.issue(stay, Decimal("999999999999.999"), "KWD", "PT", NOW)
        longest = max(longest, len(token))
    assert longest <= MAX_TOKEN_LENGTH


def test_fingerprint_ignores_spelling_not_content():
    a = {"total_amount": Decimal("200.00"), "check_in": dt.date(2026, 1, 2), "guests": [1, 2]}
    b = {"guests": [1, 2], "check_in": dt.date(2026, 1, 2), "total_amount": Decimal("2E+2")}
    assert request_fingerprint(a) == request_fingerprint(b)
    assert request_fingerprint(a) != request_fingerprint({**a, "guests": [2, 1]})


def test_quote_ttl_setting():
    from connectivity.settings import Settings, SettingsError
    env = {"DATABASE_URL": "postgresql://x", "REDIS_URL": "redis://x", "SECRET_KEY": "k" * 32}
    assert Settings.from_env(env).quote_ttl_seconds == 900
    assert Settings.from_env({**env, "QUOTE_TTL_SECONDS": "60"}).quote_ttl_seconds == 60
    with pytest.raises(SettingsError):
        Settings.from_env({**env, "QUOTE_TTL_SECONDS": "0"})
