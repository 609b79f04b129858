"""Loading hotels into the model and holding them (a mixin of SearchModel): the hotels searches
asked for (a thread, or inline), their grids in the arenas, the codes that find them."""

from __future__ import annotations

import datetime as dt
import logging
import queue
import threading
import time
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from connectivity.availability.grid import NONE, SCALE_DIGITS, Arenas, PropertyGrid, encoded
from connectivity.store.queries import queries
from connectivity.availability.read_model.metrics import BYTES, HELD, LOADS
from connectivity.availability.read_model.held import Held
from connectivity.availability.read_model.rows import (fill_days, mapping_of, offer_of,
                                                      rates_catalogues)

log = logging.getLogger(__name__)

LOAD_BATCH = 4             # properties read per statement (a batch is held at once)


class Loaded(NamedTuple):
    """A property as read, Arenas.hold_encoded's arguments in its order."""
    property_id: int
    timezone: str
    currency: str
    max_child_age: int
    start: dt.date
    offers: tuple
    room_type_ids: tuple
    offer_room: np.ndarray
    days: tuple            # grid.encoded
    exact: bool
    mappings: tuple


class Loading:
    """SearchModel's loading and holding (read_model/model.py holds its state)."""

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
        try:
            self.restore_snapshot()  # before the first load: it holds only into an empty model
        except Exception:  # the model is a cache: without the snapshot it loads row by row
            log.exception("search model: the snapshot could not be restored")
        while True:
            self.load_wanted(block=True)

    def begin(self) -> None:
        """Start the loader now rather than at the first search that lacks a hotel: with
        snapshots on, it restores the newest one first (the model host, at its start)."""
        self._start_loader()

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
            with self._loading:  # one load at a time (inline loading: request threads)
                self._load_missing(self._wanted_ids(wanted))
        except Exception:  # the model is a cache: a failed load leaves searches on the statement
            log.exception("search model: loading failed; searches use the statement meanwhile")
            time.sleep(1)

    def _wanted_ids(self, wanted: list) -> list[int]:
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
        with self._lock:  # a catch-up may be holding or dropping grids
            missing = sorted(ids - self._grids.keys())
            if self._max_properties:
                missing = missing[:max(0, self._max_properties - len(self._grids))]
        return missing

    def _load_missing(self, missing: list[int]) -> None:
        """Read the properties in batches over several connections side by side, outside the
        lock (searches and catch-ups go on meanwhile), and hold each batch once read.

        A batch's copy may predate a change that a catch-up applied before the copy is held
        (catch-ups skip what is not held): held, it would keep the old values for good, the
        position being past the change. So each property is marked in flight before its
        batch's first statement, a catch-up that applies a change to it marks it changed, and a
        changed copy is read again instead. A change no catch-up has read yet is read by a
        later one, after the copy is held. Dropping everything (forget, pruning) moves the
        generation on: nothing read before is held."""
        if not missing:
            return
        with self._lock:
            if self._positions is None:
                # The first catch-up sets the position: it would drop what was held before it.
                with self._reads.connection() as conn:
                    self._catch_up(conn)
            generation = self._generation

        def read(batch: list[int]) -> tuple[list[int], list[Loaded]]:
            with self._lock:
                for pid in batch:
                    self._in_flight[pid] = False
            with self._reads.connection() as conn:
                return batch, self._read_properties(conn, batch)

        again: list[int] = []
        pool = ThreadPoolExecutor(self._load_connections, thread_name_prefix="search-model-load")
        try:
            batches = [missing[at:at + LOAD_BATCH] for at in range(0, len(missing), LOAD_BATCH)]
            for batch, loaded in pool.map(read, batches):
                with self._lock:
                    changed = {pid for pid in batch if self._in_flight.pop(pid, True)}
                    if generation == self._generation:
                        self._hold(loaded, batch, skip=changed)
                        again += changed
        finally:
            pool.shutdown(cancel_futures=True)  # after a failed read, no batch not begun
            with self._lock:
                for pid in missing:
                    self._in_flight.pop(pid, None)
        if again:
            with self._lock, self._reads.connection() as conn:
                self._load(conn, again)  # few: in the lock, as a catch-up reloads a hotel

    def _load(self, conn, property_ids: list[int]) -> None:
        """(Re)load whole properties, catalogue and days, in the caller's lock."""
        self._hold(self._read_properties(conn, property_ids), property_ids)

    def _read_properties(self, conn, property_ids: list[int]) -> list[Loaded]:
        """Whole properties, catalogue and days, as dense arrays ready to hold: no state of the
        model is read or written (loading threads call it outside the lock)."""
        if not property_ids:
            return []
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
        loaded = []
        for prop in q.model_properties(conn, property_ids=property_ids):
            pid = prop["property_id"]
            made = tuple(offer_of(o) for o in offers.get(pid, []))
            rts = tuple(room_types.get(pid, []))
            shape = (len(made), self._window)
            money = np.full((*shape, 4), NONE, np.int64)
            plan_flags = np.zeros(shape, np.int64)
            room_flags = np.zeros((len(rts), self._window), np.int64)
            available = np.zeros((len(rts), self._window), np.int64)
            exact = fill_days(rp_days.get(pid), rt_days.get(pid), made, rts, money,
                              plan_flags, room_flags, available)
            offer_rows = {(o.room_type_id, o.rate_plan_id): i for i, o in enumerate(made)}
            catalogues = rates_catalogues(rate_rows.get(pid, []), offer_rows)
            loaded.append(Loaded(
                pid, prop["timezone"], prop["currency"], prop["max_child_age"], start, made,
                rts, np.array([rts.index(o.room_type_id) for o in made], np.int64),
                encoded(money, plan_flags, room_flags, available),
                exact and all(o.minor_units <= SCALE_DIGITS for o in made),
                tuple(mapping_of(m, made, offer_rows, catalogues.get(m["mapping_id"]))
                      for m in mappings.get(pid, []))))
        LOADS.observe(time.perf_counter() - began)
        return loaded

    def _hold(self, loaded: list[Loaded], property_ids: list[int],
              skip: AbstractSet[int] = frozenset()) -> None:
        """Hold what was read, in the lock: a property read and not found is dropped (deleted
        meanwhile); those in `skip` are left as they are."""
        for found in loaded:
            if found.property_id not in skip:
                self._drop(found.property_id)  # its old slot, if held, is garbage now
                self._put(self._arenas.hold_encoded(*found))
        for pid in set(property_ids) - {f.property_id for f in loaded} - skip:
            self._drop(pid)
        self._compact()

    def _put(self, grid: PropertyGrid) -> None:
        """Hold the grid (a new one, or the same property moved to another slot)."""
        old = self._unindex(grid.property_id)
        self._grids[grid.property_id] = grid
        self._index(grid)
        self._unplace(old)
        self._gauges()

    def _index(self, grid: PropertyGrid, moved_from: PropertyGrid | None = None) -> None:
        """Its codes to the grid; of a grid moved by compaction, only the codes that still
        named it (a code remapped to another hotel since stays with that one); each where the
        web workers find it too (directory.py), on the model host."""
        for m in grid.mappings:
            held_of = self._codes.setdefault((m.partner_id, m.environment), {})
            if moved_from is not None:
                held = held_of.get(m.hotel_code)
                if held is None or held.grid is not moved_from:
                    continue
            held = held_of[m.hotel_code] = Held(grid, m)
            if self._directory is not None:
                self._directory.place(held, self._arenas)

    def _drop(self, pid: int) -> None:
        old = self._unindex(pid)
        if old is not None:
            self._arenas.release(old)
        self._unplace(old)
        self._gauges()

    def _unplace(self, old: PropertyGrid | None) -> None:
        """The codes of a grid no longer held that nothing holds now, out of the directory
        (after `_index` placed those still held: a moved hotel's stay, with their catalogue)."""
        if old is None or self._directory is None:
            return
        for m in old.mappings:
            if m.hotel_code not in self._codes.get((m.partner_id, m.environment), {}):
                self._directory.remove(m.partner_id, m.environment, m.hotel_code)

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
        self._generation += 1  # a load under way holds nothing it read before
        self._arenas = Arenas(self._window)
        if self._directory is not None:
            self._directory.clear()
        self._gauges()

    def _gauges(self) -> None:
        if not self._gauged:
            return
        HELD.set(len(self._grids))
        BYTES.set(self.nbytes())

    def nbytes(self) -> int:
        """Bytes of the arrays allocated, room to grow and garbage included."""
        return self._arenas.nbytes()

    def held(self) -> int:
        return len(self._grids)
