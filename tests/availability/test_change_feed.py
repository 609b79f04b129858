"""GET /availability/changes (contract 11.3): every cause in the caller's codes, pages and
cursors, retention (410 cursor_expired), and the bad input rules. The no-gap guarantee under
concurrent writers is tests/availability/test_change_feed_no_gap.py."""

from __future__ import annotations

import datetime as dt
import json

import psycopg
import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.ari.conftest import batch_queue, push, put, redis_client, work  # noqa: F401
from tests.bookings.conftest import GLOBEX, booking_body

from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.availability.conftest import API, START, day
from tests.support.feed import settle

CHANGES = f"{API}/availability/changes"


@pytest.fixture
def pull(issue, catalog):
    return {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}


@pytest.fixture
def feed(client, pull, db):
    """feed(cursor=None, headers=pull, limit=None) -> data, once every transaction committed
    before the call is below the feed's horizon."""
    def _feed(cursor=None, headers=None, limit=None) -> dict:
        settle(db)
        query = {k: v for k, v in (("cursor", cursor), ("limit", limit)) if v is not None}
        return assert_envelope_success(client.get(CHANGES, query_string=query,
                                                  headers=headers or pull))
    return _feed


class Poller:
    def __init__(self, feed, headers=None):
        self.feed, self.headers = feed, headers
        self.cursor = feed(headers=headers)["next_cursor"]

    def poll(self) -> list[dict]:
        """Every change since the last poll, page after page."""
        seen = []
        while True:
            data = self.feed(self.cursor, headers=self.headers)
            seen += data["changes"]
            self.cursor = data["next_cursor"]
            if not data["has_more"]:
                return seen


def brief(changes: list[dict]) -> list[tuple]:
    return [(c["hotel_code"], c["room_type_code"], c["rate_plan_code"], c["from_date"],
             c["to_date"], tuple(c["kinds"])) for c in changes]


def test_without_a_cursor_the_position_and_no_change(feed, catalog, db):
    set_room_days(db, "LIS1", "DBL", [START], available=3)  # before: not served
    data = feed()
    assert data["changes"] == [] and data["has_more"] is False
    assert 0 < len(data["next_cursor"]) <= 200
    again = feed(data["next_cursor"])
    assert again["changes"] == [] and again["has_more"] is False


def test_ari_applied_appears_in_the_callers_codes(feed, put, work, client, db, issue):
    poller = Poller(feed)
    put([{"room_type_code": "ACME-DBL", "date": day(0).isoformat(), "availability": 4},
         {"room_type_code": "ACME-DBL", "date": day(3).isoformat(), "availability": 4},
         {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
          "date": day(1).isoformat(), "rate": 100, "min_stay": 2}])
    assert poller.poll() == []  # accepted, not applied: nothing visible changed
    assert work() == 1
    changes = poller.poll()
    assert sorted(brief(changes), key=str) == sorted([
        ("ACME-LIS", "ACME-DBL", None, day(0).isoformat(), day(3).isoformat(),
         ("availability",)),
        ("ACME-LIS", "ACME-DBL", "ACME-BAR", day(1).isoformat(), day(1).isoformat(),
         ("rate", "restrictions"))], key=str)
    assert all(dt.datetime.fromisoformat(c["changed_at"]).tzinfo for c in changes)
    assert poller.poll() == []
    # The same batch again changes nothing, so the feed says nothing.
    put([{"room_type_code": "ACME-DBL", "date": day(0).isoformat(), "availability": 4}])
    work()
    assert poller.poll() == []


def test_bookings_and_reservations_and_their_cancels_appear(feed, client, db, issue, catalog):
    nights = stay_dates(START, 6)
    set_room_days(db, "LIS1", "DBL", nights, available=9)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    pull = {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}
    pushing = {"Authorization": f"Bearer {issue('push', signed=False).token}"}
    poller = Poller(feed)
    availability = ("ACME-LIS", "ACME-DBL", None)

    body = booking_body("B-1", nights=2, total="200.00")
    body["check_in"], body["check_out"] = day(0).isoformat(), day(2).isoformat()
    assert_envelope_success(client.post(f"{API}/bookings", json=body, headers=pull), 201)
    assert brief(poller.poll()) == [(*availability, day(0).isoformat(), day(1).isoformat(),
                                     ("availability",))]
    assert_envelope_success(client.post(f"{API}/bookings/B-1/cancel", json={}, headers=pull))
    assert brief(poller.poll()) == [(*availability, day(0).isoformat(), day(1).isoformat(),
                                     ("availability",))]

    reservation = {"partner_reference": "R-1", "hotel_code": "ACME-LIS", "status": "confirmed",
                   "check_in": day(2).isoformat(), "check_out": day(4).isoformat(),
                   "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}],
                   "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                               "is_adult": True}],
                   "net_amount": "100.00", "net_currency": "EUR"}
    assert_envelope_success(client.post(f"{API}/reservations", json=reservation,
                                        headers=pushing), 201)
    assert brief(poller.poll()) == [(*availability, day(2).isoformat(), day(3).isoformat(),
                                     ("availability",))]
    modify = {"check_in": day(4).isoformat(), "check_out": day(5).isoformat(),
              "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}],
              "net_amount": "100.00", "net_currency": "EUR"}
    assert_envelope_success(client.post(f"{API}/reservations/R-1/modify", json=modify,
                                        headers=pushing))
    ranges = {(c["from_date"], c["to_date"]) for c in poller.poll()}
    # Released 2..3 and took 4: one statement each or one for both, every night covered.
    covered = {d for first, last in ranges
               for d in stay_dates(dt.date.fromisoformat(first),
                                   (dt.date.fromisoformat(last) -
                                    dt.date.fromisoformat(first)).days + 1)}
    assert {day(2), day(3), day(4)} <= covered
    assert_envelope_success(client.post(f"{API}/reservations/R-1/cancel", json={},
                                        headers=pushing))
    assert brief(poller.poll()) == [(*availability, day(4).isoformat(), day(4).isoformat(),
                                     ("availability",))]


def test_pause_shows_distribution_only_until_resumed(feed, app, db, catalog):
    poller = Poller(feed)
    runner = app.test_cli_runner()

    def distribution(action):
        result = runner.invoke(args=["distribution", action, "--partner", "acme",
                                     "--property", "LIS1"])
        assert result.exit_code == 0, result.output

    distribution("pause")
    set_room_days(db, "LIS1", "DBL", [START], available=2)   # hidden while paused
    set_room_days(db, "OPO1", "TWN", [START], available=2)   # another hotel: shown
    # Oldest first within a node's changes; two hotels may live on two Citus workers, whose
    # transaction ids say nothing of each other's order.
    assert sorted(brief(poller.poll()), key=str) == sorted([
        ("ACME-LIS", None, None, None, None, ("distribution",)),
        ("ACME-OPO", "ACME-TWN", None, START.isoformat(), START.isoformat(),
         ("availability",))], key=str)
    distribution("resume")
    assert brief(poller.poll()) == [("ACME-LIS", None, None, None, None, ("distribution",))]


def test_catalogue_loads_that_change_content_appear_once_per_property(feed, db, catalog):
    poller = Poller(feed)
    db.run(load_catalog, catalog)                       # the same file: nothing changed
    assert poller.poll() == []
    changed = json.loads(json.dumps(catalog, default=str))
    changed["properties"][1]["room_types"][0]["name"] = "Twin Superior"
    db.run(load_catalog, parse_catalog(json.dumps(changed)))
    assert brief(poller.poll()) == [("ACME-OPO", None, None, None, None, ("content",))]


def test_only_the_callers_hotels_room_types_and_plans_in_its_codes(feed, client, db, issue,
                                                                   catalog):
    db.run(load_catalog, parse_catalog(GLOBEX))         # globex maps LIS1's DBL and BAR only
    globex = {"Authorization": f"Bearer {issue('pull', partner='globex').token}"}
    acme, theirs = Poller(feed), Poller(feed, globex)
    set_room_days(db, "LIS1", "SGL", [START], available=1)
    set_plan_days(db, "LIS1", "DBL", "NRF", [START], rate="90")
    set_plan_days(db, "LIS1", "DBL", "BAR", [START], rate="95")
    set_room_days(db, "OPO1", "TWN", [START], available=1)
    assert len(acme.poll()) == 4
    assert brief(theirs.poll()) == [("GLX-LIS", "GLX-DBL", "GLX-BAR", START.isoformat(),
                                     START.isoformat(), ("rate",))]
    # acme maps nothing in production: a production key is refused before any feed.
    production = {"Authorization": f"Bearer {issue('pull', environment='production').token}"}
    assert_envelope_failure(client.get(CHANGES, headers=production), 403,
                            "no_mapped_properties")


def test_pages_follow_each_other_without_loss(feed, db, catalog):
    cursor = feed()["next_cursor"]
    for offset in range(5):
        set_room_days(db, "LIS1", "DBL", [START + dt.timedelta(days=offset)],
                      available=offset)
    dates, pages = [], 0
    while True:
        data = feed(cursor, limit=2)
        pages += 1
        assert len(data["changes"]) <= 2
        dates += [c["from_date"] for c in data["changes"]]
        cursor = data["next_cursor"]
        if not data["has_more"]:
            break
    assert dates == [(START + dt.timedelta(days=o)).isoformat() for o in range(5)]
    assert pages == 3


def test_each_origin_keeps_its_own_position(feed, db, catalog, services):
    """On Citus, LIS1 and OPO1 live on two workers, each counting its own transaction ids. LIS1's
    worker is pushed ahead of OPO1's, LIS1's change served (the reader caught up), then OPO1's
    change, whose xid is below the position LIS1's served, must still be served: one (xid, id)
    position for the whole feed would skip it. On plain PostgreSQL the same steps run with one
    origin."""
    poller = Poller(feed)
    set_room_days(db, "LIS1", "DBL", [START], available=1)
    set_room_days(db, "OPO1", "TWN", [START], available=1)
    assert len(poller.poll()) == 2
    with db.connection() as conn:
        origin = {r["code"]: r["origin"] for r in conn.execute(
            "SELECT DISTINCT p.code, c.origin FROM change_log c "
            "JOIN properties p ON p.id = c.property_id")}
        nodes = {r["origin"]: (int(r["horizon"]), int(r["next_xid"])) for r in conn.execute(
            "SELECT origin, horizon::text, next_xid::text FROM change_feed_horizons()")}
    if len(nodes) > 2:  # Citus with two workers: the two hotels are on both
        assert origin["LIS1"] != origin["OPO1"], origin
    if origin["LIS1"] != origin["OPO1"]:
        behind = nodes[origin["OPO1"]][1] - nodes[origin["LIS1"]][0] + 50
        # Transactions that change nothing (nothing logged), each one an xid on LIS1's node.
        with psycopg.connect(services.database_url, autocommit=True) as conn:
            conn.execute(f"""DO $$ BEGIN FOR i IN 1..{max(behind, 0)} LOOP
                UPDATE room_type_days SET available = available
                 WHERE property_id = (SELECT id FROM properties WHERE code = 'LIS1')
                   AND date = '{START.isoformat()}';
                COMMIT; END LOOP; END $$""")
    set_room_days(db, "LIS1", "DBL", [START], available=2)
    assert [c["hotel_code"] for c in poller.poll()] == ["ACME-LIS"]
    set_room_days(db, "OPO1", "TWN", [START], available=2)
    assert [c["hotel_code"] for c in poller.poll()] == ["ACME-OPO"]
    with db.connection() as conn:
        xid = {r["code"]: int(r["xid"]) for r in conn.execute(
            "SELECT p.code, max(c.xid::text::bigint) AS xid FROM change_log c "
            "JOIN properties p ON p.id = c.property_id GROUP BY p.code")}
    if origin["LIS1"] != origin["OPO1"]:
        assert xid["OPO1"] < xid["LIS1"], xid  # a single position would have skipped it


def test_a_cursor_not_ours_or_another_partners_is_410(feed, client, pull, db, issue, catalog):
    db.run(load_catalog, parse_catalog(GLOBEX))
    globex = {"Authorization": f"Bearer {issue('pull', partner='globex').token}"}
    theirs = feed(headers=globex)["next_cursor"]
    ours = feed()["next_cursor"]
    for cursor in (theirs, ours[:-2] + ("AA" if not ours.endswith("AA") else "BB"),
                   "not-a-cursor"):
        error = assert_envelope_failure(client.get(CHANGES, query_string={"cursor": cursor},
                                                   headers=pull), 410, "cursor_expired")
        assert "without a cursor" in error["message"]


def test_a_cursor_older_than_the_pruned_changes_is_410(feed, client, pull, app, db, catalog):
    old = feed()["next_cursor"]
    set_room_days(db, "LIS1", "DBL", [START], available=1)
    with db.connection() as conn:
        conn.execute("UPDATE change_log SET changed_at = now() - interval '8 days'")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["changes", "prune", "--days", "6"]).exit_code != 0
    result = runner.invoke(args=["changes", "prune"])
    assert result.exit_code == 0 and "change(s) older than 7 day(s)" in result.output, \
        result.output
    assert result.output != "pruned 0 change(s) older than 7 day(s)\n"
    assert_envelope_failure(client.get(CHANGES, query_string={"cursor": old}, headers=pull),
                            410, "cursor_expired")
    fresh = feed()["next_cursor"]
    set_room_days(db, "LIS1", "DBL", [START], available=2)
    assert len(feed(fresh)["changes"]) == 1


@pytest.mark.parametrize("query, field", [
    ({"cursor": "x" * 201}, "cursor"), ({"cursor": ""}, "cursor"),
    ({"limit": "0"}, "limit"), ({"limit": "1001"}, "limit"), ({"limit": "ten"}, "limit"),
    ({"limit": "2.5"}, "limit"),
])
def test_bad_parameters_are_422(client, pull, query, field):
    error = assert_envelope_failure(client.get(CHANGES, query_string=query, headers=pull),
                                    422, "validation_failed")
    assert field in error["details"]["fields"]


def test_a_push_key_may_not_read_the_feed(client, push):
    assert_envelope_failure(client.get(CHANGES, headers=push), 403, "insufficient_scope")
