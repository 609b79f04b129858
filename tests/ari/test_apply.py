"""PUT /ari and PUT /ari/restrictions applied by a real RQ worker: per-field upsert, replay,
acceptance order, rejected rows, days_of_week."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from connectivity.ari.apply import apply_batch
from tests.support.ari_days import set_room_days

from tests.ari.conftest import START, day


def test_a_batch_is_applied_by_the_worker_and_its_outcome_read(put, work, outcome, room_days,
                                                               plan_days):
    batch_id = put([
        {"room_type_code": "ACME-DBL", "date": day(0), "availability": 7},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
         "rate": "120.50", "currency": "EUR", "single_rate": 99, "extra_adult_rate": 30.1,
         "extra_child_rate": "0", "min_stay": 2, "closed_to_arrival": True},
        {"room_type_code": "ACME-DBL", "date": day(1), "closed": True, "max_stay": 14},
    ])
    queued = outcome(batch_id)
    assert queued["status"] == "queued" and queued["applied_at"] is None
    assert work() == 1

    done = outcome(batch_id)
    assert done == {**done, "batch_id": batch_id, "kind": "ari", "hotel_code": "ACME-LIS",
                    "status": "applied", "item_count": 3, "applied_count": 3,
                    "rejected_count": 0, "rejected": []}
    assert dt.datetime.fromisoformat(done["applied_at"]) >= dt.datetime.fromisoformat(
        done["received_at"])
    rooms = room_days("LIS1", "DBL")
    assert rooms[day(0)]["available"] == 7 and rooms[day(0)]["closed"] is None
    assert (rooms[day(1)]["closed"], rooms[day(1)]["max_stay"],
            rooms[day(1)]["available"]) == (True, 14, None)
    plan = plan_days("LIS1", "DBL", "BAR")[day(0)]
    assert (plan["rate"], plan["single_rate"], plan["extra_adult_rate"],
            plan["extra_child_rate"]) == (Decimal("120.50"), Decimal("99"), Decimal("30.1"),
                                          Decimal("0"))
    assert (plan["min_stay"], plan["closed_to_arrival"], plan["closed"]) == (2, True, None)


def test_fields_absent_are_left_as_they_were(put, work, room_days, plan_days):
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 4, "min_stay": 3},
         {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
          "rate": 100, "single_rate": 80}])
    put([{"room_type_code": "ACME-DBL", "date": day(0), "closed": True},
         {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
          "rate": 110}])
    # One job applies both (ari/apply.py groups waiting batches); the other's job is dropped.
    assert work() == 1
    room = room_days("LIS1", "DBL")[day(0)]
    assert (room["available"], room["min_stay"], room["closed"]) == (4, 3, True)
    plan = plan_days("LIS1", "DBL", "BAR")[day(0)]
    assert (plan["rate"], plan["single_rate"]) == (Decimal("110"), Decimal("80"))


def test_applying_a_batch_again_changes_nothing(db, put, work, batch_queue, room_days,
                                                outcome):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(d), "availability": 5}
                    for d in range(3)])
    work()
    # A booking took a room since; a replay of the batch must not give it back.
    with db.connection() as conn:
        conn.execute("UPDATE room_type_days SET available = available - 1 WHERE date = %s",
                     (START,))
    before = room_days("LIS1", "DBL")
    first = outcome(batch_id)

    assert batch_queue.enqueue(batch_id)
    assert work() == 1
    assert apply_batch(db, batch_id) is None  # and directly: already finished
    assert room_days("LIS1", "DBL") == before
    assert before[day(0)]["available"] == 4
    assert outcome(batch_id) == first


def test_batches_applied_in_reverse_order_keep_the_newer_values(put, work, batch_queue,
                                                                 redis_client, room_days,
                                                                 plan_days):
    older = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1,
                  "closed": True},
                 {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
                  "rate": 50, "single_rate": 40}])
    newer = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 9},
                 {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
                  "rate": 150}])
    # The worker sees the newer batch first.
    batch_queue.queue.empty()
    batch_queue.enqueue(newer)
    batch_queue.enqueue(older)
    # The newer batch's job applies both, in one transaction (the older's job is dropped).
    assert work() == 1

    room = room_days("LIS1", "DBL")[day(0)]
    plan = plan_days("LIS1", "DBL", "BAR")[day(0)]
    # Newer values win field by field; what only the older batch said still applies.
    assert (room["available"], room["closed"]) == (9, True)
    assert (plan["rate"], plan["single_rate"]) == (Decimal("150"), Decimal("40"))


def test_within_a_batch_the_later_item_wins(put, work, room_days):
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1},
         {"room_type_code": "ACME-DBL", "date": day(0), "availability": 2, "closed": False},
         {"room_type_code": "ACME-DBL", "date": day(0), "closed": True}])
    work()
    room = room_days("LIS1", "DBL")[day(0)]
    assert (room["available"], room["closed"]) == (2, True)


def test_rows_that_cannot_apply_are_rejected_with_a_code_and_the_rest_applies(
        put, work, outcome, room_days, plan_days):
    today = dt.date.today()
    items = [
        {"room_type_code": "NOPE", "date": day(0), "availability": 1},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "NOPE", "date": day(0), "rate": 1},
        {"room_type_code": "ACME-SGL", "rate_plan_code": "ACME-NRF", "date": day(0),
         "rate": 1},
        {"room_type_code": "ACME-DBL", "date": day(0), "rate": 1},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
         "rate": 1, "currency": "USD"},
        {"room_type_code": "ACME-DBL", "date": day(0), "min_stay": 5, "max_stay": 4},
        {"room_type_code": "ACME-DBL", "date": (today - dt.timedelta(days=3)).isoformat(),
         "availability": 1},
        {"room_type_code": "ACME-DBL", "date": (today + dt.timedelta(days=800)).isoformat(),
         "availability": 1},
        {"room_type_code": "ACME-DBL", "date": day(0), "availability": 6},
    ]
    batch_id = put(items)
    work()
    result = outcome(batch_id)
    assert (result["status"], result["applied_count"], result["rejected_count"]) == (
        "partially_applied", 1, 8)
    assert [(r["index"], r["code"]) for r in result["rejected"]] == [
        (0, "unknown_room_type"), (1, "unknown_rate_plan"), (2, "rate_plan_not_for_room_type"),
        (3, "price_without_rate_plan"), (4, "currency_mismatch"),
        (5, "min_stay_above_max_stay"), (6, "date_in_past"), (7, "date_too_far")]
    messages = {r["code"]: r["message"] for r in result["rejected"]}
    assert "'NOPE'" in messages["unknown_room_type"]
    assert "USD" in messages["currency_mismatch"] and "EUR" in messages["currency_mismatch"]
    # Only the good row landed; the rejected ones wrote nothing, not even a partial row.
    assert {d: r["available"] for d, r in room_days("LIS1", "DBL").items()} == {day(0): 6}
    assert plan_days("LIS1", "DBL", "BAR") == {}
    assert plan_days("LIS1", "SGL", "NRF") == {}


def test_a_batch_with_no_applicable_row_is_rejected(put, work, outcome):
    batch_id = put([{"room_type_code": "NOPE", "date": day(0), "availability": 1}])
    work()
    result = outcome(batch_id)
    assert (result["status"], result["applied_count"], result["rejected_count"]) == (
        "rejected", 0, 1)


def test_restrictions_apply_to_the_selected_weekdays_of_each_range(put, work, outcome,
                                                                   room_days, plan_days):
    monday = START + dt.timedelta(days=(7 - START.weekday()) % 7)
    sunday = monday + dt.timedelta(days=13)
    batch_id = put([
        {"room_type_code": "ACME-DBL", "from_date": monday.isoformat(),
         "to_date": sunday.isoformat(), "days_of_week": [4, 5], "closed_to_arrival": True},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
         "from_date": monday.isoformat(), "to_date": (monday + dt.timedelta(days=2)).isoformat(),
         "min_stay": 2, "closed": False},
    ], path="/ari/restrictions")
    work()
    assert outcome(batch_id)["status"] == "applied"
    assert outcome(batch_id)["kind"] == "restrictions"

    rooms = room_days("LIS1", "DBL")
    assert sorted(rooms) == [(monday + dt.timedelta(days=d)).isoformat()
                             for d in (4, 5, 11, 12)]  # Fridays and Saturdays
    assert all(r["closed_to_arrival"] and r["min_stay"] is None for r in rooms.values())
    plan = plan_days("LIS1", "DBL", "BAR")
    assert sorted(plan) == [(monday + dt.timedelta(days=d)).isoformat() for d in range(3)]
    assert {(r["min_stay"], r["closed"]) for r in plan.values()} == {(2, False)}


def test_a_range_reaching_into_the_past_applies_from_yesterday(put, work, room_days):
    today = dt.date.today()
    put([{"room_type_code": "ACME-SGL", "from_date": (today - dt.timedelta(days=30)).isoformat(),
          "to_date": (today + dt.timedelta(days=3)).isoformat(), "closed": True}],
        path="/ari/restrictions")
    work()
    # "Yesterday" is the hotel's (Lisbon), which is at most a day off ours.
    first = min(room_days("LIS1", "SGL"))
    assert (today - dt.timedelta(days=2)).isoformat() <= first <= today.isoformat()
    assert max(room_days("LIS1", "SGL")) == (today + dt.timedelta(days=3)).isoformat()


def test_what_tests_wrote_directly_is_overwritten_by_any_batch(db, put, work, room_days):
    # Values with no batch order (written before the push existed) count as oldest.
    set_room_days(db, "LIS1", "DBL", [START], available=3, closed=True)
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 8}])
    work()
    room = room_days("LIS1", "DBL")[day(0)]
    assert (room["available"], room["closed"]) == (8, True)
