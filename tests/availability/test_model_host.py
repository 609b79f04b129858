"""The machine's model host as gunicorn runs it (read_model/supervisor.py, host.py): one process
beside the workers, started before them; while it is gone the statements answer, and the master
starts another; it does not outlive the master."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import pickle
import signal
import threading
import time
from multiprocessing.connection import Listener
from pathlib import Path

import pytest

from connectivity.availability.read_model import remote
from connectivity.availability.read_model.host import socket_key
from connectivity.telemetry import REGISTRY
from connectivity.settings import SettingsError, shared_search_model
from connectivity.web.errors import ServiceUnavailable, ValidationFailed
from bench.cpu import is_host
from bench.model_memory import children
from tests.availability.conftest import API, START
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.web_process import web_process

PROC = Path("/proc")


def host_of(master: int) -> int | None:
    return next((pid for pid in children(master) if is_host(pid)), None)


def until(condition, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("not within the time")


def posted(port: int, token: str, path: str, body: dict) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", f"{API}{path}", json.dumps(body),
                 {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    assert response.status == 200, answer
    return answer["data"]


def searched(port: int, token: str) -> dict:
    return posted(port, token, "/availability/search", {
        "hotel_codes": ["ACME-LIS"], "check_in": START.isoformat(),
        "check_out": (START + dt.timedelta(days=3)).isoformat(), "rooms": 1,
        "occupancy": [{"adults": 2}]})


def metric(port: int, series: str) -> float:
    """The sum of a series' samples in GET /metrics (every process's, summed)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(series))


def model_hotels(port: int) -> float:
    return metric(port, 'pcs_search_model_hotels_total{source="model"}')


def test_one_host_answers_every_worker_and_comes_back(services, db, catalog, issue, tmp_path):
    nights = stay_dates(START, 3)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    token = issue("pull", rate_limit=100000).token
    with web_process(services, tmp_path, workers=2, SEARCH_MODEL_LOADING="inline") as web:
        master = web.process.pid
        first = until(lambda: host_of(master))
        workers = [p for p in children(master) if p != first]
        assert len(workers) == 2  # one host beside the two workers, not one model in each
        expected = searched(web.port, token)
        assert [(h["hotel_code"], h["available"], h["lowest_total_amount"])
                for h in expected["hotels"]] == [("ACME-LIS", True, 300)]
        before = model_hotels(web.port)
        for _ in range(6):  # whichever worker answers, the host holds the hotels
            assert searched(web.port, token) == expected
        assert model_hotels(web.port) >= before + 6

        os.kill(first, signal.SIGKILL)
        # Gone: the statements answer, the same answer.
        assert searched(web.port, token) == expected
        second = until(lambda: (p := host_of(master)) not in (None, first) and p)
        until(lambda: searched(web.port, token) == expected
              and model_hotels(web.port) > before + 6)

    assert web.process.poll() is not None
    until(lambda: gone(second), 15)  # stopped with the master


def rates_of(port: int, token: str) -> dict:
    return posted(port, token, "/availability/rates", {
        "hotel_code": "ACME-LIS", "check_in": START.isoformat(),
        "check_out": (START + dt.timedelta(days=2)).isoformat(), "rooms": 1,
        "occupancy": [{"adults": 2}]})


def mapped_reads(port: int) -> float:
    return metric(port, 'pcs_rates_requests_total{source="mapped"}')


def test_workers_read_rates_from_the_hosts_arrays_and_from_a_new_hosts_after_a_crash(
        services, db, catalog, issue, tmp_path):
    """read_model/mapped.py in gunicorn's workers: once a worker mapped the host's arrays, it
    answers rates itself; the arrays of a host that died stop being caught up, so the workers
    ask again and map the new host's."""
    nights = stay_dates(START, 3)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    token = issue("pull", rate_limit=100000).token
    with web_process(services, tmp_path, workers=2, SEARCH_MODEL_LOADING="inline") as web:
        first = until(lambda: host_of(web.process.pid))
        expected = rates_of(web.port, token)
        until(lambda: rates_of(web.port, token) == expected and mapped_reads(web.port) >= 4)
        os.kill(first, signal.SIGKILL)
        until(lambda: (p := host_of(web.process.pid)) not in (None, first) and p)
        after_crash = mapped_reads(web.port)
        until(lambda: rates_of(web.port, token) == expected
              and mapped_reads(web.port) >= after_crash + 4)


def test_the_host_does_not_outlive_a_killed_master(services, tmp_path):
    with web_process(services, tmp_path, workers=1) as web:
        host = until(lambda: host_of(web.process.pid))
        os.kill(web.process.pid, signal.SIGKILL)
        web.process.wait()
        until(lambda: gone(host), 15)


def gone(pid: int) -> bool:
    """Exited: no such process, or a zombie nobody reaped yet."""
    try:
        return (PROC / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()[0] == b"Z"
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("env, shared", [({}, True), ({"SEARCH_MODEL_SHARED": "off"}, False),
                                         ({"SEARCH_READ_MODEL": "off"}, False)])
def test_the_master_starts_a_host_unless_told_not_to(env, shared):
    assert shared_search_model(env) is shared


def test_a_shared_setting_that_is_neither_on_nor_off_stops_start_up():
    with pytest.raises(SettingsError):
        shared_search_model({"SEARCH_MODEL_SHARED": "sometimes"})


def test_an_error_the_host_raises_reaches_the_worker_whole():
    # What the host sends back is pickled: a refusal must keep its code, status and details.
    refused = ValidationFailed({"occupancy": ["too many children"]})
    again = pickle.loads(pickle.dumps(refused))
    assert (type(again), again.code, again.status, again.message, again.details) == \
        (ValidationFailed, "validation_failed", refused.status, refused.message,
         {"fields": {"occupancy": ["too many children"]}})
    unavailable = pickle.loads(pickle.dumps(ServiceUnavailable("later", retry_after=7)))
    assert (unavailable.headers, unavailable.status) == ({"Retry-After": "7"}, 503)


def unreachable() -> float:
    return REGISTRY.get_sample_value("pcs_search_model_host_unreachable_total") or 0.0


def test_a_host_too_slow_to_answer_leaves_the_read_to_the_statements(tmp_path, monkeypatch):
    # A host that takes the read and never answers (stuck): after ANSWER_SECONDS the worker's
    # statements answer every code, and it does not wait a second time on the same read.
    monkeypatch.setattr(remote, "ANSWER_SECONDS", 0.3)
    key = socket_key("k" * 40)
    listener = Listener(str(tmp_path / "host.sock"), family="AF_UNIX", authkey=key)
    taken = []

    def accept():
        while True:
            try:
                taken.append(listener.accept())
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()
    model = remote.HostedModel(str(tmp_path / "host.sock"), key)
    asked = []

    def reference(codes):
        asked.append(codes)
        return [{"hotel_code": code, "lowest_total_amount": None} for code in codes]
    before = unreachable()
    rows = model.search_rows(1, "sandbox", ["A", "B"], {"hotel_codes": ["A", "B"]}, None,
                             reference, b"token")
    assert [row["hotel_code"] for row in rows] == ["A", "B"] and asked == [["A", "B"]]
    assert unreachable() == before + 1
    assert len(taken) == 1  # asked once, not again on a new connection
    listener.close()
    # No host at all: the same, at once.
    assert model.rates_view(1, "sandbox", "A", None, None, b"token") is None
