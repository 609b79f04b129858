"""The client: one method per operation of the API, in the partner's own terms.

Retries: a 429 or a 503 means the service did nothing; the request is sent again after the
answer's `Retry-After`, at most `max_attempts` times in all and never past `max_retry_seconds`.
A connection failure is retried only for requests that are safe to repeat: reads, and bookings
and cancellations, which the service makes idempotent by `partner_reference`. Signed requests
are signed again on every attempt (a fresh nonce and timestamp).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
import uuid
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any, Callable, Optional
from urllib.parse import quote as quote_path, urlencode

import httpx

from . import models
from .errors import ApiError, ClockSkewError, InvalidRequest, PcsError
from .options import checks_options
from .signing import signed_headers

API_PREFIX = "/api/connectivity/v1"
# Booking and reservation references, and batch ids, travel in the path: the description's
# patterns for them. Anything else is left for the service to judge.
REFERENCE_RE = re.compile(r"^[A-Za-z0-9._-]{1,120}$")
BATCH_ID_RE = re.compile(r"^[A-Za-z0-9-]{1,64}$")
CONFIRMATION_NUMBER_RE = re.compile(r"^PCS-[A-Z0-9]{12}$")
SIGNED_CLOCK_TOLERANCE = 300  # seconds, contract section 2


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)  # the service accepts numeric strings: no float rounding on the way
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} cannot be sent as JSON")


def _day(value: Any) -> str:
    return value.isoformat() if isinstance(value, dt.date) else str(value)


def _given(**fields: Any) -> dict[str, Any]:
    """`fields` without the ones left out (None): the service's defaults apply."""
    return {name: value for name, value in fields.items() if value is not None}


class Client:
    """`token`: the key as issued, `<key_id>.<secret>`. `signed`: sign every request (required
    for keys with `requires_signature`, allowed for any key). `http`: an httpx.Client of your
    own (proxies, transports); `sleep`: how to wait between attempts.

    Every keyword option is checked: one a call does not take raises UnknownOption (a
    TypeError) naming the nearest one, before anything is sent."""

    @checks_options
    def __init__(self, base_url: str, token: str, *, signed: bool = False,
                 timeout: float = 30.0, max_attempts: int = 4, max_retry_seconds: float = 60.0,
                 sandbox_scenario: Optional[str] = None, clock_offset: float = 0.0,
                 http: Optional[httpx.Client] = None,
                 sleep: Callable[[float], None] = time.sleep):
        key_id, dot, secret = token.partition(".")
        if not (key_id and dot and secret):
            raise InvalidRequest("token must be the key as issued: <key_id>.<secret>")
        if max_attempts < 1:
            raise InvalidRequest("max_attempts must be at least 1")
        self._key_id, self._secret, self._signed = key_id, secret, signed
        self._base = base_url.rstrip("/")
        self._http = http or httpx.Client(timeout=timeout)
        self._owns_http = http is None
        self.max_attempts = max_attempts
        self.max_retry_seconds = max_retry_seconds
        self.sandbox_scenario = sandbox_scenario
        # Seconds added to this machine's clock when signing. After a 401 `stale_request`,
        # adding its `details.skew_seconds` keeps signed requests going until the clock is
        # fixed (contract 11.5).
        self.clock_offset = clock_offset
        self._sleep = sleep
        self.last_rate_limit: Optional[str] = None  # the `RateLimit` header of the last answer

    # -- plumbing ---------------------------------------------------------------------------

    def with_scenario(self, scenario: Optional[str]) -> "Client":
        """A client sharing this one's connection that sends `X-Sandbox-Scenario: scenario`
        (sandbox keys only; contract 11.4)."""
        other = object.__new__(Client)
        other.__dict__.update(self.__dict__)
        other.sandbox_scenario = scenario
        other._owns_http = False
        return other

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @checks_options
    def request(self, method: str, path: str, *, body: Any = None,
                query: Optional[dict] = None, repeatable: Optional[bool] = None) -> dict:
        """Send one operation (with retries) and answer its `data`; raise ApiError otherwise.
        `path` is under the API prefix, e.g. "/ping". `repeatable`: may a connection failure be
        retried (default: for GET only)."""
        target = API_PREFIX + path
        if query:
            target += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        content = b"" if body is None else json.dumps(
            body, default=_json_default, separators=(",", ":")).encode("utf-8")
        repeatable = method == "GET" if repeatable is None else repeatable
        deadline = time.monotonic() + self.max_retry_seconds
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._http.request(method, self._base + target, content=content,
                                              headers=self._headers(method, target, content))
            except httpx.TransportError:
                if not repeatable or attempt >= self.max_attempts or time.monotonic() >= deadline:
                    raise
                self._sleep(min(2 ** (attempt - 1), max(0.0, deadline - time.monotonic())))
                continue
            self.last_rate_limit = response.headers.get("RateLimit")
            if response.is_success:
                return response.json(parse_float=Decimal)["data"]
            error = self._error(response)
            wait = error.retry_after if error.retry_after is not None else 1
            if (not error.retryable or attempt >= self.max_attempts
                    or time.monotonic() + wait > deadline):
                raise error
            self._sleep(wait)

    def _headers(self, method: str, target: str, content: bytes) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if content:
            headers["Content-Type"] = "application/json"
        if self.sandbox_scenario is not None:
            headers["X-Sandbox-Scenario"] = self.sandbox_scenario
        if self._signed:
            headers.update(signed_headers(self._key_id, self._secret, method, target, content,
                                          timestamp=int(time.time() + self.clock_offset)))
        else:
            headers["Authorization"] = f"Bearer {self._key_id}.{self._secret}"
        return headers

    @staticmethod
    def _error(response: httpx.Response) -> ApiError:
        retry_after = response.headers.get("Retry-After")
        retry_after = int(retry_after) if retry_after and retry_after.isdigit() else None
        try:
            body = response.json(parse_float=Decimal)
            error = body["error"]
            return ApiError(response.status_code, error["code"], error["message"],
                            error.get("details"), body.get("request_id"), retry_after)
        except (ValueError, KeyError, TypeError):
            # Not the service's envelope (a proxy's page): still an ApiError, with what is known.
            return ApiError(response.status_code, "unexpected_response", response.text[:200],
                            None, response.headers.get("X-Request-Id"), retry_after)

    @staticmethod
    def _path_segment(value: str, pattern: re.Pattern, what: str) -> str:
        if not isinstance(value, str) or not pattern.match(value):
            raise InvalidRequest(f"{what} {value!r} does not match {pattern.pattern}")
        return quote_path(value, safe="")

    # -- handshake --------------------------------------------------------------------------

    def ping(self) -> models.Ping:
        return models.Ping.from_data(self.request("GET", "/ping"))

    def whoami(self) -> models.Whoami:
        return models.Whoami.from_data(self.request("GET", "/whoami"))

    def clock_skew(self) -> float:
        """Seconds the service's clock is ahead of this one (negative: behind), measured
        against `/ping`'s `server_time` at the middle of the round trip."""
        sent = time.time()
        server = self.ping().server_time.timestamp()
        return server - (sent + time.time()) / 2

    @checks_options
    def check_clock(self, tolerance: float = SIGNED_CLOCK_TOLERANCE / 2) -> float:
        """The skew, or ClockSkewError when it is over `tolerance` seconds (signed requests are
        refused past 300 s; the default leaves room for drift)."""
        skew = self.clock_skew()
        if abs(skew) > tolerance:
            raise ClockSkewError(skew, tolerance)
        return skew

    # -- pull side --------------------------------------------------------------------------

    def hotels(self) -> list[models.Hotel]:
        hotels = self.request("GET", "/mapping/hotels")["hotels"]
        return [models.Hotel.from_data(h) for h in hotels]

    def hotel(self, hotel_code: str) -> models.Hotel:
        return models.Hotel.from_data(self.request(
            "GET", "/mapping/hotels/" + quote_path(hotel_code, safe=""))["hotel"])

    @checks_options
    def search(self, hotel_codes: Sequence[str], check_in, check_out, *, rooms: int = 1,
               occupancy: Sequence[dict] = ({"adults": 2},), currency: Optional[str] = None,
               nationality: Optional[str] = None) -> models.SearchResult:
        body = {"hotel_codes": list(hotel_codes), "check_in": _day(check_in),
                "check_out": _day(check_out), "rooms": rooms, "occupancy": list(occupancy),
                **_given(currency=currency, nationality=nationality)}
        return models.SearchResult.from_data(
            self.request("POST", "/availability/search", body=body, repeatable=True))

    @checks_options
    def rates(self, hotel_code: str, check_in, check_out, *, rooms: int = 1,
              occupancy: Sequence[dict] = ({"adults": 2},), currency: Optional[str] = None,
              nationality: Optional[str] = None, room_type_codes: Optional[Sequence[str]] = None,
              rate_plan_codes: Optional[Sequence[str]] = None) -> models.RatesResult:
        body = {"hotel_code": hotel_code, "check_in": _day(check_in),
                "check_out": _day(check_out), "rooms": rooms, "occupancy": list(occupancy),
                **_given(currency=currency, nationality=nationality,
                         room_type_codes=room_type_codes, rate_plan_codes=rate_plan_codes)}
        return models.RatesResult.from_data(
            self.request("POST", "/availability/rates", body=body, repeatable=True))

    @checks_options
    def quote(self, hotel_code: str, room_type_code: str, rate_plan_code: str, check_in,
              check_out, *, rooms: int = 1, occupancy: Sequence[dict] = ({"adults": 2},),
              currency: Optional[str] = None, nationality: Optional[str] = None) -> models.Quote:
        body = {"hotel_code": hotel_code, "room_type_code": room_type_code,
                "rate_plan_code": rate_plan_code, "check_in": _day(check_in),
                "check_out": _day(check_out), "rooms": rooms, "occupancy": list(occupancy),
                **_given(currency=currency, nationality=nationality)}
        return models.Quote.from_data(
            self.request("POST", "/bookings/quote", body=body, repeatable=True))

    @checks_options
    def book(self, quote: models.Quote, *, guests: Sequence[dict], contact: dict,
             partner_reference: Optional[str] = None, special_requests: Optional[str] = None,
             arrival_time: Optional[str] = None) -> models.BookingResult:
        """Book a quoted stay at its quoted price. One `partner_reference` (made here when not
        given) for every attempt: a retry after a lost answer gets the booking back
        (`idempotent_replay`), never a second one."""
        reference = partner_reference or f"pcs-{uuid.uuid4().hex}"
        body = {"partner_reference": reference, "quote_token": quote.quote_token,
                "hotel_code": quote.hotel_code, "room_type_code": quote.room_type_code,
                "rate_plan_code": quote.rate_plan_code, "check_in": _day(quote.check_in),
                "check_out": _day(quote.check_out), "rooms": quote.rooms,
                "total_amount": quote.total_amount, "currency": quote.currency,
                "guests": list(guests), "contact": contact,
                **_given(special_requests=special_requests, arrival_time=arrival_time)}
        data = self.request("POST", "/bookings", body=body, repeatable=True)
        return models.BookingResult(models.Booking.from_data(data["booking"]),
                                    data["idempotent_replay"], data.get("request_differs", False))

    def booking(self, partner_reference: str) -> models.Booking:
        path = "/bookings/" + self._path_segment(partner_reference, REFERENCE_RE, "reference")
        return models.Booking.from_data(self.request("GET", path)["booking"])

    @checks_options
    def list_bookings(self, *, hotel_code: Optional[str] = None, status: Optional[str] = None,
                      created_from=None, created_to=None, check_in_from=None, check_in_to=None,
                      limit: Optional[int] = None) -> Iterator[models.Booking]:
        """Every booking of the caller matching the filters given (dates and timestamps as
        objects or ISO text), oldest created first, following the pages (contract 12.1). The
        filters are checked at the call, before the first page is read."""
        return map(models.Booking.from_data, self._pages("/bookings", "bookings", dict(
            hotel_code=hotel_code, status=status, created_from=created_from,
            created_to=created_to, check_in_from=check_in_from, check_in_to=check_in_to,
            limit=limit)))

    def _pages(self, path: str, items: str, filters: dict) -> Iterator[dict]:
        """Every entry of a cursor-paged listing, following `next_cursor` with the same
        filters (dates and timestamps as ISO text, booleans as true / false)."""
        query = {name: (value.isoformat() if isinstance(value, (dt.date, dt.datetime))
                        else str(value).lower() if isinstance(value, bool) else value)
                 for name, value in filters.items() if value is not None}
        cursor = None
        while True:
            page = self.request("GET", path, query={**query, "cursor": cursor})
            yield from page[items]
            if not page["has_more"]:
                return
            cursor = page["next_cursor"]

    @checks_options
    def cancel(self, partner_reference: str, *, expected_penalty_amount=None,
               currency: Optional[str] = None, reason: Optional[str] = None
               ) -> models.CancelResult:
        path = ("/bookings/" + self._path_segment(partner_reference, REFERENCE_RE, "reference")
                + "/cancel")
        body = {k: v for k, v in (("expected_penalty_amount", expected_penalty_amount),
                                  ("currency", currency), ("reason", reason)) if v is not None}
        data = self.request("POST", path, body=body, repeatable=True)
        return models.CancelResult(models.Booking.from_data(data["booking"]),
                                   models._money(data["penalty_amount"]), data["currency"],
                                   data["idempotent_replay"])

    @checks_options
    def changes(self, cursor: Optional[str] = None, *, limit: Optional[int] = None,
                poll_seconds: Optional[float] = None) -> Iterator[tuple[models.Change, str]]:
        """The change feed (contract 11.3): (change, cursor to resume after it), oldest first.
        Without `cursor` it starts from now. Stops when caught up, unless `poll_seconds` is
        given, then it waits that long and reads on. Raises ApiError `cursor_expired` (410)
        when the cursor is too old: start again without one."""
        if cursor is None:
            cursor = self.request("GET", "/availability/changes")["next_cursor"]
        for entry, after in self._follow("/availability/changes", "changes", cursor,
                                         {"limit": limit}, poll_seconds):
            yield models.Change.from_data(entry), after

    @checks_options
    def events(self, cursor: Optional[str] = None, *, start: str = "oldest",
               types: Optional[Sequence[str]] = None, limit: Optional[int] = None,
               poll_seconds: Optional[float] = None) -> Iterator[tuple[models.Event, str]]:
        """The partner's event log (contract 12.2): (event, cursor to resume after it), oldest
        first. Without `cursor` it starts at the oldest event kept, or from now with
        `start="latest"`. Stops when caught up, unless `poll_seconds` is given, then it waits
        that long and reads on. Keep the cursor of the last event handled; an event may come
        twice (same `event_id`). Raises ApiError `cursor_expired` (410) when the cursor is
        too old: start again without one."""
        query = {"limit": limit, "types": ",".join(types) if types else None}
        if cursor is None and start == "latest":
            cursor = self.request("GET", "/events", query={"start": "latest", **query}
                                  )["next_cursor"]
        for entry, after in self._follow("/events", "events", cursor, query, poll_seconds):
            yield models.Event.from_data(entry), after

    def _follow(self, path: str, items: str, cursor: Optional[str], query: dict,
                poll_seconds: Optional[float]) -> Iterator[tuple[dict, str]]:
        """A cursor-paged log's entries with the cursor after each page, until caught up (or
        forever, `poll_seconds` apart)."""
        while True:
            page = self.request("GET", path, query={"cursor": cursor, **query})
            for entry in page[items]:
                yield entry, page["next_cursor"]
            cursor = page["next_cursor"]
            if not page["has_more"]:
                if poll_seconds is None:
                    return
                self._sleep(poll_seconds)

    # -- push side --------------------------------------------------------------------------

    def push_ari(self, hotel_code: str, items: Sequence[dict]) -> models.BatchAccepted:
        data = self.request("PUT", "/ari", body={"hotel_code": hotel_code, "items": list(items)})
        return models.BatchAccepted(data["batch_id"], data["status"], data["item_count"])

    def push_restrictions(self, hotel_code: str, items: Sequence[dict]) -> models.BatchAccepted:
        data = self.request("PUT", "/ari/restrictions",
                            body={"hotel_code": hotel_code, "items": list(items)})
        return models.BatchAccepted(data["batch_id"], data["status"], data["item_count"])

    @checks_options
    def list_hotel_bookings(self, *, hotel_code: Optional[str] = None,
                            status: Optional[str] = None, acknowledged: Optional[bool] = None,
                            limit: Optional[int] = None) -> Iterator[models.HotelBooking]:
        """The bookings other partners made on the hotels whose bookings you receive
        (contract 13.2), matching the filters given (`acknowledged=False`: what your property
        system still has to load), oldest first, following the pages."""
        return map(models.HotelBooking.from_data, self._pages(
            "/hotel-bookings", "hotel_bookings", dict(hotel_code=hotel_code, status=status,
                                                      acknowledged=acknowledged, limit=limit)))

    def hotel_booking(self, confirmation_number: str) -> models.HotelBooking:
        return models.HotelBooking.from_data(self.request(
            "GET", self._hotel_booking_path(confirmation_number))["hotel_booking"])

    @checks_options
    def acknowledge(self, confirmation_number: str, status: str, *,
                    hotel_confirmation_code: Optional[str] = None) -> models.HotelBooking:
        """Say your property system has loaded the booking in `status`, optionally with the
        hotel's own confirmation code (which the booking partner then sees). Raises ApiError
        `status_changed` (409, the current status in `details["status"]`) when the booking is no
        longer in that status: load the newer state, then acknowledge it. Safe to repeat."""
        body = {"status": status}
        if hotel_confirmation_code is not None:
            body["hotel_confirmation_code"] = hotel_confirmation_code
        data = self.request("POST", self._hotel_booking_path(confirmation_number) + "/acknowledge",
                            body=body, repeatable=True)
        return models.HotelBooking.from_data(data["hotel_booking"])

    def _hotel_booking_path(self, confirmation_number: str) -> str:
        return "/hotel-bookings/" + self._path_segment(confirmation_number,
                                                       CONFIRMATION_NUMBER_RE,
                                                       "confirmation number")

    def get_reservation(self, partner_reference: str) -> models.ReservationRecord:
        path = "/reservations/" + self._path_segment(partner_reference, REFERENCE_RE,
                                                      "reference")
        return models.ReservationRecord.from_data(self.request("GET", path))

    def batch(self, batch_id: str) -> models.Batch:
        path = "/ari/batches/" + self._path_segment(batch_id, BATCH_ID_RE, "batch id")
        return models.Batch.from_data(self.request("GET", path))

    @checks_options
    def wait_for_batch(self, batch_id: str, *, timeout: float = 60.0,
                       every: float = 0.5) -> models.Batch:
        """Read the batch until its outcome is final; PcsError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            batch = self.batch(batch_id)
            if batch.final:
                return batch
            if time.monotonic() >= deadline:
                raise PcsError(f"batch {batch_id} still {batch.status} after {timeout} s")
            self._sleep(every)
