"""clients/python end to end against the real service (HTTP, PostgreSQL, Redis, the worker):
the recommended call order, retries, idempotent bookings, errors, signing and the clock."""

from __future__ import annotations

import ast
import datetime as dt
import re
import subprocess
import sys
import tomllib
from decimal import Decimal

import httpx
import psycopg
import pytest

from pcs_client import (ApiError, Client, ClockSkewError, InvalidRequest, UnknownOption,
                        verify_webhook)
from pcs_client.signing import signed_headers
from tests.support.live_service import live_origin, worker  # noqa: F401 - fixtures

from tests.support.feed import settle
from tests.system.clients.conftest import CLIENT_SOURCE, CONTACT, GUESTS, Sleeps, next_week


@pytest.fixture
def pull(issue, demo, live_origin):
    sleeps = Sleeps()
    with Client(live_origin, issue("pull").token, sleep=sleeps) as client:
        client.sleeps = sleeps
        yield client


@pytest.fixture
def push(issue, demo, live_origin):
    with Client(live_origin, issue("push").token, signed=True, sleep=Sleeps()) as client:
        yield client


def bookings_stored(services) -> int:
    with psycopg.connect(services.database_url) as conn:
        return conn.execute("SELECT count(*) FROM bookings").fetchone()[0]


def test_the_recommended_call_order(pull, push, worker):
    assert abs(pull.check_clock()) < 150
    me = pull.whoami()
    assert (me.partner_code, me.environment, me.mapped_properties) == ("acme", "sandbox", 2)
    assert [h.hotel_code for h in pull.hotels()] == ["ACME-LIS", "ACME-OPO"]
    hotel = pull.hotel("ACME-LIS")
    assert (hotel.currency, hotel.timezone) == ("EUR", "Europe/Lisbon")
    assert {p["rate_plan_code"] for p in hotel.rate_plans} >= {"ACME-BAR", "ACME-NRF"}
    check_in, check_out = next_week()
    found = pull.search(["ACME-LIS", "ACME-OPO", "NOPE"], check_in, check_out)
    assert [h.available for h in found.hotels] == [True, True]
    assert found.unknown_hotel_codes == ("NOPE",)
    rates = pull.rates("ACME-LIS", check_in, check_out)
    cheapest = min(rates.sellable(), key=lambda o: o.total_amount)
    assert cheapest.total_amount == found.hotels[0].lowest_total_amount
    assert cheapest.cancellation_policy["non_refundable"] is True
    # the flexible plan, to cancel it for free a week ahead
    flexible = next(o for o in rates.offers if o.rate_plan_code == "ACME-BAR"
                    and o.room_type_code == "ACME-DBL")
    quote = pull.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in, check_out)
    assert isinstance(quote.total_amount, Decimal) and quote.total_amount == flexible.total_amount
    booked = pull.book(quote, guests=GUESTS, contact=CONTACT, partner_reference="CLIENT-1")
    assert (booked.booking.status, booked.idempotent_replay) == ("confirmed", False)
    assert pull.booking("CLIENT-1").confirmation_number == booked.booking.confirmation_number
    cancelled = pull.cancel("CLIENT-1", expected_penalty_amount=0, currency="EUR")
    assert (cancelled.booking.status, cancelled.penalty_amount) == ("cancelled", 0)
    # the push side, signed
    accepted = push.push_ari("ACME-LIS", [
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
         "date": check_in.isoformat(), "rate": Decimal("133.50"), "availability": 4},
        {"room_type_code": "ACME-NOPE", "date": check_in.isoformat(), "availability": 1}])
    assert (accepted.status, accepted.item_count) == ("queued", 2)
    batch = push.wait_for_batch(accepted.batch_id, timeout=120, every=0.2)
    assert (batch.status, batch.applied_count) == ("partially_applied", 1)
    assert [(r.index, r.code) for r in batch.rejected] == [(1, "unknown_room_type")]
    night = pull.rates("ACME-LIS", check_in, check_in + dt.timedelta(days=1),
                       room_type_codes=["ACME-DBL"], rate_plan_codes=["ACME-BAR"]).offers[0]
    assert night.total_amount == Decimal("133.50") and night.nights[0].available_rooms == 4


def test_errors_carry_code_details_and_request_id(pull):
    check_in, check_out = next_week()
    with pytest.raises(ApiError) as raised:
        pull.with_scenario("sold_out").quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in,
                                             check_out)
    assert (raised.value.status, raised.value.code) == (409, "sold_out")
    assert raised.value.request_id and not raised.value.retryable
    quote = pull.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in, check_out)
    with pytest.raises(ApiError) as raised:
        pull.with_scenario("price_changed").book(quote, guests=GUESTS, contact=CONTACT)
    assert raised.value.code == "price_mismatch"
    assert raised.value.details == {
        "total_amount": (quote.total_amount * Decimal("1.1")).quantize(Decimal("0.01")),
        "currency": "EUR"}
    # A request the description allows to send is the service's to judge: 422 with the fields.
    with pytest.raises(ApiError) as raised:
        pull.search(["ACME-LIS"], check_in, check_out, rooms=0)
    assert raised.value.code == "validation_failed" and "rooms" in raised.value.details["fields"]
    assert pull.sleeps == []  # none of these is retried


def test_only_what_cannot_be_sent_is_refused_before_sending(pull):
    for reference in ("a/b", "", "x" * 121, "spa ce"):
        with pytest.raises(InvalidRequest):
            pull.booking(reference)
    with pytest.raises(InvalidRequest):
        pull.batch("../ping")
    with pytest.raises(ApiError) as raised:
        pull.booking("NEVER-MADE")
    assert raised.value.code == "not_found"


@pytest.mark.parametrize("value, status", [("rate_limited", 429),
                                           ("service_unavailable", 503)])
def test_retries_honour_retry_after_within_their_bounds(pull, value, status):
    forced = pull.with_scenario(value)
    forced.max_attempts = 3
    with pytest.raises(ApiError) as raised:
        forced.hotels()
    assert (raised.value.status, raised.value.code) == (status, value)
    assert pull.sleeps == [1, 1]  # Retry-After: 1, between three attempts
    # A time bound shorter than the wait gives up at once.
    pull.sleeps.clear()
    forced.max_attempts, forced.max_retry_seconds = 10, 0.5
    with pytest.raises(ApiError):
        forced.hotels()
    assert pull.sleeps == []


class FirstAttempt(httpx.HTTPTransport):
    """Alters the first request it carries: `scenario` adds the sandbox header to it, `lose`
    delivers it but loses the answer (a timeout after the service did the work)."""

    def __init__(self, scenario=None, lose=False):
        super().__init__()
        self.scenario, self.lose, self.sent = scenario, lose, []

    def handle_request(self, request):
        first = not self.sent
        if first and self.scenario:
            request.headers["X-Sandbox-Scenario"] = self.scenario
        response = super().handle_request(request)
        response.read()
        self.sent.append((request.method, request.url.path, response.status_code,
                          request.headers.get("X-Nonce")))
        if first and self.lose:
            raise httpx.ReadTimeout("answer lost", request=request)
        return response


def test_a_retry_after_429_succeeds_once_allowed(issue, demo, live_origin):
    sleeps, transport = Sleeps(), FirstAttempt(scenario="rate_limited")
    with Client(live_origin, issue("push").token, signed=True, sleep=sleeps,
                http=httpx.Client(transport=transport)) as client:
        check_in, _ = next_week()
        accepted = client.push_ari("ACME-LIS", [{"room_type_code": "ACME-DBL",
                                                 "date": check_in.isoformat(),
                                                 "availability": 3}])
    assert accepted.status == "queued" and sleeps == [1]
    assert [s[2] for s in transport.sent] == [429, 202]
    # each attempt signed anew: a reused nonce would be refused as a replay
    assert transport.sent[0][3] != transport.sent[1][3]


def test_a_lost_booking_answer_is_retried_without_booking_twice(issue, demo, live_origin,
                                                                services):
    check_in, check_out = next_week()
    transport = FirstAttempt(lose=True)
    with Client(live_origin, issue("pull").token, sleep=Sleeps(),
                http=httpx.Client(transport=transport)) as client:
        quote = client.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in, check_out)
        transport.sent.clear()
        transport.lose = True
        result = client.book(quote, guests=GUESTS, contact=CONTACT)
    assert [s[2] for s in transport.sent] == [201, 200]
    assert result.idempotent_replay is True and result.request_differs is False
    assert result.booking.partner_reference.startswith("pcs-")
    assert bookings_stored(services) == 1


def test_a_push_is_not_retried_after_a_lost_answer(issue, demo, live_origin):
    transport = FirstAttempt(lose=True)
    with Client(live_origin, issue("push").token, signed=True, sleep=Sleeps(),
                http=httpx.Client(transport=transport)) as client:
        check_in, _ = next_week()
        with pytest.raises(httpx.ReadTimeout):
            client.push_ari("ACME-LIS", [{"room_type_code": "ACME-DBL",
                                          "date": check_in.isoformat(), "availability": 3}])
    assert len(transport.sent) == 1


def test_a_skewed_clock_is_found_and_can_be_compensated(issue, demo, live_origin):
    with Client(live_origin, issue("push").token, signed=True, clock_offset=-400) as client:
        with pytest.raises(ApiError) as raised:
            client.ping()
        assert raised.value.code == "stale_request"
        skew = raised.value.details["skew_seconds"]
        assert 399 <= skew <= 460  # 400, plus however long a loaded machine took to answer
        client.clock_offset += skew
        assert client.ping().environment == "sandbox"
        # /ping's server_time measures this machine's own clock
        assert abs(client.check_clock()) < 150
        with pytest.raises(ClockSkewError):
            client.check_clock(tolerance=-1)


def test_the_change_feed_iterator(pull, app):
    if not any(r.rule.endswith("/availability/changes") for r in app.url_map.iter_rules()):
        pytest.skip("skipped: GET /availability/changes (contract 11.3) is not in this build")
    # From now: whatever it lists (the feed is at-least-once) is about the caller's hotels, and
    # the iterator stops once caught up.
    for change, cursor in pull.changes(limit=10):
        assert change.hotel_code in ("ACME-LIS", "ACME-OPO") and change.kinds and cursor


def test_bookings_listed_reservations_read_and_events_followed(pull, push, db):
    check_in, check_out = next_week()
    quote = pull.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in, check_out)
    for reference in ("LIST-1", "LIST-2"):
        pull.book(quote, guests=GUESTS, contact=CONTACT, partner_reference=reference)
    pull.cancel("LIST-1")
    assert [b.partner_reference for b in pull.list_bookings()] == ["LIST-1", "LIST-2"]
    assert [b.partner_reference for b in pull.list_bookings(status="confirmed",
                                                            check_in_from=check_in)] == ["LIST-2"]
    assert list(pull.list_bookings(hotel_code="NOPE")) == []
    settle(db)  # every transaction older than the events has ended: they are all served
    seen = list(pull.events())  # from the oldest event kept
    assert [(e.type, e.data["booking"]["partner_reference"]) for e, _ in seen] == [
        ("booking.confirmed", "LIST-1"), ("booking.confirmed", "LIST-2"),
        ("booking.cancelled", "LIST-1")]
    assert list(pull.events(seen[-1][1])) == []  # resumed after the last one: nothing new
    assert list(pull.events(start="latest")) == []
    push.request("POST", "/reservations", body={
        "partner_reference": "CM-CLIENT", "hotel_code": "ACME-LIS", "status": "confirmed",
        "check_in": check_in.isoformat(), "check_out": check_out.isoformat(),
        "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "quantity": 1,
                   "adults": 2}],
        "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                    "is_adult": True}],
        "net_amount": "170.00", "net_currency": "EUR"})
    record = push.get_reservation("CM-CLIENT")
    assert (record.status, record.orphan) == ("confirmed", False)
    assert [v.version for v in record.versions] == [1]
    assert [i["code"] for i in record.reconciliation] == ["nightly_rates_missing"]
    settle(db)
    flagged = [e for e, _ in push.events(types=["reservation.flagged"])]
    assert [e.data["code"] for e in flagged] == ["nightly_rates_missing"]


@pytest.fixture
def channel(issue, demo, live_origin):
    """lisboa-cm: the demo catalogue makes it ACME-LIS's receiver (CM-* codes)."""
    with Client(live_origin, issue("push", partner="lisboa-cm", signed=False).token,
                sleep=Sleeps()) as client:
        yield client


def test_hotel_bookings_listed_acknowledged_and_seen_by_the_booking_partner(pull, channel):
    check_in, check_out = next_week()
    quote = pull.quote("ACME-LIS", "ACME-DBL", "ACME-BAR", check_in, check_out)
    made = [pull.book(quote, guests=GUESTS, contact=CONTACT, partner_reference=f"HB-{i}")
            .booking for i in range(2)]
    waiting = list(channel.list_hotel_bookings(acknowledged=False))
    assert [b.confirmation_number for b in waiting] == [b.confirmation_number for b in made]
    first = waiting[0]
    assert (first.hotel_code, first.room_type_code, first.rate_plan_code, first.channel_name,
            first.unmapped, first.acknowledged) == ("CM-LIS", "CM-DBL", "CM-BAR", "Acme Travel",
                                                    (), False)
    done = channel.acknowledge(first.confirmation_number, "confirmed",
                               hotel_confirmation_code="LIS-4711")
    assert (done.acknowledged, done.hotel_confirmation_code) == (True, "LIS-4711")
    assert channel.hotel_booking(first.confirmation_number) == done
    assert [b.confirmation_number for b in channel.list_hotel_bookings(acknowledged=False)] == [
        made[1].confirmation_number]
    assert [b.confirmation_number for b in channel.list_hotel_bookings(acknowledged=True)] == [
        first.confirmation_number]
    seen = pull.booking("HB-0")
    assert (seen.hotel_confirmation_code, seen.hotel_acknowledged_at) == ("LIS-4711",
                                                                         done.acknowledged_at)
    assert pull.booking("HB-1").hotel_confirmation_code is None
    pull.cancel("HB-0")
    with pytest.raises(ApiError) as refused:
        channel.acknowledge(first.confirmation_number, "confirmed")
    assert (refused.value.status, refused.value.code, refused.value.details) == (
        409, "status_changed", {"status": "cancelled"})
    assert channel.acknowledge(first.confirmation_number, "cancelled").acknowledged is True
    with pytest.raises(InvalidRequest):  # not a confirmation number: never sent
        channel.hotel_booking("HB-0")


class Recorded(httpx.BaseTransport):
    """Records what would be sent, and answers nothing."""

    def __init__(self):
        self.sent = []

    def handle_request(self, request):
        self.sent.append(request)
        raise httpx.ConnectError("not sent anywhere", request=request)


@pytest.mark.parametrize("call, option, suggestion", [
    # The issue's case in Python's terms: the TypeScript client's name for the option.
    (lambda c: c.cancel("REF-1", expectedPenaltyAmount=0), "expectedPenaltyAmount",
     "expected_penalty_amount"),
    (lambda c: c.book(None, guests=[], contact={}, specialRequests="late"), "specialRequests",
     "special_requests"),
    (lambda c: c.rates("H", "2027-03-01", "2027-03-03", room_type_code="R"), "room_type_code",
     "room_type_codes"),
    (lambda c: c.search(["H"], "2027-03-01", "2027-03-03", currncy="EUR"), "currncy", "currency"),
    (lambda c: c.quote("H", "R", "P", "2027-03-01", "2027-03-03", nationalty="PT"), "nationalty",
     "nationality"),
    (lambda c: c.list_bookings(checkInFrom="2027-03-01"), "checkInFrom", "check_in_from"),
    (lambda c: c.events(poll=5), "poll", "poll_seconds"),
    (lambda c: c.changes(limt=5), "limt", "limit"),
    (lambda c: c.wait_for_batch("b-1", every_seconds=1), "every_seconds", "every"),
    (lambda c: c.list_hotel_bookings(acknowleged=False), "acknowleged", "acknowledged"),
    (lambda c: c.acknowledge("PCS-ABCDEFGHJKLM", "confirmed", hotelConfirmationCode="X"),
     "hotelConfirmationCode", "hotel_confirmation_code"),
    (lambda c: c.request("GET", "/ping", params={}), "params", None),
    (lambda c: Client("http://127.0.0.1:9", "k.s", maxAttempts=2), "maxAttempts", "max_attempts"),
    (lambda c: verify_webhook({}, b"", "whsec_", toleranceSeconds=1), "toleranceSeconds",
     "tolerance_seconds"),
    (lambda c: signed_headers("k", "s", "GET", "/", b"", time_stamp=1), "time_stamp",
     "timestamp"),
])
def test_an_unknown_keyword_option_is_refused_before_sending(call, option, suggestion):
    transport = Recorded()
    with Client("http://127.0.0.1:9", "k.s", http=httpx.Client(transport=transport)) as client:
        with pytest.raises(UnknownOption) as raised:
            call(client)   # the iterators too: at the call, not at the first page
    assert transport.sent == []
    assert raised.value.option == option and isinstance(raised.value, TypeError)
    if suggestion is not None:
        assert raised.value.suggestion == suggestion
        assert f"unknown option {option!r}; did you mean {suggestion!r}?" in str(raised.value)
    assert raised.value.suggestion in raised.value.known


def test_the_package_needs_nothing_but_httpx():
    project = tomllib.loads((CLIENT_SOURCE.parent / "pyproject.toml").read_text())
    assert project["project"]["dependencies"] == ["httpx>=0.24,<1"]
    imported = set()
    for module in (CLIENT_SOURCE / "pcs_client").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert imported - {"httpx", "__future__"} <= set(sys.stdlib_module_names)


def test_the_readmes_install_commands_work_where_it_says_and_leave_git_clean(tmp_path):
    """Each `pip install` line of the README, run from the folder its comment names, installs
    the package; what the build leaves behind (build/, the egg-info) is ignored by git.
    Into a folder of its own, without httpx (installed here already); pip fetches setuptools
    for the build, as it does for a partner."""
    root = CLIENT_SOURCE.parents[2]
    readme = (CLIENT_SOURCE.parent / "README.md").read_text()
    where = {"the repository's root": root, "clients/python": CLIENT_SOURCE.parent}
    lines = re.findall(r"(?m)^pip install (\S+)\s+# (?:or )?from ([^,\n]+)", readme)
    assert [folder for _, folder in lines] == list(where), lines
    for number, (target, folder) in enumerate(lines):
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--target",
                               str(tmp_path / str(number)), target],
                              cwd=where[folder], capture_output=True, text=True, timeout=300)
        if done.returncode != 0 and "satisfies the requirement setuptools" in done.stderr:
            pytest.skip("skipped: pip found no setuptools to build the package with (no index)")
        assert done.returncode == 0, (target, folder, done.stdout[-2000:], done.stderr[-2000:])
        assert (tmp_path / str(number) / "pcs_client" / "client.py").exists()
    left = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--",
                           str(CLIENT_SOURCE.parent)], cwd=root, capture_output=True, text=True,
                          check=True).stdout
    assert [line for line in left.splitlines() if line.startswith("??")] == []
