"""Deliveries (contract 12.3) to real receivers on loopback: signed as the Standard Webhooks
specification says (verified with its reference package), one per event and endpoint, only
the subscribed types, retried on the schedule until a 2xx, failed after the last retry, replayed
and pinged on request; the worker's rounds run in the test's process."""

from __future__ import annotations

import json

import pytest
import redis
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from connectivity.auth.credentials import SigningVault
from connectivity.store.read_fence import ReadFence
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.webhooks.conftest import ENDPOINTS, created
from tests.webhooks.delivery import closed_port, delivery_rows, record_event, run_rounds


@pytest.fixture
def senders(db, settings):
    made = Senders(db, SigningVault(settings.secret_key), (1, 1), concurrency=4, per_endpoint=2,
                   allow_loopback=True)
    yield made
    made.close()


def test_an_event_is_delivered_signed_as_standard_webhooks_verify_it(client, pull, db, senders):
    with receiver() as hook:
        data = created(client, pull, hook.url, ["booking.confirmed"])
        event_id = record_event(db, data={"booking": {"reference": "B1"}})
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["status"] == "delivered")
        (request,) = hook.received
    assert request.path == "/hook"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == event_id
    event = Webhook(data["secret"]).verify(request.body, request.headers)
    assert event["event_id"] == event_id and event["type"] == "booking.confirmed"
    assert event["data"] == {"booking": {"reference": "B1"}}
    assert set(event) == {"event_id", "type", "created_at", "data"}
    # Signed with another secret, it would not verify.
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 44).verify(request.body, request.headers)
    listed = assert_envelope_success(client.get(
        f"{ENDPOINTS}/{data['endpoint']['endpoint_id']}/deliveries", headers=pull))
    (delivery,) = listed["deliveries"]
    assert {k: delivery[k] for k in ("event_id", "type", "status", "attempts",
                                     "last_status_code", "last_error", "next_attempt_at")} == {
        "event_id": event_id, "type": "booking.confirmed", "status": "delivered", "attempts": 1,
        "last_status_code": 204, "last_error": None, "next_attempt_at": None}
    assert listed["next_cursor"] is None and listed["has_more"] is False


def test_only_subscribed_types_of_the_partner_and_environment(client, pull, db, senders):
    # Written before the endpoints: a position taken at creation is a horizon, below which a
    # transaction still running anywhere on the server keeps later commits, so this one may be
    # delivered too (at least once, never a gap); it is no failure either way.
    before = record_event(db)
    with receiver() as bookings, receiver() as everything:
        created(client, pull, bookings.url, ["booking.confirmed"])
        created(client, pull, everything.url, ["*"])
        booking = record_event(db, "booking.confirmed")
        paused = record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
        others = {record_event(db, "booking.confirmed", partner="globex"),
                  record_event(db, "booking.confirmed", environment="production"),
                  # reservation.write is not a pull key's: "*" stood for what the key could see.
                  record_event(db, "reservation.flagged", data={"hotel_code": "ACME-LIS"})}
        # A last event of each endpoint's types: once it is delivered, the log was read past
        # every event above.
        last = record_event(db, "booking.confirmed")

        def sent(hook) -> set[str]:
            return {r.headers["webhook-id"] for r in hook.received}
        run_rounds(db, senders, lambda: last in sent(bookings) and last in sent(everything))
        run_rounds(db, senders, lambda: senders.in_flight() == 0)
    assert {booking, last} <= sent(bookings) <= {booking, last, before}
    assert {booking, paused, last} <= sent(everything) <= {booking, paused, last, before}
    assert not others & {d["event_id"] for d in delivery_rows(db)}


def test_a_failing_receiver_is_retried_until_it_answers_2xx(client, pull, db, senders):
    with receiver(answer=lambda n: 503 if n < 2 else 200) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        event_id = record_event(db)
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["attempts"] == 1
                   and delivery_rows(db)[0]["next_attempt_at"] is not None
                   and delivery_rows(db)[0]["last_status_code"] == 503)
        pending = assert_envelope_success(client.get(
            f"{ENDPOINTS}/{endpoint_id}/deliveries?status=pending", headers=pull))
        assert pending["deliveries"][0]["last_error"] == "the endpoint answered 503, not 2xx"
        run_rounds(db, senders, lambda: delivery_rows(db)[0]["status"] == "delivered")
    assert [r.headers["webhook-id"] for r in hook.received] == [event_id] * 3
    # Each attempt is signed at its own time.
    row = delivery_rows(db)[0]
    assert (row["attempts"], row["last_status_code"], row["last_error"]) == (3, 200, None)


def test_after_the_last_retry_the_delivery_is_failed(client, pull, db, senders):
    with receiver(answer=lambda n: 500) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        record_event(db)
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["status"] == "failed")
    row = delivery_rows(db)[0]
    # The first attempt and one per delay of the schedule (1, 1).
    assert (row["attempts"], row["next_attempt_at"], len(hook.received)) == (3, None, 3)
    failed = assert_envelope_success(client.get(
        f"{ENDPOINTS}/{endpoint_id}/deliveries?status=failed", headers=pull))["deliveries"]
    assert [d["status"] for d in failed] == ["failed"]


def test_a_refused_connection_and_a_redirect_are_failed_attempts(client, pull, db, senders):
    with receiver(answer=lambda n: 302) as hook:
        redirecting = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        closed = created(client, pull, f"http://127.0.0.1:{closed_port()}/closed")[
            "endpoint"]["endpoint_id"]
        record_event(db)
        run_rounds(db, senders, lambda: len(delivery_rows(db)) == 2 and all(
            d["attempts"] >= 1 and d["next_attempt_at"] is not None
            and d["last_error"] is not None for d in delivery_rows(db)))
    (redirected,), (refused,) = delivery_rows(db, redirecting), delivery_rows(db, closed)
    assert redirected["last_status_code"] == 302 and len(hook.received) >= 1
    assert all(r.path == "/hook" for r in hook.received)  # the Location was never followed
    assert refused["last_status_code"] is None and "ConnectError" in refused["last_error"]


def test_replay_sends_again_whatever_the_status_as_one_more_attempt(client, pull, db, senders):
    with receiver(answer=lambda n: 204) as hook:
        data = created(client, pull, hook.url)
        endpoint_id = data["endpoint"]["endpoint_id"]
        event_id = record_event(db)
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["status"] == "delivered")
        answer = client.post(f"{ENDPOINTS}/{endpoint_id}/deliveries/{event_id}/retry",
                             headers=pull)
        assert assert_envelope_success(answer, 202) == {"event_id": event_id}
        run_rounds(db, senders, lambda: len(hook.received) == 2
                   and delivery_rows(db)[0]["status"] == "delivered")
    assert [r.headers["webhook-id"] for r in hook.received] == [event_id, event_id]
    for request in hook.received:
        Webhook(data["secret"]).verify(request.body, request.headers)
    assert hook.received[0].body == hook.received[1].body
    assert delivery_rows(db)[0]["attempts"] == 2


def test_replay_of_a_failed_delivery_delivers_it(client, pull, db, senders):
    answers = {"status": 500}
    with receiver(answer=lambda n: answers["status"]) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        event_id = record_event(db)
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["status"] == "failed")
        answers["status"] = 200
        assert_envelope_success(client.post(
            f"{ENDPOINTS}/{endpoint_id}/deliveries/{event_id}/retry", headers=pull), 202)
        run_rounds(db, senders, lambda: delivery_rows(db)[0]["status"] == "delivered")
    assert delivery_rows(db)[0]["attempts"] == 4


def test_replay_refusals(client, pull, db):
    endpoint_id = created(client, pull, "http://127.0.0.1:8080/hook")["endpoint"]["endpoint_id"]
    unknown_event = "evt_" + "0" * 32
    assert_envelope_failure(client.post(
        f"{ENDPOINTS}/{endpoint_id}/deliveries/{unknown_event}/retry", headers=pull), 404,
        "not_found")
    assert_envelope_failure(client.post(
        f"{ENDPOINTS}/{endpoint_id}/deliveries/evt_nothex/retry", headers=pull), 404,
        "not_found")
    event_id = record_event(db)
    assert_envelope_failure(client.post(
        f"{ENDPOINTS}/{endpoint_id}/deliveries/{event_id}/retry", headers=pull,
        json={"now": True}), 422, "validation_failed")


def test_ping_is_sent_signed_and_listed(client, pull, db, senders):
    with receiver() as hook:
        data = created(client, pull, hook.url)
        endpoint_id = data["endpoint"]["endpoint_id"]
        ping = assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/ping",
                                                   headers=pull), 202)
        assert ping["type"] == "ping" and ping["data"] == {}
        assert ping["event_id"].startswith("evt_")
        run_rounds(db, senders, lambda: len(hook.received) == 1)
        sent = Webhook(data["secret"]).verify(hook.received[0].body, hook.received[0].headers)
    assert sent == ping
    listed = assert_envelope_success(client.get(f"{ENDPOINTS}/{endpoint_id}/deliveries",
                                                headers=pull))["deliveries"]
    assert [(d["event_id"], d["type"]) for d in listed] == [(ping["event_id"], "ping")]
    assert_envelope_failure(client.post(f"{ENDPOINTS}/{endpoint_id}/ping", headers=pull,
                                        data=b"x", content_type="application/json"), 400,
                            "malformed_json")
    assert_envelope_failure(client.post(f"{ENDPOINTS}/{endpoint_id}/ping", headers=pull,
                                        json={}), 422, "validation_failed")


def test_an_endpoint_failing_for_five_days_is_disabled_then_enabled(client, pull, db, senders):
    with receiver(answer=lambda n: 500) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        db.run(lambda conn: conn.execute(
            "UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute'"))
        first = record_event(db)
        run_rounds(db, senders, lambda: delivery_rows(db)
                   and delivery_rows(db)[0]["attempts"] == 1
                   and delivery_rows(db)[0]["last_status_code"] == 500)
        listed = assert_envelope_success(client.get(ENDPOINTS, headers=pull))["endpoints"]
        assert listed[0]["status"] == "disabled"
        # Disabled: neither new events nor the pending retry are sent.
        second = record_event(db)
        calls = len(hook.received)
        run_rounds(db, senders, lambda: True)
        senders.finished.wait(1.5)  # past the retry's due time (schedule 1 s)
        run_rounds(db, senders, lambda: senders.in_flight() == 0)
        assert len(hook.received) == calls and len(delivery_rows(db)) == 1
        hook.answer = lambda n: 200
        assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/enable",
                                            headers=pull))
        run_rounds(db, senders, lambda: len(delivery_rows(db)) == 2 and all(
            d["status"] == "delivered" for d in delivery_rows(db)))
    assert {r.headers["webhook-id"] for r in hook.received} == {first, second}


def test_a_deleted_endpoint_gets_nothing_more(client, pull, db, senders):
    with receiver(answer=lambda n: 500) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        record_event(db)
        run_rounds(db, senders, lambda: len(hook.received) == 1)
        run_rounds(db, senders, lambda: senders.in_flight() == 0)
        assert_envelope_success(client.delete(f"{ENDPOINTS}/{endpoint_id}", headers=pull))
        record_event(db)
        senders.finished.wait(1.5)  # past the retry's due time
        run_rounds(db, senders, lambda: senders.in_flight() == 0)
    assert len(hook.received) == 1
    (row,) = delivery_rows(db)
    assert (row["status"], row["last_error"]) == ("failed", "the endpoint was deleted")


def test_deliveries_list_newest_first_by_pages_and_status(client, pull, db, senders):
    with receiver(answer=lambda n: 204 if n % 2 == 0 else 500) as hook:
        endpoint_id = created(client, pull, hook.url)["endpoint"]["endpoint_id"]
        events = [record_event(db) for _ in range(5)]
        run_rounds(db, senders, lambda: len(hook.received) >= 5)
    path = f"{ENDPOINTS}/{endpoint_id}/deliveries"
    seen, cursor = [], None
    while True:
        page = assert_envelope_success(client.get(
            f"{path}?limit=2" + (f"&cursor={cursor}" if cursor else ""), headers=pull))
        seen += [d["event_id"] for d in page["deliveries"]]
        assert (page["next_cursor"] is None) == (not page["has_more"])
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert seen == events[::-1]
    statuses = {d["event_id"]: d["status"] for d in delivery_rows(db)}
    delivered = assert_envelope_success(client.get(f"{path}?status=delivered&limit=200",
                                                   headers=pull))["deliveries"]
    assert [d["event_id"] for d in delivered] == [e for e in events[::-1]
                                                  if statuses[e] == "delivered"]


def test_deliveries_bad_query_is_422_naming_it(client, pull):
    endpoint_id = created(client, pull, "http://127.0.0.1:8080/hook")["endpoint"]["endpoint_id"]
    for query, field in [
        ("status=sent", "status"), ("limit=0", "limit"), ("limit=201", "limit"),
        ("limit=2.5", "limit"), ("limit=x", "limit"), ("cursor=nope", "cursor"),
        ("cursor=" + "a" * 201, "cursor"), ("cursor=d2QxOi0x", "cursor"),
    ]:
        error = assert_envelope_failure(client.get(
            f"{ENDPOINTS}/{endpoint_id}/deliveries?{query}", headers=pull), 422,
            "validation_failed")
        assert field in error["details"]["fields"], (query, error)


def test_the_body_sent_is_the_event_as_get_events_shows_it(client, pull, db, senders):
    with receiver() as hook:
        created(client, pull, hook.url, ["mapping.paused"])
        record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
        run_rounds(db, senders, lambda: len(hook.received) == 1)
    stored = db.run(lambda conn: conn.execute("SELECT body FROM webhook_deliveries")
                    .fetchone()["body"])
    assert hook.received[0].body == stored.encode()
    assert json.loads(stored)["data"] == {"hotel_code": "ACME-LIS"}


def test_an_event_is_sent_only_after_the_read_fence_moved(client, pull, db, settings, services):
    """Contract 13.1: a partner told of an event by a webhook reads at once, so the senders
    move the read fence before the first attempt of a round (store/read_fence.py): the token
    the receiver's handler reads is already another one."""
    client_redis = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client_redis, services.redis_prefix)
    fence.establish()
    seen = []
    made = Senders(db, SigningVault(settings.secret_key), (1, 1), concurrency=4, per_endpoint=2,
                   allow_loopback=True, fence=fence)

    def answer(n: int) -> int:  # what the partner's handler would read first
        seen.append(client_redis.get(fence.key))
        return 204
    try:
        with receiver(answer) as hook:
            created(client, pull, hook.url, ["booking.confirmed"])
            before = client_redis.get(fence.key)
            record_event(db)
            run_rounds(db, made, lambda: bool(seen))
    finally:
        made.close()
        client_redis.close()
    assert seen and seen[0] != before
