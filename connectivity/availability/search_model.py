"""Search's read model: the grids (availability/grid.py) of the properties searched, held in the
web process and kept current by the change feed's log, so that a search of 200 hotels reads
no day row from PostgreSQL. Rates reads one hotel's days and catalogue from it too
(`SearchModel.selling`, `Held.rate_offers`, `SearchModel.stay_days`; availability/rates.py).

Freshness: a search first catches up (at most every `refresh_seconds`; a search that finds
another thread catching up or loading does not wait for it): it reads the changes after the
model's position and reloads what they name, a hotel's changed days, or the whole hotel for a
catalogue (`content`) or pause (`distribution`) change. Every committed ARI apply, booking,
cancellation, pushed reservation, pause and catalogue load writes such a row in its own
transaction. Unlike the feed, which serves only what lies below each origin's horizon, the
model applies a change as soon as it has committed and reads it again, without applying it,
until the horizon passes it: a long transaction anywhere on the node holds the feed back, not
search. Loads and catch-ups run one at a time under one lock, so a change read before a load is
reflected in it (the load's snapshot is later) and one read after it is replayed onto it.

Exactness: what the model does not hold exactly, or at all, goes to the reference statement
(search.sql) for those hotels only: a hotel not loaded yet (loaded in the background for the
next searches), a stay outside the loaded days, a price the integer layout cannot hold. FX
rates are never kept: a search that converts reads them.

Metrics (GET /metrics): hotels answered by the model and by the statement (the hit rate), the
properties and bytes held, the load time, when it last caught up (staleness) and how long a
catch-up takes."""

from __future__ import annotations

import datetime as dt
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import psycopg
from prometheus_client import Counter, Gauge, Histogram

from connectivity.availability.feed_cursor import Position
from connectivity.logtail.tail import horizons_and_next
from connectivity.availability.grid import (
    INEXACT, NONE, SCALE_DIGITS, Arenas, Conversion, Mapping, Offer, PropertyGrid, cheapest,
    cheapest_in_arena, columns_of, lookup, pack_restrictions, to_money)
from connectivity.availability.offers import fx_table
from connectivity.availability.stay import property_today
from connectivity.pricing import OccupancyError, normalise_occupancy
from connectivity.pricing.money import CurrencyNotSupported as NoFxRate
from connectivity.pricing.money import FxTable, minor_units
from connectivity.store.queries import queries
from connectivity.telemetry import REGISTRY
from connectivity.web.errors import ValidationFailed

log = logging.getLogger(__name__)

WINDOW_DAYS = 400          # loaded from yesterday on: stays booked up to ~13 months ahead
LOAD_BATCH = 4             # properties loaded per hold of the lock (searches skip their
                           # catch-up meanwhile: a short hold keeps them fresh)
PAGE = 2000                # changes read per query while catching up
START = Position(0, 0)

HOTELS = Counter("pcs_search_model_hotels", "Hotels answered by search, by source: the read "
                 "model or the reference statement (the model's hit rate).", ("source",),
                 registry=REGISTRY)
HELD = Gauge("pcs_search_model_properties", "Properties the web process's search model holds.",
             registry=REGISTRY, multiprocess_mode="liveall")
BYTES = Gauge("pcs_search_model_bytes", "Bytes of arrays the web process's search model holds.",
              registry=REGISTRY, multiprocess_mode="liveall")
LOADS = Histogram("pcs_search_model_load_seconds", "Time to load a batch of properties into "
                  "the search model (its rebuild time).", registry=REGISTRY,
                  buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
CATCH_UPS = Histogram("pcs_search_model_catch_up_seconds", "Time a catch-up with the change log "
                      "took (horizons, changes, the changed days reloaded): with the refresh "
                      "interval it bounds how late a committed change shows in search.",
                      registry=REGISTRY,
                      buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
REFRESHED = Gauge("pcs_search_model_refreshed_timestamp_seconds", "When the search model last "
                  "caught up with the change log (staleness: now minus this).",
                  registry=REGISTRY, multiprocess_mode="liveall")

RATES = Counter("pcs_rates_requests", "Rates requests by source: the read model or the "
                "statements (a hotel not held yet, a stay outside its days, a value the "
                "integers do not hold).", ("source",), registry=REGISTRY)

# The columns of offers.sql `offers` that are the rate plan's, besides its cancellation policy
# (the others: the partner's codes, the ids and the room type's capacity).
PLAN_COLUMNS = ("board_type", "currency", "base_adults", "max_adults", "max_children",
                "max_occupancy", "allowed_nationalities", "blocked_nationalities")


@dataclass(frozen=True, slots=True)
class RatesCatalogue:
    """A partner's mapping's offers as POST /availability/rates lists them (offers.sql
    `offers`), loaded with the hotel (model_rate_offers). What is the property's, its plans'
    columns and its room types' capacities, is one object for all its mappings, and equal
    values one object model-wide (`_shared`): on the bench data set 3.1 MiB for 1,500
    mappings, against 9.8 MiB as a tuple per offer and mapping (docs/operations.md 6.5)."""
    order: tuple[int, ...]           # indices into the grid's offers, in offers.sql's order
    room_type_codes: dict[int, str]  # room type -> the partner's code
    rate_plan_codes: dict[int, str]  # rate plan -> the partner's code
    plans: dict[int, dict]           # rate plan -> its PLAN_COLUMNS and policy (never changed)
    capacity: dict[int, int]         # room type -> its max occupancy


Rows = list[dict]


class Held:
    """A partner's code for a held hotel, and what every search of it reads, worked out once
    when the grid is held (or moved), not on each of the hotel's searches. Flat: a search
    reads these for up to 200 hotels, and one object each is what keeps that cheap (each
    object more is one more likely cache miss per hotel)."""

    __slots__ = ("grid", "mapping", "code", "active", "exact", "start", "window_end",
                 "timezone", "currency", "max_child_age", "arena", "offers", "columns",
                 "sole_currency", "native")

    def __init__(self, grid: PropertyGrid, mapping: Mapping):
        self.grid, self.mapping = grid, mapping
        self.code, self.active, self.exact = mapping.hotel_code, mapping.active, grid.exact
        self.start, self.window_end = grid.start, grid.window_end
        self.timezone, self.currency = grid.timezone, grid.currency
        self.max_child_age, self.arena = grid.max_child_age, grid.arena
        self.offers = (grid, mapping.rows)  # as grid.cheapest takes them
        self.columns = columns_of([(grid, mapping.rows)])  # where its mapped offers lie
        # The currency of every mapped plan when they share one ("" when none is mapped):
        # an answer in it converts nothing.
        currencies = mapping.currencies
        self.sole_currency = ("" if not currencies else
                              next(iter(currencies)) if len(currencies) == 1 else None)
        self.native = self.converts_nothing_into(grid.currency)  # answered in its own

    def converts_nothing_into(self, currency: str) -> bool:
        return self.sole_currency == "" or self.sole_currency == currency

    def covers(self, check_in: dt.date, check_out: dt.date) -> bool:
        """Whether the stay and its check-out day lie inside the grid's days."""
        return self.start <= check_in and check_out < self.window_end

    def rate_offers(self, room_type_codes: list[str] | None, rate_plan_codes: list[str] | None
                    ) -> tuple[list[dict], np.ndarray]:
        """The mapping's offers as offers.sql `offers` reads them (narrowed to the codes when
        given, in its order), and their indices in the grid's offers. The dicts are new; the
        policies and nationality tuples in them are shared and never changed."""
        rates: RatesCatalogue | None = self.mapping.rates
        offers, local = [], []
        if rates is not None:
            rooms = None if room_type_codes is None else set(room_type_codes)
            plans = None if rate_plan_codes is None else set(rate_plan_codes)
            held = self.grid.offers
            for at in rates.order:
                rt, rp = held[at].room_type_id, held[at].rate_plan_id
                room_code, plan_code = rates.room_type_codes[rt], rates.rate_plan_codes[rp]
                if (rooms is None or room_code in rooms) and (plans is None or plan_code in plans):
                    offers.append({"room_type_code": room_code, "room_type_id": rt,
                                   "room_type_max_occupancy": rates.capacity[rt],
                                   "rate_plan_code": plan_code, "rate_plan_id": rp,
                                   **rates.plans[rp]})
                    local.append(at)
        return offers, np.array(local, np.int64)


UNCONVERTIBLE = Conversion("", {})  # a hotel with a mapped plan no FX rate converts
Reference = Callable[[list[str]], Rows]


class SearchModel:
    def __init__(self, reads, *, window_days: int = WINDOW_DAYS,
                 background: bool = True, refresh_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic, max_properties: int = 0,
                 connect: Callable[[], psycopg.Connection] | None = None):
        self._reads = reads
        self._window = window_days
        self._grids: dict[int, PropertyGrid] = {}
        self._arenas = Arenas(window_days)
        # (partner, environment) -> code -> Held: what a search looks its codes up in.
        self._codes: dict[tuple[int, str], dict[str, Held]] = {}
        self._positions: dict[int, Position] | None = None
        # Changes applied while above their origin's horizon: (origin, id) -> xid.
        self._ahead: dict[tuple[int, int], int] = {}
        self._lock = threading.Lock()
        self._wanted: queue.Queue = queue.Queue()
        self._background = background
        self._loader: threading.Thread | None = None
        # A search within this long of the last catch-up answers without one: staleness is at
        # most this plus one catch-up.
        self._refresh_seconds = refresh_seconds
        self._clock = clock
        # At most this many properties held (0: no bound); the rest are searched by search.sql.
        self._max_properties = max_properties
        self._refreshed = self._horizons_read = float("-inf")
        # The read fence's token the last catch-up began under (None: none, or unknown).
        self._fence: bytes | None = None
        # A request's catch-up runs on a connection of the model's own (`_catch_up_alone`).
        self._connect = connect
        self._conn: psycopg.Connection | None = None
        self._pruning_checked = float("-inf")

    # --- answering ------------------------------------------------------------------------

    def search_rows(self, partner_id: int, environment: str, codes: list[str], request: dict,
                    now: dt.datetime, reference: Reference, fence: bytes | None) -> Rows:
        """search.sql's rows for `codes`, in their order: from the model where it holds the
        hotel exactly, from `reference` (the statement, for the codes given) for the rest.
        `fence`: the read fence's token as the request read it (`refresh`)."""
        self.refresh(fence)
        if not self._background:
            held_of = self._codes.get((partner_id, environment), {})
            self._want(partner_id, environment, [c for c in codes if c not in held_of])
            self.load_wanted()
        check_in, check_out = request["check_in"], request["check_out"]
        target = request.get("currency")
        fast: list[Held] = []
        rest: list[str] = []
        found: dict[str, dict] = {}
        held_of = self._codes.get((partner_id, environment), {})
        for code in codes:
            held = held_of.get(code)
            if held is None:
                rest.append(code)
                continue
            if not held.active:
                continue  # a paused hotel is not sold: unknown, as search.sql answers
            if not held.exact or not held.covers(check_in, check_out):
                rest.append(code)
                continue
            fast.append(held)
        if rest:
            if self._background:
                self._want(partner_id, environment, [c for c in rest if c not in held_of])
            for row in reference(rest):
                found[row["hotel_code"]] = row
        HOTELS.labels("reference").inc(len(rest))
        HOTELS.labels("model").inc(len(fast))
        if fast:
            evaluated = self._evaluate(fast, request, now, target)
            if not found:
                return evaluated  # `fast` is in the codes' order: so are its rows
            for row in evaluated:
                found[row["hotel_code"]] = row
        return [found[c] for c in codes if c in found]

    def _conversions(self, fast: list[Held], target) -> list[Conversion | None]:
        """Per hotel, None when its mapped plans are all in the answer's currency, else the
        multipliers: read now (FX rates are never kept), as search.sql reads them."""
        if target is None:
            converts_nothing = all(held.native for held in fast)
        else:
            converts_nothing = all(held.converts_nothing_into(target) for held in fast)
        if converts_nothing:  # nearly always
            return [None] * len(fast)
        tables: dict[str, FxTable] = {}
        out = []
        for held in fast:
            mapping = held.mapping
            currency = target or held.currency
            if held.converts_nothing_into(currency):
                out.append(None)
                continue
            if currency not in tables:
                with self._reads.connection() as conn:
                    tables[currency] = fx_table(conn, currency)
            rates = {}
            for source in mapping.currencies - {currency}:
                try:
                    rates[source] = tables[currency].rate(source, currency)
                except NoFxRate:
                    rates = None
                    break
            out.append(Conversion(currency, rates) if rates is not None else UNCONVERTIBLE)
        return out

    def _evaluate(self, fast, request, now, target) -> Rows:
        """The rows of the hotels the model holds."""
        return self._read(lambda: self._evaluate_once(fast, request, now, target))

    def _read(self, read: Callable):
        """read() of what the model holds, without a lock: a catch-up that rewrote days in
        place meanwhile (Arenas.writes moved) makes it read again, the second time under the
        lock."""
        arenas = self._arenas
        for _ in range(2):
            writes = arenas.writes
            if writes % 2:
                continue  # a write under way
            try:
                got = read()
            except (IndexError, ValueError):
                if arenas.writes == writes:
                    raise
                continue
            if arenas.writes == writes:
                return got
        with self._lock:
            return read()

    # --- rates ----------------------------------------------------------------------------

    def selling(self, partner_id: int, environment: str, code: str, check_in: dt.date,
                check_out: dt.date, fence: bytes | None) -> Held | None:
        """The caught-up Held that POST /availability/rates answers a stay of `code` from, or
        None when the model cannot answer it (the statements do then): not held (it is loaded
        for the next request), paused (their 404 is the one answer), not exact, or the stay
        outside its days. `fence`: as `search_rows` takes it."""
        self.refresh(fence)
        held = self._codes.get((partner_id, environment), {}).get(code)
        if held is None:
            self._want(partner_id, environment, [code])
            if not self._background:
                self.load_wanted()
                held = self._codes.get((partner_id, environment), {}).get(code)
        if (held is None or not held.active or not held.exact
                or not held.covers(check_in, check_out)):
            RATES.labels("statements").inc()
            return None
        RATES.labels("model").inc()
        return held

    def stay_days(self, held: Held, local: np.ndarray, check_in: dt.date, check_out: dt.date):
        """PropertyGrid.stay_days of the stay's nights and its check-out day, consistent (no
        in-place rewrite of them read half before, half after)."""
        width = (check_out - check_in).days + 1
        first = (check_in - held.start).days
        return self._read(lambda: held.grid.stay_days(local, first, width))

    def _evaluate_once(self, fast: list[Held], request, now, target) -> Rows:
        """The rows of `fast`, in its order."""
        check_in, check_out = request["check_in"], request["check_out"]
        # Hotels whose child age turns the request into the same rooms are evaluated together.
        parties: dict[int, tuple] = {}
        for age in {held.max_child_age for held in fast}:
            try:
                parties[age] = tuple(normalise_occupancy(request["occupancy"], request["rooms"],
                                                         age))
            except OccupancyError as exc:  # the schema checks the same; never a 500
                raise ValidationFailed(exc.fields) from None
        if len(set(parties.values())) == 1:
            groups = {next(iter(parties.values())): fast}
        else:
            groups = {}
            for held in fast:
                groups.setdefault(parties[held.max_child_age], []).append(held)
        today: dict[str, bool] = {}  # timezone -> check-in already past there
        rows = []
        for occupancy, items in groups.items():
            conversions = self._conversions(items, target)
            # An unconvertible hotel makes search.py refuse the search: its total is not used.
            lowest = self._cheapest(items, check_in, check_out, occupancy,
                                    request.get("nationality"),
                                    [None if c is UNCONVERTIBLE else c for c in conversions])
            for held, best, conversion in zip(items, lowest, conversions):
                currency, timezone = target or held.currency, held.timezone
                if conversion is UNCONVERTIBLE:
                    best = None
                past = today.get(timezone)
                if past is None:
                    past = today[timezone] = check_in < property_today(timezone, now)
                rows.append({
                    "hotel_code": held.code, "currency": currency,
                    "timezone": timezone, "check_in_past": past,
                    "currency_unsupported": conversion is UNCONVERTIBLE,
                    "lowest_total_amount": None if best is None else to_money(best, currency)})
        if len(groups) > 1:  # back to the order of `fast`
            order = {held.code: at for at, held in enumerate(fast)}
            rows.sort(key=lambda row: order[row["hotel_code"]])
        return rows

    @staticmethod
    def _cheapest(items: list[Held], check_in, check_out, occupancy, nationality,
                  conversions) -> list[int | None]:
        """grid.cheapest, from the arena rows each Held keeps when all lie in one arena."""
        grids = [held.offers for held in items]
        arena = items[0].arena
        if any(held.arena is not arena for held in items):
            return cheapest(grids, check_in, check_out, occupancy, nationality, conversions)
        return cheapest_in_arena(grids, np.concatenate([held.columns for held in items], axis=1),
                                 check_in, check_out, occupancy, nationality, conversions)

    # --- keeping current ------------------------------------------------------------------

    def refresh(self, fence: bytes | None) -> None:
        """Catch up with the change log unless the last catch-up began under `fence`, the read
        fence's token the request read before it got here (store/read_fence.py): then every
        write acknowledged before the request had committed before that catch-up read the log.
        Any other token (None: Redis did not answer) waits for a catch-up that began after it
        was read: its own, or one another thread began under the same token meanwhile.
        Besides, at least every `refresh_seconds`, without waiting for a catch-up under way:
        that one only bounds what a writer that died before moving the fence can hide."""
        if fence is not None and fence == self._fence:
            if self._clock() - self._refreshed < self._refresh_seconds:
                return
            if not self._lock.acquire(blocking=False):
                return  # another thread is catching up (or loading): current as it is
        else:
            self._lock.acquire()
            if fence is not None and fence == self._fence:
                self._lock.release()  # caught up under this token while this one waited
                return
        try:
            self._catch_up_alone(fence)
        finally:
            self._lock.release()

    def _catch_up_alone(self, fence: bytes | None) -> None:
        """A request's catch-up, on the model's own connection (autocommit: one round trip a
        statement, where a pooled transaction adds a check, BEGIN and COMMIT), made again once
        when found broken. Light while the horizons were read less than `refresh_seconds`
        ago: only the changes after the position (below)."""
        light = self._clock() - self._horizons_read < self._refresh_seconds
        if self._connect is None:  # no connection of its own: a pooled transaction
            with self._reads.connection() as conn:
                self._catch_up(conn, fence, light=light)
            return
        for attempt in (1, 2):
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = self._connect()
            try:
                self._catch_up(self._conn, fence, light=light)
                return
            except psycopg.OperationalError:
                self._conn.close()
                self._conn = None
                if attempt == 2:
                    raise

    def _catch_up(self, conn, fence: bytes | None = None, *, light: bool = False) -> None:
        """Replay what committed since the position. In full, the horizons first: the position
        moves past what lies below them. Light (between full ones, a request whose read fence
        moved), the changes alone: one statement, and no call to every Citus worker for its
        horizon. Whatever has committed is applied either way; the light one only leaves the
        position where it was, so what it applied is remembered (`_ahead`) until a full one
        passes it."""
        # What the catch-up reads is as of its start: staleness runs from there, and the next
        # one is due `refresh_seconds` after this one began, not after it ended.
        began, began_at, timer = self._clock(), time.time(), time.perf_counter()
        if light and self._positions is not None:
            self._replay(conn, {}, {})
        else:
            queries().availability.model_catch_up_settings(conn)
            horizons, next_xids = horizons_and_next(conn)
            if self._positions is not None and any(
                    h.xid < self._positions.get(o, START).xid for o, h in horizons.items()):
                # A snapshot behind what the model holds (a database restored to an earlier
                # point: web processes are restarted after a restore, docs/operations.md 5.6).
                return
            if self._positions is None or self._pruned_past(conn):
                # First use, or changes lost to pruning: start empty from the horizons.
                self._drop_all()
                self._positions, self._ahead = dict(horizons), {}
            else:
                self._replay(conn, horizons, next_xids)
            self._horizons_read = began
        self._refreshed = began
        if fence is not None:  # else the token it had still holds: this only went further
            self._fence = fence
        REFRESHED.set(began_at)
        CATCH_UPS.observe(time.perf_counter() - timer)

    def _pruned_past(self, conn) -> bool:
        # Pruning keeps 7 days: looking once a minute is ample, and spares every search a read.
        if time.monotonic() - self._pruning_checked < 60:
            return False
        self._pruning_checked = time.monotonic()
        return any(self._positions.get(m["origin"], START).xid <= int(m["through_xid"])
                   for m in queries().availability.feed_pruned(conn))

    def _replay(self, conn, horizons: dict[int, Position], next_xids: dict[int, int]) -> None:
        """Apply every committed change after the position. Below an origin's horizon a change
        is final and the position moves past it; at or above it (a transaction older than it
        still runs, anywhere on the node) it is applied now and remembered, so that it is not
        applied again while it is read again, until the horizon passes it and nothing can
        still appear before it. A change of a transaction begun after the horizons were read
        (its xid at or past the next xid read with them) waits for the next catch-up: the
        position never passes it, the horizon being below that next xid."""
        after = dict(self._positions)
        origins = sorted({*after, *horizons})
        while True:
            at = [after.get(o, START) for o in origins]
            rows = queries().availability.model_changes(
                conn, origins=origins, after_xids=[str(p.xid) for p in at],
                after_ids=[p.change_id for p in at],
                before_xids=[str(next_xids[o]) if o in next_xids else None for o in origins],
                low_xid=str(min(p.xid for p in at)),
                high_xid=str(max(next_xids.values()) if next_xids.keys() >= set(origins)
                             else 2 ** 64 - 1),
                page_size=PAGE)
            self._apply(conn, [r for r in rows if (r["origin"], r["id"]) not in self._ahead])
            for row in rows:
                origin, xid = row["origin"], int(row["xid"])
                after[origin] = Position(xid, row["id"])
                horizon = horizons.get(origin)
                if horizon is not None and xid < horizon.xid:
                    self._positions[origin] = after[origin]
                else:
                    self._ahead[(origin, row["id"])] = xid
            if len(rows) < PAGE:
                break
        for origin, horizon in horizons.items():
            self._positions[origin] = max(horizon, self._positions.get(origin, START),
                                          key=lambda p: (p.xid, p.change_id))
        self._ahead = {key: xid for key, xid in self._ahead.items()
                       if xid >= self._positions.get(key[0], START).xid}

    def _apply(self, conn, changes: Iterable[dict]) -> None:
        whole: set[int] = set()
        days: dict[int, list[dict]] = {}
        for change in changes:
            pid = change["property_id"]
            if pid not in self._grids:
                continue
            if change["from_date"] is None or {"content", "distribution"} & set(change["kinds"]):
                whole.add(pid)
            else:
                days.setdefault(pid, []).append(change)
        if whole:
            self._load(conn, sorted(whole))
        spans = {}
        for pid, changed in days.items():
            grid = self._grids.get(pid)
            if pid in whole or grid is None:
                continue
            first = max(min(c["from_date"] for c in changed), grid.start)
            last = min(max(c["to_date"] for c in changed),
                       grid.start + dt.timedelta(days=grid.days - 1))
            if first <= last:
                spans[pid] = (first, last)
        if spans:
            self._reload_days(conn, spans)

    def _reload_days(self, conn, spans: dict[int, tuple[dt.date, dt.date]]) -> None:
        """The changed days of loaded properties, read in one statement per day table: every
        room type and plan of each property between its two dates (a day without a row is a
        day with nothing sent: cleared, then filled from the rows), written over the held days
        in place when their palettes have room (arena.py)."""
        rp, rt = self._days(conn, {pid: (first, first, last)
                                   for pid, (first, last) in spans.items()})
        for pid, (first, last) in spans.items():
            grid = self._grids[pid]
            width = (last - first).days + 1
            offers, rooms = len(grid.offers), len(grid.room_type_ids)
            money = np.full((offers, width, 4), NONE, np.int64)
            plan_flags = np.zeros((offers, width), np.int64)
            room_flags = np.zeros((rooms, width), np.int64)
            available = np.zeros((rooms, width), np.int64)
            exact = _fill(rp.get(pid, ""), rt.get(pid, ""), grid.offers, grid.room_type_ids,
                          money, plan_flags, room_flags, available)
            patched = self._arenas.patch(grid, (first - grid.start).days, money, plan_flags,
                                         room_flags, available, exact)
            if patched is not grid:
                self._put(patched)
        self._compact()

    @staticmethod
    def _days(conn, windows: dict[int, tuple[dt.date, dt.date, dt.date]]):
        """{property: text} of each day table for {property: (start, first, last)}."""
        ids = list(windows)
        params = {"property_ids": ids, "starts": [windows[p][0] for p in ids],
                  "first_dates": [windows[p][1] for p in ids],
                  "last_dates": [windows[p][2] for p in ids]}
        days: dict[str, dict[int, str]] = {"plan": {}, "room": {}}
        for row in queries().availability.model_days(conn, **params):
            days[row["days_of"]][row["property_id"]] = row["days"]
        return days["plan"], days["room"]

    # --- loading --------------------------------------------------------------------------

    def _want(self, partner_id: int, environment: str, codes: list[str]) -> None:
        if not codes:
            return
        self._wanted.put((partner_id, environment, tuple(codes)))
        if self._background:
            self._start_loader()

    def _start_loader(self) -> None:
        if self._loader is None or not self._loader.is_alive():
            # Started on first need, in the process that serves (never before gunicorn forks).
            self._loader = threading.Thread(target=self._load_forever, daemon=True,
                                            name="search-model-loader")
            self._loader.start()

    def _load_forever(self) -> None:
        while True:
            self.load_wanted(block=True)

    def preload(self) -> None:
        """Load every property in the background (SEARCH_MODEL_PRELOAD): the first searches of
        a process that just started are then answered by the model as soon as it holds them."""
        self._wanted.put(None)
        self._start_loader()

    def forget(self) -> None:
        """Drop everything and start again from the feed's horizons at the next search: after
        the database was restored or emptied under a running process (the feed does not log
        a TRUNCATE or a restore)."""
        with self._lock:
            self._drop_all()
            self._positions, self._fence = None, None
            self._refreshed = self._horizons_read = self._pruning_checked = float("-inf")

    def load_wanted(self, block: bool = False) -> None:
        """Load the properties behind the codes searches asked for and the model lacked."""
        if not block and self._wanted.empty():
            return
        try:
            wanted = [self._wanted.get(block=block)]
            while True:
                wanted.append(self._wanted.get_nowait())
        except queue.Empty:
            pass
        try:
            with self._reads.connection() as conn:
                ids: set[int] = set()
                for asked in wanted:
                    if asked is None:
                        ids.update(r["property_id"] for r in
                                   queries().availability.model_all_properties(conn))
                        continue
                    partner_id, environment, codes = asked
                    ids.update(r["property_id"] for r in queries().availability.
                               model_mapped_properties(conn, partner_id=partner_id,
                                                       environment=environment,
                                                       hotel_codes=list(codes)))
            missing = sorted(ids - set(self._grids))
            if self._max_properties:
                missing = missing[:max(0, self._max_properties - len(self._grids))]
            for at in range(0, len(missing), LOAD_BATCH):
                with self._lock, self._reads.connection() as conn:
                    self._catch_up(conn)
                    self._load(conn, [p for p in missing[at:at + LOAD_BATCH]
                                      if p not in self._grids])
        except Exception:  # the model is a cache: a failed load leaves searches on the statement
            log.exception("search model: loading failed; searches use the statement meanwhile")
            time.sleep(1)

    def _load(self, conn, property_ids: list[int]) -> None:
        """(Re)load whole properties, catalogue and days, in the caller's lock."""
        if not property_ids:
            return
        began = time.perf_counter()
        q = queries().availability
        start = dt.date.today() - dt.timedelta(days=1)
        last = start + dt.timedelta(days=self._window - 1)
        offers: dict[int, list[dict]] = {}
        for row in q.model_offers(conn, property_ids=property_ids):
            offers.setdefault(row["property_id"], []).append(row)
        room_types: dict[int, list[int]] = {}
        for row in q.model_room_types(conn, property_ids=property_ids):
            room_types.setdefault(row["property_id"], []).append(row["room_type_id"])
        mappings: dict[int, list[dict]] = {}
        for row in q.model_mappings(conn, property_ids=property_ids):
            mappings.setdefault(row["property_id"], []).append(row)
        rate_rows: dict[int, list[dict]] = {}
        for row in q.model_rate_offers(conn, property_ids=property_ids):
            rate_rows.setdefault(row["property_id"], []).append(row)
        rp_days, rt_days = self._days(conn, {pid: (start, start, last) for pid in property_ids})
        found = set()
        for prop in q.model_properties(conn, property_ids=property_ids):
            pid = prop["property_id"]
            found.add(pid)
            made = [_offer(o) for o in offers.get(pid, [])]
            rts = tuple(room_types.get(pid, []))
            shape = (len(made), self._window)
            money = np.full((*shape, 4), NONE, np.int64)
            plan_flags = np.zeros(shape, np.int64)
            room_flags = np.zeros((len(rts), self._window), np.int64)
            available = np.zeros((len(rts), self._window), np.int64)
            exact = _fill(rp_days.get(pid, ""), rt_days.get(pid, ""), tuple(made), rts, money,
                          plan_flags, room_flags, available)
            offer_rows = {(o.room_type_id, o.rate_plan_id): i for i, o in enumerate(made)}
            catalogues = _rates_catalogues(rate_rows.get(pid, []), offer_rows)
            grid = self._arenas.hold(
                pid, prop["timezone"], prop["currency"], prop["max_child_age"], start,
                tuple(made), rts, np.array([rts.index(o.room_type_id) for o in made], np.int64),
                money, plan_flags, room_flags, available,
                exact and all(o.minor_units <= SCALE_DIGITS for o in made),
                tuple(_mapping(m, made, offer_rows, catalogues.get(m["mapping_id"]))
                      for m in mappings.get(pid, [])))
            self._drop(pid)  # its old slot, if held, is garbage now
            self._put(grid)
        for pid in set(property_ids) - found:
            self._drop(pid)
        self._compact()
        LOADS.observe(time.perf_counter() - began)

    def _put(self, grid: PropertyGrid) -> None:
        """Hold the grid (a new one, or the same property moved to another slot)."""
        self._unindex(grid.property_id)
        self._grids[grid.property_id] = grid
        self._index(grid)
        self._gauges()

    def _index(self, grid: PropertyGrid, moved_from: PropertyGrid | None = None) -> None:
        """Its codes to the grid; of a grid moved by compaction, only the codes that still
        named it (a code remapped to another hotel since stays with that one)."""
        for m in grid.mappings:
            held_of = self._codes.setdefault((m.partner_id, m.environment), {})
            if moved_from is not None:
                held = held_of.get(m.hotel_code)
                if held is None or held.grid is not moved_from:
                    continue
            held_of[m.hotel_code] = Held(grid, m)

    def _drop(self, pid: int) -> None:
        old = self._unindex(pid)
        if old is not None:
            self._arenas.release(old)
        self._gauges()

    def _unindex(self, pid: int) -> PropertyGrid | None:
        old = self._grids.pop(pid, None)
        if old is not None:
            for m in old.mappings:
                held_of = self._codes.get((m.partner_id, m.environment), {})
                held = held_of.get(m.hotel_code)
                if held is not None and held.grid.property_id == pid:
                    del held_of[m.hotel_code]
        return old

    def _compact(self) -> None:
        # Moved properties leave garbage slots; when an arena is a third garbage its live
        # slots are copied into new arrays (searches under way keep reading the old ones).
        if not any(a.worth_compacting() for a in self._arenas.by_width):
            return
        grids = list(self._grids.values())
        for old, new in zip(grids, self._arenas.compacted(grids)):
            if new is not old:
                self._grids[new.property_id] = new
                self._index(new, moved_from=old)  # its codes' arena rows moved with it

    def _drop_all(self) -> None:
        self._grids, self._codes = {}, {}
        self._arenas = Arenas(self._window)
        self._gauges()

    def _gauges(self) -> None:
        HELD.set(len(self._grids))
        BYTES.set(self.nbytes())

    def nbytes(self) -> int:
        """Bytes of the arrays allocated, room to grow and garbage included."""
        return self._arenas.nbytes()

    def held(self) -> int:
        return len(self._grids)


def _fill(rp_text: str, rt_text: str, offers, room_type_ids, money, plan_flags, room_flags,
          available) -> bool:
    """Write a property's day rows (model_days) into its arrays; False when a value does not
    fit the integer layout."""
    rp, rt = _numbers(rp_text, 12), _numbers(rt_text, 8)
    exact = not (rp[:, 3:7] == INEXACT).any()
    if len(rp) and offers:
        keys = np.array([o.room_type_id << 32 | o.rate_plan_id for o in offers], np.int64)
        rows, hit = lookup(keys, rp[:, 0] << 32 | rp[:, 1])  # a pair no plan sells: no offer
        day = rp[hit, 2]
        money[rows, day] = rp[hit, 3:7]
        plan_flags[rows, day] = pack_restrictions(*rp[hit, 7:12].T)
    if len(rt) and room_type_ids:
        at, hit = lookup(np.array(room_type_ids, np.int64), rt[:, 0])
        available[at, rt[hit, 1]] = rt[hit, 2]
        room_flags[at, rt[hit, 1]] = pack_restrictions(*rt[hit, 3:8].T)
    return bool(exact)


def _numbers(text: str, width: int) -> np.ndarray:
    values = np.array(text.split(), np.int64) if text else np.zeros(0, np.int64)
    return values.reshape(-1, width)


def _offer(row: dict) -> Offer:
    return Offer(row["room_type_id"], row["rate_plan_id"], row["currency"],
                 minor_units(row["currency"]), row["base_adults"], row["max_adults"],
                 row["max_children"], row["max_occupancy"],
                 frozenset(c.upper() for c in row["allowed_nationalities"]),
                 frozenset(c.upper() for c in row["blocked_nationalities"]))


def _mapping(row: dict, offers: list[Offer], offer_rows: dict,
             rates: RatesCatalogue | None) -> Mapping:
    rts, rps = set(row["room_type_ids"]), set(row["rate_plan_ids"])
    rows = np.array([i for (rt, rp), i in offer_rows.items() if rt in rts and rp in rps],
                    np.int64)
    rows = np.sort(rows)
    return Mapping(row["mapping_id"], row["partner_id"], row["environment"], row["hotel_code"],
                   row["distribution_active"], rows, frozenset(row["plan_currencies"]), rates)


def _rates_catalogues(rows: Iterable[dict], offer_rows: dict) -> dict[int, RatesCatalogue]:
    """One property's model_rate_offers rows, in their order, as each mapping's catalogue."""
    plans: dict[int, dict] = {}
    capacity: dict[int, int] = {}
    mapped: dict[int, tuple[list[int], dict[int, str], dict[int, str]]] = {}
    for row in rows:
        rt, rp = row["room_type_id"], row["rate_plan_id"]
        at = offer_rows.get((rt, rp))
        if at is None:
            # An offer the load's earlier statement did not see: a catalogue load committed in
            # between, whose content change reloads the hotel.
            continue
        if rp not in plans:
            plans[rp] = {**{c: _shared(row[c]) for c in PLAN_COLUMNS},
                         "cancellation_policy": _policy(row["cancellation_policy"])}
        capacity[rt] = row["room_type_max_occupancy"]
        order, room_codes, plan_codes = mapped.setdefault(row["mapping_id"], ([], {}, {}))
        order.append(at)
        room_codes[rt] = _shared(row["room_type_code"])
        plan_codes[rp] = _shared(row["rate_plan_code"])
    return {mapping_id: RatesCatalogue(tuple(order), room_codes, plan_codes, plans, capacity)
            for mapping_id, (order, room_codes, plan_codes) in mapped.items()}


# Equal catalogue values of every hotel held are one object (codes, boards and currencies
# repeat across hotels and channels, policies across plans): without it they were two thirds
# of the catalogues' memory. Bounded: a value no longer held stays cached until pushed out.
@lru_cache(maxsize=65536)
def _policy(text: str) -> dict:
    return json.loads(text)  # shared: never changed (rates only writes it out)


def _shared(value):
    """The one object of a value equal to it (a list becomes a tuple)."""
    return _interned(tuple(value) if isinstance(value, list) else value)


@lru_cache(maxsize=65536, typed=True)
def _interned(value):
    return value
