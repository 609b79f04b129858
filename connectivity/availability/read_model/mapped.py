"""Rates read in the web worker from the model host's shared arrays (shared_arrays.py), found
through the host's directory (directory.py): no hop to the host for a hotel the host holds,
from the worker's first read of it.

A read is the worker's own only when all of these hold, else the host answers it as before:

- contract 13.1 allows it: the request's read fence token is covered by the token the host's
  last catch-up began under (published with the directory), or no move counted since that
  token named the hotel, nor named none (ReadFence.untouched: the moves this process follows,
  else one script). Every held hotel reflects every write counted up to the host's token;
- the host wrote nothing the read depends on meanwhile (the directory's seqlock, and the
  arenas' for days rewritten in place), and the worker maps the arrays as the host now lays
  them out (the layout's generation: a worker behind it asks the host for the layout first).
  The seqlocks rely on x86-64 keeping loads in order, and stores (TSO): a machine with a weaker
  memory model (ARM) would need fences, which Python does not offer, so elsewhere every rates
  read asks the host (`ORDERED_MEMORY`);
- the host's last catch-up began less than STALE_PERIODS of SEARCH_MODEL_REFRESH_SECONDS ago
  (a thread of the host's makes them: host.py `_keep_current`). A host that died, or that
  cannot reach the database, is asked rather than trusted, and what a write whose writer died
  before moving the fence may hide stays bounded as through the host.

The worker keeps the catalogues it unpickled (PLACED at most) for the layout they were read
in."""

from __future__ import annotations

import datetime as dt
import platform
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from connectivity.availability.grid import stay_days_of
from connectivity.availability.read_model.answering import RatesView
from connectivity.availability.read_model.directory import (
    AT, CAUGHT_UP, END, GENERATION, HEADER_BYTES, LENGTH, OFFER_ROW, PRESENT, PROPERTY,
    ROOM_ROW, SEQ, START, TOKEN_AT, TOKEN_LENGTH, WIDTH, Catalogue, Layout, key_of, unpacked)
from connectivity.availability.read_model.held import rate_offers
from connectivity.availability.read_model.metrics import RATES
from connectivity.availability.read_model.shared_arrays import Mapped
from connectivity.store.read_fence import covers

# Catalogues a worker keeps unpickled: about 14 KiB each on the bench's data set (its Offer
# objects and dicts, shared by nothing here), so about 56 MiB at most (the goal: 100 MiB a
# worker); past that, a read unpickles its hotel's again (about 80 us, of a rates read's ms).
PLACED = 4_000
# The host looks four times a period (host.py `_keep_current`): its last catch-up began at most
# about 1.25 periods ago, and a catch-up takes milliseconds.
STALE_PERIODS = 1.5
LAYOUT_RETRY_SECONDS = 1.0  # a layout not mapped (none yet, a segment gone): asked again after
# Whether this machine keeps loads in order, as the seqlocks need (above).
ORDERED_MEMORY = platform.machine().lower() in ("x86_64", "amd64")


@dataclass(frozen=True)
class Arrays:
    """A layout's arrays as this worker maps them."""
    generation: int
    control: np.ndarray
    header: np.ndarray
    arena_counts: np.ndarray
    widths: tuple[tuple[np.ndarray, ...], ...]
    keys: np.ndarray
    records: np.ndarray
    catalogues: np.ndarray


class MappedRates:
    """A worker's rates reads from the host's shared arrays. `untouched`: ReadFence.untouched;
    `refresh_seconds`: SEARCH_MODEL_REFRESH_SECONDS (more than 0: with 0, every read catches
    up first, on the host)."""

    def __init__(self, untouched: Callable[[bytes, bytes, int], bool], refresh_seconds: float,
                 capacity: int = PLACED):
        self._untouched = untouched
        self._stale_ns = int(STALE_PERIODS * refresh_seconds * 1e9)
        self._capacity = capacity
        self._lock = threading.Lock()
        self._arrays: Arrays | None = None
        self._catalogues: dict[int, Catalogue] = {}  # where it lies -> unpickled
        # The generation seen when the layout was last asked for, and when.
        self._asked = (-1, float("-inf"))
        self.segments = Mapped()

    def behind(self) -> bool:
        """Whether to ask the host for its layout (and `adopt` it) before reading: this worker
        maps none yet, the host laid its arrays out anew since, or the arrays it maps have not
        been caught up for too long (their host died: another one lays out its own). Once a
        generation, or again after LAYOUT_RETRY_SECONDS."""
        arrays = self._arrays
        seen = -1 if arrays is None else int(arrays.header[GENERATION])
        if arrays is not None and seen == arrays.generation and not self._stale(arrays.header):
            return False
        now = time.monotonic()
        if seen == self._asked[0] and now - self._asked[1] < LAYOUT_RETRY_SECONDS:
            return False
        self._asked = (seen, now)
        return True

    def _stale(self, header: np.ndarray) -> bool:
        return time.time_ns() - int(header[CAUGHT_UP]) > self._stale_ns

    def adopt(self, layout: Layout) -> bool:
        """Read from the layout's arrays from now on (their segments mapped already:
        `segments`); False when one is not mapped here."""
        def array(descriptor):
            return None if descriptor is None else self.segments.array(descriptor)
        control = array(layout.control)
        flat = [array(d) for d in (layout.arena_counts, layout.keys, layout.records,
                                   layout.catalogues)]
        widths = tuple(tuple(array(d) for d in width) for width in layout.widths)
        if control is None or any(a is None for a in flat) or any(
                a is None for width in widths for a in width):
            return False
        with self._lock:
            counts, keys, records, catalogues = flat
            self._arrays = Arrays(layout.generation, control,
                                  control[:HEADER_BYTES].view(np.int64), counts, widths, keys,
                                  records, catalogues)
            self._catalogues = {}
            self.segments.keep(set(layout.segments()))
        return True

    def view(self, partner_id: int, environment: str, code: str, check_in: dt.date,
             check_out: dt.date, fence: bytes | None, room_type_codes: list[str] | None,
             rate_plan_codes: list[str] | None) -> RatesView | None:
        """The rates read from the shared arrays, or None when the host must answer it."""
        arrays = self._arrays
        if arrays is None or fence is None:
            return None
        header = arrays.header
        seq = int(header[SEQ])
        if seq % 2 or int(header[GENERATION]) != arrays.generation or self._stale(header):
            return None
        token = arrays.control[TOKEN_AT:TOKEN_AT + int(header[TOKEN_LENGTH])].tobytes()
        record = self._record(arrays, key_of(partner_id, environment, code))
        if record is None or not token:
            return None
        start = dt.date.fromordinal(record[START])
        if not (start <= check_in and check_out < dt.date.fromordinal(record[END])):
            return None
        # Before any day is read: a read the host must answer (a move named its hotel) costs
        # nothing more here. A torn record is refused by the seqlock's check below.
        if not (covers(token, fence) or self._untouched(token, fence, record[PROPERTY])):
            return None
        catalogue = self._catalogue(arrays, record[AT], record[LENGTH])
        if (catalogue is None or catalogue.code != code or catalogue.partner_id != partner_id
                or catalogue.environment != environment):
            return None  # another code's 64-bit hash, or a torn read: the host answers
        writes = int(arrays.arena_counts[0])
        if writes % 2:
            return None
        offers, local = rate_offers(catalogue.rates, catalogue.offers, room_type_codes,
                                    rate_plan_codes)
        width = arrays.widths[record[WIDTH]]
        try:
            days = stay_days_of(width[0:3], width[3:6], width[6:9], catalogue.offer_room_type,
                                record[OFFER_ROW], record[ROOM_ROW], local,
                                (check_in - start).days,
                                (check_out - check_in).days + 1)
        except (IndexError, ValueError):
            return None  # a torn read (the checks below would refuse it): the host answers
        if int(header[SEQ]) != seq or int(arrays.arena_counts[0]) != writes:
            return None
        RATES.labels("mapped").inc()
        return RatesView(code, catalogue.currency, catalogue.timezone, catalogue.max_child_age,
                         offers, days)

    @staticmethod
    def _record(arrays: Arrays, key: int) -> list[int] | None:
        keys = arrays.keys
        mask = len(keys) - 1
        slot = key & mask
        for _ in range(len(keys)):
            found = int(keys[slot])
            if found == key:
                record = arrays.records[slot].tolist()
                return record if record[PRESENT] else None
            if not found:
                return None
            slot = (slot + 1) & mask
        return None

    def _catalogue(self, arrays: Arrays, at: int, length: int) -> Catalogue | None:
        found = self._catalogues.get(at)
        if found is not None:
            return found
        try:
            found = unpacked(arrays.catalogues[at:at + length].tobytes())
        except Exception:  # a torn read: bytes not yet, or no longer, a whole catalogue
            return None
        if not isinstance(found, Catalogue):
            return None
        with self._lock:
            if self._arrays is arrays:  # not one read in a layout since left
                self._catalogues[at] = found
                while len(self._catalogues) > self._capacity:
                    del self._catalogues[next(iter(self._catalogues))]
        return found
