"""The read-back's JSON written from plain rows (connectivity/ari/readback_document.py): every
date of every level, amounts exactly as PostgreSQL wrote them, set_by from the batches named."""

from __future__ import annotations

import datetime as dt
import json

from connectivity.ari.readback_document import named_batch_seqs, readback_document

FIRST = dt.date(2027, 1, 1)
LEVELS = [{"room_type_id": 1, "room_type_code": "DBL", "rate_plan_id": 7,
           "rate_plan_code": "BAR", "currency": "EUR"},
          {"room_type_id": 2, "room_type_code": "SGL", "rate_plan_id": None,
           "rate_plan_code": None, "currency": None}]
# (room_type_id, day, available, closed, min_stay, max_stay, cta, ctd, batches)
ROOM_ROWS = [(1, 1, 4, False, None, None, None, None, "30,31,,,,"),
             (9, 0, 1, None, None, None, None, None, None)]   # a room type not listed
# (room_type_id, rate_plan_id, day, rate, single, adult, child, closed, min, max, cta, ctd,
#  batches)
PLAN_ROWS = [(1, 7, 0, "120.50", None, "0.000001", None, None, 2, None, None, None,
              "31,,32,,,,,,"),
             (1, 7, 2, "99", None, None, None, True, None, None, None, None, "31,,,,31,,,,")]
NAMES = {30: "batch-30", 31: "other_partner"}   # 32: a batch no longer there


def document() -> tuple[str, dict]:
    text = readback_document("ACME-LIS", FIRST, FIRST + dt.timedelta(days=2), LEVELS,
                             ROOM_ROWS, PLAN_ROWS, [(1, 1, 3)], NAMES).decode()
    return text, json.loads(text)


def test_every_date_of_every_listed_level_with_nulls_where_no_row_is():
    _, data = document()
    assert (data["hotel_code"], data["from_date"], data["to_date"]) == (
        "ACME-LIS", "2027-01-01", "2027-01-03")
    dbl, sgl = data["room_types"]
    assert [d["date"] for d in dbl["days"]] == ["2027-01-01", "2027-01-02", "2027-01-03"]
    assert dbl["days"][0] == {"date": "2027-01-01", "availability": None, "rooms_sold": 0,
                              "closed": None, "min_stay": None, "max_stay": None,
                              "closed_to_arrival": None, "closed_to_departure": None,
                              "set_by": {}}
    assert (dbl["days"][1]["availability"], dbl["days"][1]["rooms_sold"]) == (4, 3)
    assert sgl == {"room_type_code": "SGL", "rate_plans": [], "days": [
        {"date": d, "availability": None, "rooms_sold": 0, "closed": None, "min_stay": None,
         "max_stay": None, "closed_to_arrival": None, "closed_to_departure": None,
         "set_by": {}} for d in ("2027-01-01", "2027-01-02", "2027-01-03")]}
    plan = dbl["rate_plans"][0]
    assert (plan["rate_plan_code"], plan["currency"]) == ("BAR", "EUR")
    assert plan["days"][1]["rate"] is None and plan["days"][2]["closed"] is True


def test_amounts_are_written_as_postgresql_wrote_them():
    text, _ = document()
    assert '"rate":120.50,' in text and '"extra_adult_rate":0.000001,' in text


def test_set_by_names_the_batches_found_per_field_with_a_value():
    _, data = document()
    dbl = data["room_types"][0]
    assert dbl["days"][1]["set_by"] == {"availability": "batch-30", "closed": "other_partner"}
    days = dbl["rate_plans"][0]["days"]
    # extra_adult_rate's batch 32 is gone: not named.
    assert days[0]["set_by"] == {"rate": "other_partner"}
    assert days[2]["set_by"] == {"rate": "other_partner", "closed": "other_partner"}
    assert named_batch_seqs(ROOM_ROWS, PLAN_ROWS) == [30, 31, 32]
