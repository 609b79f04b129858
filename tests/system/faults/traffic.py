"""Traffic for the fault tests: one request to every endpoint, as a partner sends them (bearer
pull key, signed push key), from several threads, with each answer recorded."""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field

from tests.support.signing import bearer, signed_headers

from tests.system.faults.conftest import API, day


@dataclass(frozen=True)
class Answer:
    endpoint: str
    started: float
    ended: float
    status: int
    code: str | None
    retry_after: str | None


def _answer(endpoint: str, started: float, response) -> Answer:
    body = response.get_json(silent=True) or {}
    code = (body.get("error") or {}).get("code") if isinstance(body, dict) else None
    return Answer(endpoint, started, time.monotonic(), response.status_code, code,
                  response.headers.get("Retry-After"))


class Partner:
    """Builds and sends one request per endpoint; `refs` keeps references unique."""

    def __init__(self, pull_token: str, push_token: str, booking_ref: str, batch_id: str):
        self.pull = pull_token
        self.push = push_token
        self.booking_ref = booking_ref
        self.batch_id = batch_id
        self._refs = itertools.count(1)
        self._lock = threading.Lock()

    def ref(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}-{threading.get_ident() % 10000}-{next(self._refs)}"

    def _pull(self, client, method: str, path: str, body: dict | None = None):
        return client.open(API + path, method=method, json=body, headers=bearer(self.pull))

    def _push(self, client, method: str, path: str, body: dict | None = None):
        data = b"" if body is None else json.dumps(body).encode()
        headers = signed_headers(self.push, method, API + path, data)
        return client.open(API + path, method=method, data=data, headers=headers,
                           content_type="application/json" if body is not None else None)

    def endpoints(self) -> dict:
        stay = {"check_in": day(0), "check_out": day(2), "rooms": 1, "occupancy": [{"adults": 2}]}
        product = {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL",
                   "rate_plan_code": "ACME-BAR"}
        guests = [{"room_number": 1, "first_name": "Ana", "last_name": "Silva", "is_adult": True,
                   "nationality": "PT"}]
        return {
            "GET /readyz": lambda c: c.get("/readyz"),
            "GET /ping": lambda c: self._pull(c, "GET", "/ping"),
            "GET /whoami": lambda c: self._pull(c, "GET", "/whoami"),
            "GET /mapping/hotels": lambda c: self._pull(c, "GET", "/mapping/hotels"),
            "GET /mapping/hotels/{code}": lambda c: self._pull(c, "GET",
                                                               "/mapping/hotels/ACME-LIS"),
            "POST /availability/search": lambda c: self._pull(
                c, "POST", "/availability/search", {"hotel_codes": ["ACME-LIS"], **stay}),
            "POST /availability/rates": lambda c: self._pull(
                c, "POST", "/availability/rates", {"hotel_code": "ACME-LIS", **stay}),
            "POST /bookings/quote": lambda c: self._pull(c, "POST", "/bookings/quote",
                                                         {**product, **stay}),
            "POST /bookings": lambda c: self._pull(c, "POST", "/bookings", self.booking(
                self.ref("BKG"), product, guests)),
            "GET /bookings/{ref}": lambda c: self._pull(c, "GET", f"/bookings/{self.booking_ref}"),
            "POST /bookings/{ref}/cancel": lambda c: self._pull(
                c, "POST", f"/bookings/{self.ref('NOPE')}/cancel", {}),
            "PUT /ari": lambda c: self._push(c, "PUT", "/ari", {"hotel_code": "ACME-LIS", "items": [
                {"room_type_code": "ACME-DBL", "date": day(8), "availability": 7}]}),
            "PUT /ari/restrictions": lambda c: self._push(
                c, "PUT", "/ari/restrictions", {"hotel_code": "ACME-LIS", "items": [
                    {"room_type_code": "ACME-DBL", "start_date": day(8), "end_date": day(9),
                     "min_stay": 1}]}),
            "GET /ari/batches/{id}": lambda c: self._push(c, "GET",
                                                          f"/ari/batches/{self.batch_id}"),
            "POST /reservations": lambda c: self._push(c, "POST", "/reservations",
                                                       self.reservation(self.ref("CM"), guests)),
            # Of reservations never received: accepted and recorded for reconciliation.
            "POST /reservations/{ref}/cancel": lambda c: self._push(
                c, "POST", f"/reservations/{self.ref('CMX')}/cancel", {"reason": "test"}),
            "POST /reservations/{ref}/modify": lambda c: self._push(
                c, "POST", f"/reservations/{self.ref('CMM')}/modify", {
                    "check_in": day(0), "check_out": day(1), "net_amount": "90.00",
                    "net_currency": "EUR", "rooms": [
                        {"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}]}),
        }

    @staticmethod
    def booking(reference: str, product: dict, guests: list) -> dict:
        return {"partner_reference": reference, **product, "check_in": day(0),
                "check_out": day(2), "rooms": 1, "guests": guests,
                "contact": {"first_name": "Ana", "email": "ana@example.com"},
                "total_amount": "200.00", "currency": "EUR"}

    @staticmethod
    def reservation(reference: str, guests: list) -> dict:
        return {"partner_reference": reference, "hotel_code": "ACME-LIS", "status": "confirmed",
                "check_in": day(0), "check_out": day(2),
                "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                           "quantity": 1, "adults": 2, "nightly_rates": [
                               {"date": day(0), "amount": "100.00"},
                               {"date": day(1), "amount": "100.00"}]}],
                "guests": guests, "contact": {"email": "ana@example.com"},
                "sell_amount": "200.00", "sell_currency": "EUR"}

    def send(self, client, endpoint: str) -> Answer:
        started = time.monotonic()
        return _answer(endpoint, started, self.endpoints()[endpoint](client))


@dataclass
class Traffic:
    """`threads` threads each sending every endpoint in turn until stopped."""
    app: object
    partner: Partner
    threads: int = 4
    answers: list[Answer] = field(default_factory=list)

    def __post_init__(self):
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._turn = itertools.count()
        self._threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []

    def _run(self) -> None:
        client = self.app.test_client()
        names = list(self.partner.endpoints())
        try:
            while not self._stop.is_set():
                # One turn shared by all threads: any run of len(names) requests in a row
                # covers every endpoint.
                with self._lock:
                    i = next(self._turn)
                answer = self.partner.send(client, names[i % len(names)])
                with self._lock:
                    self.answers.append(answer)
        except BaseException as exc:  # noqa: BLE001 - reported by stop()
            self.errors.append(exc)

    def start(self) -> None:
        for _ in range(self.threads):
            thread = threading.Thread(target=self._run, daemon=True)
            thread.start()
            self._threads.append(thread)

    def snapshot(self) -> list[Answer]:
        with self._lock:
            return list(self.answers)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        assert not self.errors, self.errors
