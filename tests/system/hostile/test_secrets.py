"""No secret outlives the moment it is handed over: after real flows that issue keys (CLI and
fixture) and quote tokens (API), use them, sign with them, and present wrong ones, neither the
logs of the run (structlog JSON on stdout/stderr, Python logging) nor a dump of every table of
the database nor this run's Redis keys hold a key's secret, a full token or a quote token."""

from __future__ import annotations

import json
import logging

import psycopg
import pytest
import redis
from psycopg import sql
from rq import SimpleWorker

from connectivity.ari import jobs
from connectivity.ari.queue import queue_name
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.signing import signed_headers, split_token

from tests.system.hostile.conftest import (
    API,
    ari_body,
    booking_body,
    quote_body,
    rates_body,
    reservation_body,
    search_body,
)


def dump_database(database_url: str) -> str:
    """Every row of every table, as COPY writes it."""
    out = []
    with psycopg.connect(database_url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        assert {"api_keys", "bookings", "reservations", "ari_batches"} <= set(tables)
        for table in tables:
            with conn.cursor().copy(sql.SQL("COPY (SELECT * FROM {}) TO STDOUT").format(
                    sql.Identifier(table))) as copy:
                out.append(f"-- {table}\n" + b"".join(bytes(b) for b in copy).decode())
    return "\n".join(out)


def dump_redis(redis_url: str, prefix: str) -> str:
    client = redis.Redis.from_url(redis_url, decode_responses=False)
    out = []
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            kind = client.type(key)
            value = {b"string": client.get, b"hash": client.hgetall, b"set": client.smembers,
                     b"list": lambda k: client.lrange(k, 0, -1),
                     b"zset": lambda k: client.zrange(k, 0, -1, withscores=True)}.get(
                kind, lambda k: None)(key)
            out.append(f"{key!r} {value!r}")
    finally:
        client.close()
    return "\n".join(out)


def cli_issue(cli, partner: str, environment: str, preset: str) -> str:
    result = cli("keys", "issue", "--partner", partner, "--name", f"{preset} key",
                 "--environment", environment, "--preset", preset, "--json",
                 "--rate-limit", "100000")
    assert result.exit_code == 0, result.output
    # The operator's one copy of the token; any log line the command wrote is checked below.
    lines = result.output.strip().splitlines()
    payload = json.loads("\n".join(line for line in lines if not _is_log_line(line)))
    return payload["token"]


def _is_log_line(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict) and "event" in json.loads(line)
    except ValueError:
        return False


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()

    def invoke(*args: str):
        with app.app_context():  # as `flask --app app ...` does for its command groups
            return runner.invoke(args=list(args))
    return invoke


@pytest.fixture
def logs(capsys, caplog):
    """Everything logged: stdout/stderr (structlog JSON) and Python logging records."""
    caplog.set_level(logging.DEBUG)

    def read() -> str:
        captured = capsys.readouterr()
        return "\n".join([captured.out, captured.err, caplog.text,
                          *(str(r.__dict__) for r in caplog.records)])
    return read


def test_no_secret_or_token_in_logs_database_or_redis(app, client, cli, db, issue, keys,
                                                      acme_world, services, logs):
    cli_out = []
    pull = cli_issue(cli, "acme", "sandbox", "pull")
    push = cli_issue(cli, "acme", "sandbox", "push")  # signs by default
    prod = cli_issue(cli, "acme", "production", "pull")
    globex = cli_issue(cli, "globex", "sandbox", "pull")
    spare = issue("pull", name="spare").token
    cli_out.append(cli("keys", "list", "--partner", "acme").output)
    cli_out.append(cli("keys", "revoke", split_token(spare)[0]).output)
    tokens = [pull, push, prod, globex, spare]
    def with_bearer(token: str) -> dict:
        return {"Authorization": f"Bearer {token}"}

    # Pull: every read, a quote, a booking made with it, read and cancelled.
    h = with_bearer(pull)
    assert_envelope_success(client.get(f"{API}/whoami", headers=h))
    assert_envelope_success(client.post(f"{API}/availability/search", json=search_body(),
                                        headers=h))
    assert_envelope_success(client.post(f"{API}/availability/rates", json=rates_body(),
                                        headers=h))
    quote_tokens = []
    for rooms in (1, 2):
        quote_tokens.append(assert_envelope_success(client.post(
            f"{API}/bookings/quote", json=quote_body(rooms=rooms, occupancy=[{"adults": 2}] *
                                                     rooms), headers=h))["quote_token"])
    assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(
        "SECRET-BKG", quote_token=quote_tokens[0]), headers=h), 201)
    assert_envelope_success(client.get(f"{API}/bookings/SECRET-BKG", headers=h))
    assert_envelope_success(client.post(f"{API}/bookings/SECRET-BKG/cancel", json={}, headers=h))
    # a quote token sent where it does not fit is refused, and still not logged
    assert client.post(f"{API}/bookings", json=booking_body(
        "SECRET-BKG-2", quote_token=quote_tokens[1]), headers=h).status_code == 409
    globex_quote = client.post(f"{API}/bookings/quote", json=quote_body(),
                               headers=with_bearer(globex))
    assert_envelope_failure(globex_quote, 404, "not_found")

    # Push, signed: ARI applied by a real worker, a reservation delivered and cancelled.
    for method, path, body in [("PUT", "/ari", ari_body()),
                               ("POST", "/reservations", reservation_body("SECRET-CM")),
                               ("POST", "/reservations/SECRET-CM/cancel", {})]:
        raw = json.dumps(body).encode()
        response = client.open(API + path, method=method, data=raw,
                               content_type="application/json",
                               headers=signed_headers(push, method, API + path, raw))
        assert response.status_code in (200, 201, 202), response.get_json()
    jobs.use_database(db)
    try:
        connection = redis.Redis.from_url(services.redis_url)
        SimpleWorker([queue_name(services.redis_prefix)], connection=connection).work(burst=True)
        connection.close()
    finally:
        jobs.use_database(None)

    # Wrong credentials carrying real secrets: another key's secret, a revoked key, a token
    # used as a signature key id, and the push secret sent as a bearer of a pull key id.
    pull_id, pull_secret = split_token(pull)
    push_id, push_secret = split_token(push)
    for headers in (with_bearer(f"{pull_id}.{push_secret}"), with_bearer(spare),
                    with_bearer(f"{push_id}.{pull_secret}x"), {"X-Api-Key-Id": pull,
                                                              "X-Timestamp": "1", "X-Nonce": "n",
                                                              "X-Signature": push_secret}):
        assert client.get(f"{API}/whoami", headers=headers).status_code == 401

    logged = logs()
    assert logged.count('"event": "request"') >= 15, "the request log was not captured"
    assert "batch" in logged.lower(), "the worker's log was not captured"
    assert pull_id in logged  # the request log names the key, never its secret
    stored = dump_database(services.database_url)
    cached = dump_redis(services.redis_url, services.redis_prefix)
    assert pull_id in stored and "SECRET-BKG" in stored  # the dump holds the run's rows

    places = {"logs": logged, "database": stored, "redis": cached,
              "cli (other than issue)": "\n".join(cli_out)}
    secrets = {f"token {t[:12]}": t for t in tokens}
    secrets.update({f"secret of {split_token(t)[0]}": split_token(t)[1] for t in tokens})
    secrets.update({f"quote token {i}": q for i, q in enumerate(quote_tokens)})
    secrets.update({f"quote signature {i}": q.rsplit(".", 1)[1]
                    for i, q in enumerate(quote_tokens)})
    leaks = [(what, where) for what, secret in secrets.items()
             for where, text in places.items() if secret in text]
    assert leaks == []
