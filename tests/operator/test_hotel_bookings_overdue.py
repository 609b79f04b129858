"""`flask --app app hotel-bookings overdue` (contract 13.2): the hotel bookings whose current
status their receiver has not acknowledged for longer than --older-than (default
HOTEL_ACK_DEADLINE_SECONDS), the longest waiting first; a cancellation after an
acknowledgement waits from the cancellation. And the metric of the same bookings."""

from __future__ import annotations

import json

import pytest

from connectivity.settings import Settings, SettingsError
from tests.bookings.conftest import API, lisbon, pull  # noqa: F401 - fixtures
from tests.bookings.test_hotel_bookings import acknowledge, book, hotel  # noqa: F401 - fixture
from tests.metrics.scrape import samples, value
from tests.operator.conftest import output_of


def age(db, reference: str, **seconds_ago: int) -> None:
    """Moves the booking's created_at / cancelled_at that many seconds into the past."""
    def move(conn):
        for column, seconds in seconds_ago.items():
            conn.execute(f"UPDATE bookings SET {column} = now() - make_interval(secs => %s) "
                         "WHERE partner_reference = %s", (seconds, reference))
    db.run(move)


def overdue(cli, *options) -> list[dict]:
    result = cli("hotel-bookings", "overdue", "--json", *options)
    assert result.exit_code == 0, output_of(result)
    return json.loads(result.output)


def test_lists_what_waits_longer_than_the_deadline_longest_first(cli, client, db, pull, hotel,
                                                                  lisbon):
    numbers = {ref: book(client, pull, ref)["confirmation_number"]
               for ref in ("OLD-1", "OLD-2", "NEW-1", "ACKED-1")}
    age(db, "OLD-1", created_at=7200)
    age(db, "OLD-2", created_at=3600)
    age(db, "ACKED-1", created_at=9000)
    assert acknowledge(client, hotel, numbers["ACKED-1"]).status_code == 200
    rows = overdue(cli)
    assert [r["confirmation_number"] for r in rows] == [numbers["OLD-1"], numbers["OLD-2"]]
    first = rows[0]
    assert (first["partner"], first["environment"], first["hotel_code"], first["status"],
            first["booked_by"]) == ("lisboa-cm", "sandbox", "CM-LIS", "confirmed", "acme")
    assert 7200 <= first["waiting_seconds"] < 7300
    assert [r["confirmation_number"] for r in overdue(cli, "--older-than", "5000")] == [
        numbers["OLD-1"]]
    assert len(overdue(cli, "--older-than", "0")) == 3  # everything not acknowledged
    # The acknowledged booking, cancelled long ago: waiting from its cancellation.
    assert client.post(f"{API}/bookings/ACKED-1/cancel", json={},
                       headers=pull).status_code == 200
    assert numbers["ACKED-1"] not in [r["confirmation_number"] for r in overdue(cli)]
    age(db, "ACKED-1", cancelled_at=4000)
    rows = overdue(cli)
    assert [r["confirmation_number"] for r in rows] == [numbers["OLD-1"], numbers["ACKED-1"],
                                                       numbers["OLD-2"]]
    assert rows[1]["status"] == "cancelled"
    assert overdue(cli, "--partner", "lisboa-cm") == rows
    assert overdue(cli, "--partner", "acme") == []  # receives no hotel's bookings


def test_text_output_and_an_unknown_partner(cli, client, db, pull, hotel, lisbon):
    number = book(client, pull, "OLD-1")["confirmation_number"]
    age(db, "OLD-1", created_at=7200)
    result = cli("hotel-bookings", "overdue")
    assert result.exit_code == 0, output_of(result)
    lines = result.output.splitlines()
    assert lines[0] == "1 hotel booking(s) unacknowledged for more than 1800 s"
    assert lines[1].startswith(f"{number}  lisboa-cm  sandbox  CM-LIS  confirmed  waiting 72")
    result = cli("hotel-bookings", "overdue", "--partner", "nobody")
    assert result.exit_code == 1
    assert "unknown partner 'nobody'" in output_of(result)


def unacknowledged(client) -> tuple[float, float]:
    page = samples(client.get("/metrics").get_data(as_text=True))
    labels = {"partner": "lisboa-cm", "environment": "sandbox"}
    return (value(page, "pcs_hotel_bookings_unacknowledged", **labels),
            value(page, "pcs_hotel_bookings_unacknowledged_oldest_age_seconds", **labels))


def test_the_metric_counts_them_per_receiving_partner_with_the_oldest_age(client, db, pull,
                                                                          hotel, lisbon):
    page = samples(client.get("/metrics").get_data(as_text=True))
    # Listed at 0 before anything waits: an alert can tell "none" from "not measured".
    assert ("pcs_hotel_bookings_unacknowledged",
            (("environment", "sandbox"), ("partner", "lisboa-cm"))) in page
    assert unacknowledged(client) == (0, 0)
    numbers = [book(client, pull, f"M-{i}")["confirmation_number"] for i in range(3)]
    age(db, "M-0", created_at=600)
    count, oldest = unacknowledged(client)
    assert count == 3 and 600 <= oldest < 700
    assert acknowledge(client, hotel, numbers[0]).status_code == 200
    count, oldest = unacknowledged(client)
    assert count == 2 and oldest < 100


def test_the_deadline_setting():
    env = {"DATABASE_URL": "postgresql://x@localhost/x", "REDIS_URL": "redis://localhost",
           "SECRET_KEY": "k" * 32}
    assert Settings.from_env(env).hotel_ack_deadline_seconds == 1800
    assert Settings.from_env({**env, "HOTEL_ACK_DEADLINE_SECONDS": "600"}
                             ).hotel_ack_deadline_seconds == 600
    for bad in ("0", "soon"):
        with pytest.raises(SettingsError, match="HOTEL_ACK_DEADLINE_SECONDS|numeric"):
            Settings.from_env({**env, "HOTEL_ACK_DEADLINE_SECONDS": bad})


def test_the_command_reads_the_deadline_setting(make_app, client, db, pull, hotel, lisbon):
    book(client, pull, "OLD-1")
    age(db, "OLD-1", created_at=700)
    strict = make_app(hotel_ack_deadline_seconds=600)
    runner = strict.test_cli_runner()
    with strict.app_context():
        result = runner.invoke(args=["hotel-bookings", "overdue", "--json"])
    assert result.exit_code == 0, output_of(result)
    assert len(json.loads(result.output)) == 1
