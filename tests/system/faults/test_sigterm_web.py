"""SIGTERM to the web process (gunicorn, as the Procfile runs it) while requests are in flight:
each one completes with its proper answer, and gunicorn exits cleanly within its
graceful_timeout."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import psycopg

from bench.server import free_port
from tests.ari.workers import wait_for
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.system.faults.conftest import API, ROOT, START
from tests.system.faults.traffic import Partner

# Fewer than each worker's threads: all in flight whichever worker accepts them.
IN_FLIGHT = 6


def procfile(process: str) -> list[str]:
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == process:
            return shlex.split(command)
    raise AssertionError(f"the Procfile has no {process} process")


def healthy(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def web_backends_waiting_on_lock(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = 'pcs-web' AND wait_event_type = 'Lock'").fetchone()[0]


def activity(database_url: str) -> list:
    with psycopg.connect(database_url, autocommit=True) as conn:
        return conn.execute(
            "SELECT application_name, state, wait_event_type, wait_event, left(query, 60) "
            "FROM pg_stat_activity WHERE datname = current_database()").fetchall()


def test_sigterm_to_web_completes_the_requests_in_flight(services, settings, db, issue,
                                                         catalog):
    nights = stay_dates(START, 2)
    set_room_days(db, "LIS1", "DBL", nights, available=20)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    token = issue("pull", rate_limit=100000).token
    port = free_port()
    env = {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key,
           "PORT": str(port), "WEB_CONCURRENCY": "2", "WEB_THREADS": "8",
           "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}"}
    web = subprocess.Popen(procfile("web"), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, start_new_session=True)
    answers: dict[str, tuple[int, dict]] = {}
    threads = []
    try:
        assert wait_for(lambda: healthy(port) or web.poll() is not None, 60) and \
            web.poll() is None, "gunicorn did not start"

        def book(reference: str) -> None:
            body = json.dumps(Partner.booking(reference, {
                "hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL",
                "rate_plan_code": "ACME-BAR"}, [{"room_number": 1, "first_name": "Ana",
                                                 "last_name": "Silva", "is_adult": True,
                                                 "nationality": "PT"}]))
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                conn.request("POST", f"{API}/bookings", body=body, headers={
                    "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
                response = conn.getresponse()
                answers[reference] = (response.status, json.loads(response.read()))
            finally:
                conn.close()

        with psycopg.connect(services.database_url) as blocker:
            # Hold the nights' inventory rows: every booking stops inside its transaction.
            blocker.execute("SELECT 1 FROM room_type_days WHERE date = ANY(%s) FOR UPDATE",
                            (nights,))
            for n in range(IN_FLIGHT):
                thread = threading.Thread(target=book, args=(f"SIGTERM-{n}",), daemon=True)
                thread.start()
                threads.append(thread)
            assert wait_for(lambda: web_backends_waiting_on_lock(
                services.database_url) == IN_FLIGHT, 30), activity(services.database_url)
            sigterm_at = time.monotonic()
            web.send_signal(signal.SIGTERM)
            time.sleep(1)
            still_serving = web.poll() is None  # waiting for its workers' requests
            blocker.rollback()
            released_at = time.monotonic()
        for thread in threads:
            thread.join(40)
        exit_code = web.wait(40)
        exited_at = time.monotonic()
    finally:
        if web.poll() is None:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()
    stderr = web.stderr.read().decode(errors="replace")
    web.stderr.close()

    assert still_serving, "gunicorn exited with requests in flight"
    assert sorted(answers) == [f"SIGTERM-{n}" for n in range(IN_FLIGHT)], answers
    for reference, (status, body) in answers.items():
        assert status == 201, (reference, status, body)
        assert body["data"]["booking"]["partner_reference"] == reference
    with db.connection() as conn:
        booked = conn.execute("SELECT count(*) AS n FROM bookings").fetchone()["n"]
        left = conn.execute("SELECT min(available) AS n FROM room_type_days "
                            "WHERE date = ANY(%s)", (nights,)).fetchone()["n"]
    assert (booked, left) == (IN_FLIGHT, 20 - IN_FLIGHT)
    assert exit_code == 0, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    print(f"\n[faults] SIGTERM to gunicorn with {IN_FLIGHT} bookings in flight (held on a row "
          f"lock for {released_at - sigterm_at:.1f} s after the signal): {len(answers)} of "
          f"{IN_FLIGHT} answered 201 and booked; gunicorn exited {exit_code} "
          f"{exited_at - released_at:.1f} s after the lock was released "
          f"({exited_at - sigterm_at:.1f} s after SIGTERM; graceful_timeout 30 s)")
