"""Keeping the model current with the change log (a mixin of SearchModel): when the last
catch-up's read fence token does not cover a request's, and at least every `refresh_seconds`."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Collection, Iterable
from collections.abc import Set as AbstractSet

import numpy as np
import psycopg
from psycopg.rows import tuple_row

from connectivity.availability.feed_cursor import Position
from connectivity.logtail.tail import horizons_and_next
from connectivity.availability.grid import NONE
from connectivity.store.queries import queries
from connectivity.store.read_fence import FenceReading, covers
from connectivity.availability.read_model.metrics import CATCH_UPS, REFRESHED
from connectivity.availability.read_model.rows import fill_days

PAGE = 2000                # changes read per query while catching up
START = Position(0, 0)


def behind(horizons: dict[int, Position], positions: dict[int, Position]) -> bool:
    """Whether the log is behind the position: a database restored to an earlier point."""
    return any(h.xid < positions.get(o, START).xid for o, h in horizons.items())


def pruned_past(conn, positions: dict[int, Position]) -> bool:
    """Whether pruning deleted changes after the position."""
    return any(positions.get(m["origin"], START).xid <= int(m["through_xid"])
               for m in queries().availability.feed_pruned(conn))


class CatchingUp:
    """SearchModel's catch-ups (read_model/model.py holds its state)."""

    def refresh(self, fence: bytes | None, touching: AbstractSet[int] | None = None) -> bool:
        """Catch up with the change log unless the last catch-up began under a token that
        covers `fence`, the read fence's token the request read before it got here
        (store/read_fence.py `covers`: the same, or an earlier count of the same epoch): then
        every write acknowledged before the request had committed before that catch-up read the
        log. Any other token (None: Redis did not answer) waits for a catch-up that began after
        it was read: its own, or one another thread began under a token that covers it
        meanwhile (so the requests that wait on one catch-up under way need one more, not one
        each). Besides, at least every `refresh_seconds`, without waiting for a catch-up under
        way: that one only bounds what a writer that died before moving the fence can hide.

        `touching`: the properties the request found held, when it reads no other. It need
        not wait when no move counted after the last catch-up's token named one of them (nor
        named none, `*`): every write acknowledged before it that changed them was counted by
        that token, so applied. False then: the request reads the hotels it found held before
        this call and no other (one held since may have been read before such a write, and
        not caught up with it yet). True: the model is current for any hotel it holds."""
        if fence is not None and covers(self._fence, fence):
            self._refresh_when_due(fence)
            return True
        if touching is not None and self._untouched(fence, touching):
            self._refresh_when_due(fence)
            return False
        self._lock.acquire()
        if fence is not None and covers(self._fence, fence):
            self._lock.release()  # caught up under a covering token while this one waited
            return True
        try:
            self._catch_up_alone(fence)
        finally:
            self._lock.release()
        return True

    def _untouched(self, fence: bytes | None, touching: AbstractSet[int]) -> bool:
        if not touching:
            return True  # nothing held: the statements answer, as current as the database
        under = self._fence  # the token a finished catch-up began under
        if fence is None or under is None or self._current_fence is None:
            return False
        changed = self._changed_since(under, fence)
        return changed is not None and changed.isdisjoint(touching)

    def _changed_since(self, under: bytes, fence: bytes) -> frozenset[int] | None:
        """The properties named by every move counted after `under` up to `fence` at least
        (None: unknown). A reading taken since an earlier token or the same, whose own token
        covers `fence`, names all of them and maybe more, which only makes a request wait
        for a catch-up it could have done without: it is reused, so that under frequent
        writes the fence is read once per move, not once per request (many requests carry
        the same token)."""
        last = self._touch_reading
        if (last is not None and covers(under, last[0]) and last[1].changed is not None
                and last[1].token is not None and covers(last[1].token, fence)):
            return last[1].changed
        reading = self._current_fence(under)
        self._touch_reading = (under, reading)
        return reading.changed

    def refresh_when_due(self) -> None:
        """The periodic catch-up when due, for readers that do not come to the model: the web
        workers that read the host's shared arrays themselves (mapped.py) between the
        requests that reach it."""
        self._refresh_when_due(None)

    def _refresh_when_due(self, fence: bytes | None) -> None:
        """The periodic catch-up, unless another thread is catching up (or loading)."""
        if self._clock() - self._refreshed < self._refresh_seconds:
            return
        if not self._lock.acquire(blocking=False):
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
        # The token as it is now, before the first read: it covers every request that read its
        # token before, those waiting on this catch-up among them (store/read_fence.py); and
        # the properties every write counted since the last catch-up's token named (None:
        # unknown), which a light one reads the changes of alone.
        reading = (self._current_fence(self._fence) if self._current_fence is not None
                   else FenceReading(None, None))
        current = reading.token
        if light and self._positions is not None:
            if reading.changed is None:
                self._replay(conn, {}, {})
            elif reading.changed:
                self._replay(conn, {}, {}, only=reading.changed)
        else:
            if not conn.autocommit:
                # A pooled transaction's; the model's own connection has it for its session,
                # and in autocommit a local setting would end with its own statement.
                queries().availability.model_catch_up_settings(conn)
            horizons, next_xids = horizons_and_next(conn)
            if self._positions is not None and behind(horizons, self._positions):
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
        # None: the token it had still holds (this only went further); an earlier count of
        # the same epoch (the periodic catch-up of a slow request) leaves the later one.
        under = current if current is not None else fence
        if under is not None and not covers(self._fence, under):
            self._fence = under
        if self._directory is not None:
            self._directory.caught_up(self._fence, began_at, self._arenas)
        REFRESHED.set(began_at)
        CATCH_UPS.observe(time.perf_counter() - timer)

    def _pruned_past(self, conn) -> bool:
        # Pruning keeps 7 days: looking once a minute is ample, and spares every search a read.
        if time.monotonic() - self._pruning_checked < 60:
            return False
        self._pruning_checked = time.monotonic()
        return pruned_past(conn, self._positions)

    def _replay(self, conn, horizons: dict[int, Position], next_xids: dict[int, int],
                only: Collection[int] | None = None) -> None:
        """Apply every committed change after the position (`only`: of these properties; a
        light catch-up's, which moves no position). Below an origin's horizon a change
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
                conn, property_ids=sorted(only or ()), every_property=only is None,
                origins=origins, after_xids=[str(p.xid) for p in at],
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
            if pid in self._in_flight:
                self._in_flight[pid] = True  # being read: its copy may predate this change
            if pid not in self._grids:
                continue
            if change["from_date"] is None or {"content", "distribution"} & set(change["kinds"]):
                whole.add(pid)
            else:
                days.setdefault(pid, []).append(change)
        if self._torn is not None:  # a snapshot is being written: leave these out of it
            self._torn.update(whole, days)
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
            exact = fill_days(rp.get(pid), rt.get(pid), grid.offers, grid.room_type_ids,
                          money, plan_flags, room_flags, available)
            patched = self._arenas.patch(grid, (first - grid.start).days, money, plan_flags,
                                         room_flags, available, exact)
            if patched is not grid:
                self._put(patched)
        self._compact()

    @staticmethod
    def _days(conn, windows: dict[int, tuple[dt.date, dt.date, dt.date]]):
        """{property: rows as sent} of each day table for {property: (start, first, last)}."""
        ids = list(windows)
        params = {"property_ids": ids, "starts": [windows[p][0] for p in ids],
                  "first_dates": [windows[p][1] for p in ids],
                  "last_dates": [windows[p][2] for p in ids],
                  "earliest": min(w[1] for w in windows.values()),
                  "latest": max(w[2] for w in windows.values())}
        days: dict[str, dict[int, bytes]] = {"plan": {}, "room": {}}
        # Binary: the bytea arrives as the bytes PostgreSQL holds, with no hex to decode.
        with conn.cursor(binary=True, row_factory=tuple_row) as cursor:
            for days_of, property_id, sent in cursor.execute(
                    queries().availability.model_days.sql, params):
                days[days_of][property_id] = sent
        return days["plan"], days["room"]
