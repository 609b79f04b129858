"""The model's copy written to the database and read back (a mixin of SearchModel), so that a
host starting empty reads one copy instead of every hotel's days row by row, then catches up
from the copy's position as after any pause (docs/operations.md 6.5, "Cold start";
snapshot_store.py keeps them).

What a snapshot holds: the grids, the codes that find them, the arenas their days lie in, and
the change log position they reflect (with the changes applied ahead of it): the state a
catch-up works from. What it does not: the read fence's token. A restored model has none, so
its first request catches up in full from the snapshot's position, and every write committed
since the snapshot was taken is reloaded from the database before any read (contract 13.1).

Writing holds the model's lock only to take the snapshot's references: the grids and codes
dicts are copied, and each arena and its columns shallowly (their arrays as they are). The
pickle is written afterwards while catch-ups go on: they never change a row the copies point
at, except by rewriting a held hotel's days in place (arena.py `patch`). So the hotels a
catch-up changes while the pickle is written are listed after it, and a restore drops them
(they are loaded again, as any hotel the model lacks)."""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import logging
import pickle
import time
from functools import cache

from connectivity.availability.arena import Arena
from connectivity.availability.feed_cursor import Position
from connectivity.availability.grid import Arenas
from connectivity.availability.read_model.catching_up import behind, pruned_past
from connectivity.availability.read_model.snapshot_pickling import dump_state, load_state
from connectivity.availability.read_model.snapshot_store import SnapshotRefused
from connectivity.logtail.tail import horizons_and_next

log = logging.getLogger(__name__)


@cache
def _malloc_trim():
    """glibc's malloc_trim, or None (another C library)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back_freed_memory() -> None:
    """Return the heap's free pages to the system. Writing or reading a snapshot frees tens of
    MiB in blocks below glibc's mmap threshold, which it would otherwise keep: 1,000 hotels held
    202 MiB, 230 after a snapshot was written, 199 after this (2026-11-29)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _frozen(arena: Arena) -> Arena:
    """The arena as it is now: its counters and arrays, not those it grows into later."""
    frozen = copy.copy(arena)
    frozen.money, frozen.plan, frozen.room = (copy.copy(c) for c in
                                              (arena.money, arena.plan, arena.room))
    return frozen


class Snapshotting:
    """SearchModel's snapshots (read_model/model.py holds its state)."""

    def write_snapshot_if_due(self, older_than_seconds: float) -> int | None:
        """A snapshot when the newest stored one is older than that (or there is none): the
        compressed bytes written, or None."""
        if self._snapshots is None or not self._snapshots.due(older_than_seconds):
            return None
        return self.write_snapshot()

    def write_snapshot(self) -> int | None:
        """Write the copy as it is now; None when there is nothing to write yet (no position,
        no hotel, or a load under way: a copy half loaded would make the next cold start load
        the rest row by row), or when everything was dropped while it was written."""
        began = time.perf_counter()
        with self._lock:
            if (self._positions is None or not self._grids or self._in_flight
                    or not self._wanted.empty() or self._torn is not None):
                return None
            arenas = {*self._arenas.by_width, *(g.arena for g in self._grids.values())}
            frozen = {id(a): _frozen(a) for a in arenas}
            state = {"positions": dict(self._positions), "ahead": dict(self._ahead),
                     "by_width": self._arenas.by_width[:], "grids": dict(self._grids),
                     "codes": {key: dict(held) for key, held in self._codes.items()}}
            generation, hotels = self._generation, len(self._grids)
            self._torn = set()
            locked = time.perf_counter() - began

        def dump(file) -> bool:
            try:
                dump_state(file, state, frozen)
            finally:
                with self._lock:
                    torn, self._torn = self._torn, None
                    dropped = generation != self._generation
            if dropped:
                return False
            pickle.dump(sorted(torn), file, protocol=5)
            return True
        stored = self._snapshots.write(hotels, dump)
        give_back_freed_memory()
        if stored is not None:
            log.info("search model: snapshot of %d hotels written, %.1f MiB, in %.1f s "
                     "(the lock held %.0f ms)", hotels, stored / 2**20,
                     time.perf_counter() - began, locked * 1000)
        return stored

    def restore_snapshot(self) -> bool:
        """Start from the newest stored snapshot, when the model holds nothing yet and the
        snapshot's position is still in the change log; False otherwise (the model then loads
        hotels as it would have)."""
        if self._snapshots is None:
            return False
        began = time.perf_counter()
        try:
            with self._snapshots.reading() as found:
                if found is None:
                    return False
                state, torn = load_state(found.stream), pickle.load(found.stream)
            with self._reads.connection() as conn:
                self._check_position(conn, state["positions"])
        except SnapshotRefused as refused:
            log.warning("search model: %s; loading row by row", refused)
            return False
        if self._max_properties and len(state["grids"]) > self._max_properties:
            log.warning("search model: the snapshot holds %d hotels, over "
                        "SEARCH_MODEL_MAX_PROPERTIES; loading row by row", len(state["grids"]))
            return False
        # Caught up in a twin, outside this model's lock: the searches meanwhile are answered
        # by the statements, never kept waiting for the changes since the snapshot was taken.
        twin = self.twin()
        try:
            with twin._lock:
                twin._hold_snapshot(state, torn)
                twin._catch_up_alone(None)  # in full: every change after the snapshot
        finally:
            if twin._conn is not None:
                twin._conn.close()
        with self._lock:
            if self._grids or self._in_flight:
                return False  # a search loaded hotels meanwhile: the copy stays its own
            self._adopt(twin)
        give_back_freed_memory()
        log.info("search model: %d hotels restored from the snapshot taken %s (%.1f MiB) in "
                 "%.1f s", len(self._grids), found.taken_at, found.bytes / 2**20,
                 time.perf_counter() - began)
        return True

    def _hold_snapshot(self, state: dict, torn: list[int]) -> None:
        """The snapshot's state as this (empty) model's, in its lock, with no token: its next
        catch-up is a full one, from the snapshot's position."""
        self._arenas = Arenas(self._window)
        self._arenas.by_width = state["by_width"]
        self._grids, self._codes = state["grids"], state["codes"]
        for pid in torn:
            self._drop(pid)
        self._positions, self._ahead = state["positions"], state["ahead"]
        self._fence = None
        self._refreshed = self._horizons_read = self._pruning_checked = float("-inf")

    def _adopt(self, twin) -> None:
        """A caught-up twin's state as this model's, in its lock."""
        self._arenas, self._grids, self._codes = twin._arenas, twin._grids, twin._codes
        self._positions, self._ahead, self._fence = twin._positions, twin._ahead, twin._fence
        self._refreshed, self._horizons_read = twin._refreshed, twin._horizons_read
        self._pruning_checked = twin._pruning_checked
        self._generation += 1  # a load under way holds nothing it read before
        if self._directory is not None:
            self._directory.clear()
            for held_of in self._codes.values():
                for held in held_of.values():
                    self._directory.place(held, self._arenas)
        self._gauges()

    @staticmethod
    def _check_position(conn, positions: dict[int, Position]) -> None:
        """The change log must still hold every change after the snapshot's position, and be
        at or past it (not a database restored to an earlier point since)."""
        if behind(horizons_and_next(conn)[0], positions):
            raise SnapshotRefused("the snapshot is ahead of the change log (a restored "
                                  "database)")
        if pruned_past(conn, positions):
            raise SnapshotRefused("the changes since the snapshot were pruned")
