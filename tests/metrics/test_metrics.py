"""GET /metrics in one process (the test client): what each figure counts, that its labels name
routes and codes but never a partner, a key or a reference, who may read it, and that an
unreachable source is reported instead of failing the scrape."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from app import create_app
from connectivity.ari.queue import BatchQueue
from connectivity.store.database import Database
from connectivity.metrics.stored import StoredStateCollector
from connectivity.settings import Settings, SettingsError
from tests.support.envelope import assert_envelope_failure, assert_unauthorized
from tests.ari.conftest import push, put, redis_client, work  # noqa: F401 - fixtures
from tests.bookings.conftest import booking_body, lisbon, pull  # noqa: F401 - fixtures
from tests.metrics.scrape import samples, value
from connectivity.web.services import services_of

API = "/api/connectivity/v1"
REQUESTS = "pcs_http_requests_total"


@pytest.fixture
def scrape(client):
    def _scrape() -> dict:
        response = client.get("/metrics")
        assert response.status_code == 200
        assert response.content_type == "text/plain; version=0.0.4; charset=utf-8"
        return samples(response.get_data(as_text=True))
    return _scrape


def test_requests_count_by_route_rule_method_and_status_with_latency(client, scrape, pull):
    rule = f"{API}/bookings/<reference:reference>"
    before = scrape()
    for reference in ("ACME-SECRET-REF-1", "ACME-SECRET-REF-2"):
        assert_envelope_failure(client.get(f"{API}/bookings/{reference}", headers=pull), 404,
                                "not_found")
    assert client.get("/healthz").status_code == 200
    assert client.get("/no/such/path-XYZ-1").status_code == 404
    assert client.open("/healthz", method="BREWCOFFEE").status_code == 405
    response = client.get("/metrics")
    page, text = samples(response.get_data(as_text=True)), response.get_data(as_text=True)

    def delta(name, **labels):
        return value(page, name, **labels) - value(before, name, **labels)

    assert delta(REQUESTS, endpoint=rule, method="GET", status="404") == 2
    assert delta(REQUESTS, endpoint="/healthz", method="GET", status="200") == 1
    assert delta(REQUESTS, endpoint="unmatched", method="GET", status="404") == 1
    # Any token is a method: the ones HTTP does not define are all one label value.
    assert delta(REQUESTS, endpoint="unmatched", method="other", status="405") == 1
    assert delta("pcs_http_request_duration_seconds_count", endpoint=rule, method="GET") == 2
    assert delta("pcs_http_request_duration_seconds_bucket", endpoint=rule, method="GET",
                 le="+Inf") == 2
    assert delta("pcs_http_request_duration_seconds_sum", endpoint=rule, method="GET") > 0
    # The raw paths, the partner and its key are nowhere in the page.
    key_id = pull["Authorization"].split()[1].split(".")[0]
    for private in ("ACME-SECRET-REF", "XYZ-1", "BREWCOFFEE", "acme", "ACME-LIS", key_id):
        assert private not in text


def test_rate_limit_rejections_are_counted_by_route(client, scrape, issue, catalog):
    headers = {"Authorization": f"Bearer {issue('pull', rate_limit=2).token}"}
    before = scrape()
    statuses = [client.get(f"{API}/whoami", headers=headers).status_code for _ in range(4)]
    assert statuses == [200, 200, 429, 429]
    after = scrape()
    labels = {"endpoint": f"{API}/whoami"}
    assert (value(after, "pcs_rate_limit_rejections_total", **labels)
            - value(before, "pcs_rate_limit_rejections_total", **labels)) == 2
    assert (value(after, REQUESTS, method="GET", status="429", **labels)
            - value(before, REQUESTS, method="GET", status="429", **labels)) == 2


def test_bookings_are_counted_by_outcome(client, scrape, pull, lisbon):
    outcomes = ("created", "replay", "price_mismatch", "sold_out", "validation_failed")
    before = scrape()
    assert client.post(f"{API}/bookings", json=booking_body("M-1"), headers=pull
                       ).status_code == 201
    assert client.post(f"{API}/bookings", json=booking_body("M-1"), headers=pull
                       ).status_code == 200
    assert_envelope_failure(client.post(f"{API}/bookings", json=booking_body(
        "M-2", total="1.00"), headers=pull), 409, "price_mismatch")
    assert_envelope_failure(client.post(f"{API}/bookings", json=booking_body(
        "M-3", rooms=6, total="1200.00"), headers=pull), 409, "sold_out")
    assert_envelope_failure(client.post(f"{API}/bookings", json={}, headers=pull), 422,
                            "validation_failed")
    after = scrape()
    counted = {o: value(after, "pcs_bookings_total", outcome=o)
               - value(before, "pcs_bookings_total", outcome=o) for o in outcomes}
    assert counted == dict.fromkeys(outcomes, 1)


def test_ari_batches_queue_and_apply_latency_are_read_from_where_they_live(
        scrape, put, work, db):
    item = {"room_type_code": "ACME-DBL", "date": (dt.date.today() + dt.timedelta(days=5))
            .isoformat(), "availability": 3}
    first, second = put([item]), put([item, {**item, "room_type_code": "NOPE"}])
    # The first batch has waited a minute (as if no worker were running).
    with db.connection() as conn:
        conn.execute("UPDATE ari_batches SET received_at = now() - interval '60 seconds' "
                     "WHERE id = %s", (first,))
    queued = scrape()
    assert value(queued, "pcs_ari_batches_unfinished", status="queued") == 2
    assert value(queued, "pcs_ari_batches_unfinished", status="processing") == 0
    assert value(queued, "pcs_ari_queue_depth") == 2
    assert 60 <= value(queued, "pcs_ari_batches_oldest_unfinished_age_seconds",
                       status="queued") < 600
    assert value(queued, "pcs_ari_batch_apply_seconds_bucket", le="+Inf") == 0
    # Both were accepted within the window (the first a minute ago): the rate to keep up with.
    assert value(queued, "pcs_ari_batches_accepted_recent") == 2
    assert value(queued, "pcs_ari_items_accepted_recent") == 3
    assert value(queued, "pcs_ari_batches_accepted_per_second") == pytest.approx(2 / 300)
    assert value(queued, "pcs_ari_batches_finished_per_second") == 0
    assert value(queued, "pcs_ari_workers_needed") == 1

    assert work() == 1  # one job applies both (ari/apply.py groups waiting batches)
    done = scrape()
    assert value(done, "pcs_ari_batches_unfinished", status="queued") == 0
    assert value(done, "pcs_ari_batches_oldest_unfinished_age_seconds", status="queued") == 0
    assert value(done, "pcs_ari_queue_depth") == 0
    assert value(done, "pcs_ari_batches_finished_recent", status="applied") == 1
    assert value(done, "pcs_ari_batches_finished_recent", status="partially_applied") == 1
    assert value(done, "pcs_ari_batch_apply_seconds_bucket", le="+Inf") == 2
    assert value(done, "pcs_ari_batch_apply_seconds_gcount") == 2
    # Completion counts from acceptance: the first batch waited at least its minute.
    assert value(done, "pcs_ari_batch_completion_seconds_bucket", le="30.0") == 1
    assert value(done, "pcs_ari_batch_completion_seconds_bucket", le="+Inf") == 2
    assert value(done, "pcs_ari_batch_completion_seconds_gsum") >= 60
    assert value(done, "pcs_ari_batches_finished_per_second") == pytest.approx(2 / 300)
    assert value(done, "pcs_metrics_source_up", source="postgresql") == 1
    assert value(done, "pcs_metrics_source_up", source="redis") == 1

    # Outside the window a batch no longer counts as recent.
    with db.connection() as conn:
        conn.execute("UPDATE ari_batches SET applied_at = applied_at - interval '1 hour', "
                     "started_at = started_at - interval '1 hour' WHERE id = %s", (second,))
    later = scrape()
    assert value(later, "pcs_ari_batches_finished_recent", status="partially_applied") == 0
    assert value(later, "pcs_ari_batch_apply_seconds_bucket", le="+Inf") == 1


def test_workers_needed_divides_the_accepted_rate_by_one_workers_rate(services, db, put,
                                                                      redis_client):
    from prometheus_client import CollectorRegistry, generate_latest

    item = {"room_type_code": "ACME-DBL", "date": (dt.date.today() + dt.timedelta(days=5))
            .isoformat(), "availability": 3}
    for _ in range(3):
        put([item])
    registry = CollectorRegistry()
    # A worker that applies one batch every 100 s: 3 batches in 300 s need ceil(0.01 / 0.004).
    registry.register(StoredStateCollector(db, BatchQueue(redis_client, services.redis_prefix),
                                           worker_batches_per_second=0.004))
    page = samples(generate_latest(registry).decode())
    assert value(page, "pcs_ari_batches_accepted_recent") == 3
    assert value(page, "pcs_ari_workers_needed") == 3


def test_unreachable_sources_are_reported_and_the_scrape_still_answers(services):
    import redis
    from prometheus_client import CollectorRegistry, generate_latest

    # Nothing listens on port 1: real connection failures, not stand-ins.
    nowhere_db = Database("postgresql://postgres@127.0.0.1:1/postgres", timeout=1)
    nowhere_redis = redis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=1)
    registry = CollectorRegistry()
    registry.register(StoredStateCollector(nowhere_db, BatchQueue(nowhere_redis, "pcs-x:")))
    try:
        page = samples(generate_latest(registry).decode())
    finally:
        nowhere_db.close()
    assert value(page, "pcs_metrics_source_up", source="postgresql") == 0
    assert value(page, "pcs_metrics_source_up", source="redis") == 0
    assert not any(name.startswith("pcs_ari") for name, _ in page)


def test_with_a_metrics_token_only_its_bearer_reads_the_page(settings, issue, catalog):
    token = "metrics-" + "t" * 40
    app = create_app(dataclasses.replace(settings, metrics_token=token))
    try:
        client = app.test_client()
        assert_unauthorized(client.get("/metrics"), "missing_credentials")
        assert_unauthorized(client.get("/metrics", headers={"Authorization": "Bearer nope"}),
                            "invalid_credentials")
        # A partner's key is not the metrics token.
        partner = {"Authorization": f"Bearer {issue('pull').token}"}
        assert_unauthorized(client.get("/metrics", headers=partner), "invalid_credentials")
        response = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200
        assert "pcs_http_requests_total" in response.get_data(as_text=True)
    finally:
        services_of(app).db.close()
        services_of(app).guards.close()


def test_the_metrics_token_is_optional_in_the_environment():
    required = {"DATABASE_URL": "postgresql://x", "REDIS_URL": "redis://x", "SECRET_KEY": "s" * 32}
    assert Settings.from_env(required).metrics_token is None
    assert Settings.from_env({**required, "METRICS_TOKEN": ""}).metrics_token is None
    assert Settings.from_env({**required, "METRICS_TOKEN": "tok"}).metrics_token == "tok"


def test_one_workers_rate_comes_from_the_environment_and_must_be_positive():
    required = {"DATABASE_URL": "postgresql://x", "REDIS_URL": "redis://x", "SECRET_KEY": "s" * 32}
    assert Settings.from_env(required).ari_worker_batches_per_second == 1000
    assert Settings.from_env({**required, "ARI_WORKER_BATCHES_PER_SECOND": "400"}
                             ).ari_worker_batches_per_second == 400
    with pytest.raises(SettingsError, match="ARI_WORKER_BATCHES_PER_SECOND"):
        Settings.from_env({**required, "ARI_WORKER_BATCHES_PER_SECOND": "0"})
