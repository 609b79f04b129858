"""Where a web worker finds a held hotel in the model host's shared arrays (mapped.py reads it),
kept by the host as it holds, moves and drops hotels: every worker finds every hotel the host
holds with no hop to the host, from its first read.

In shared segments (shared_arrays.py), all written by the host under the model's lock:

- the control: a seqlock count (odd while the host writes any of what follows), when the
  model's last catch-up began, the read fence token it began under (every held hotel
  reflects every write counted up to it, catching_up.py), and the generation of the layout
  (every shared array's descriptor, `Layout`), which a worker asks the host for again, with
  the segments, whenever it moves (an array grown, compacted or dropped);
- a table of the partners' codes, open addressing on a 64-bit hash of (partner, environment,
  code): per code, where its hotel's days lie (the arena's width, its rows), its days' dates,
  its property and where its catalogue lies;
- the catalogues: each one a pickle, compressed (the mapping's offers, the grid's, its currency
  and the like: `Catalogue`), appended; one replaced is garbage until they are copied
  into a new array. A worker unpickles one once per layout and keeps it.

Only a hotel the model answers rates for is placed (held, selling, exact, with offers); any
other code is absent, and its reads go to the host, which answers them as before."""

from __future__ import annotations

import hashlib
import pickle
import zlib
from dataclasses import dataclass

import numpy as np

from connectivity.availability.arena import WIDTHS
from connectivity.availability.grid import Arenas, Offer
from connectivity.availability.read_model.held import Held, RatesCatalogue
from connectivity.availability.read_model.shared_arrays import Descriptor, Segments

# The control: int64 header fields, then the token's bytes.
SEQ, CAUGHT_UP, GENERATION, TOKEN_LENGTH = range(4)
HEADER_BYTES, TOKEN_AT, CONTROL_BYTES = 64, 64, 512
# A code's record.
PRESENT, WIDTH, OFFER_ROW, ROOM_ROW, AT, LENGTH, START, END, PROPERTY = range(9)
FIELDS = 9
FIRST_SLOTS = 1024         # the table doubles past half full
FIRST_BYTES = 1 << 20      # the catalogues grow by a half when full
COMPACT_BYTES = 8 << 20    # garbage past this and past half the catalogues: copied anew


def key_of(partner_id: int, environment: str, code: str) -> int:
    digest = hashlib.blake2b(f"{partner_id}\0{environment}\0{code}".encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "little") | 1  # 0 marks an empty slot


def packed(catalogue: Catalogue) -> bytes:
    """A catalogue as the directory holds it: its pickle, compressed (2.26 KiB a code on the
    bench's data set, 0.92 compressed: 140 against 340 MiB at 100,000 hotels; 7 us more to read
    one, of 81, once per worker and layout)."""
    return zlib.compress(pickle.dumps(catalogue, protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpacked(blob: bytes) -> Catalogue:
    return pickle.loads(zlib.decompress(blob))


@dataclass(frozen=True, slots=True)
class Catalogue:
    """What a rates read needs of a placed code besides its days."""
    partner_id: int
    environment: str
    code: str
    currency: str
    timezone: str
    max_child_age: int
    offers: tuple[Offer, ...]
    rates: RatesCatalogue | None
    offer_room_type: np.ndarray


@dataclass(frozen=True)
class Layout:
    """Every shared array's descriptor, as a worker maps them."""
    generation: int
    control: Descriptor
    arena_counts: Descriptor
    widths: tuple[tuple[Descriptor, ...], ...]  # per index width: arena.Arena.mapped()'s
    keys: Descriptor
    records: Descriptor
    catalogues: Descriptor

    def segments(self) -> list[int]:
        return [d[0] for d in (self.control, self.arena_counts, self.keys, self.records,
                               self.catalogues, *(d for w in self.widths for d in w))]


class Directory:
    """The host's side: written under the model's lock (SearchModel `_index`, `_unindex`,
    `_drop_all`, and each catch-up's end)."""

    def __init__(self, segments: Segments):
        self._segments = segments
        self._control = segments.zeros(CONTROL_BYTES, np.uint8)
        self._header = self._control[:HEADER_BYTES].view(np.int64)
        self._keys = segments.zeros(FIRST_SLOTS, np.uint64)
        self._records = segments.zeros((FIRST_SLOTS, FIELDS), np.int64)
        self._slots: dict[int, int] = {}  # key -> its slot (the table, for the host's lookups)
        self._sources: dict[int, tuple] = {}  # key -> what its catalogue was pickled from
        self._catalogues = segments.zeros(FIRST_BYTES, np.uint8)
        self._used = self._garbage = 0
        self._shown: tuple = ()   # the arrays of the last layout written
        self.layout: Layout | None = None

    def lay_out(self, arenas: Arenas) -> None:
        """The layout of `arenas` (a model's first, empty): a worker maps it from its first
        read, and maps only what changes afterwards."""
        self._begin()
        try:
            self._show(arenas)
        finally:
            self._end()

    def place(self, held: Held, arenas: Arenas) -> None:
        """Where a worker finds `held`'s code (absent when the model would not answer its rates
        from what it holds)."""
        grid, mapping = held.grid, held.mapping
        if not (held.active and held.exact and grid.offers):
            self.remove(mapping.partner_id, mapping.environment, held.code)
            return
        key = key_of(mapping.partner_id, mapping.environment, held.code)
        # A hotel moved (its days to another slot, or compacted) keeps its catalogue: the same
        # objects, whose pickle is written already. Held here, they are not collected.
        source = (grid.offers, mapping, grid.offer_room_type, grid.currency, grid.timezone,
                  grid.max_child_age)
        kept = self._sources.get(key)
        blob = None
        if kept is None or any(a is not b for a, b in zip(kept, source)):
            blob = packed(Catalogue(mapping.partner_id, mapping.environment, held.code,
                                    held.currency, held.timezone, held.max_child_age,
                                    grid.offers, mapping.rates, grid.offer_room_type))
        self._begin()
        try:
            slot = self._slot(key)
            at, length = (int(v) for v in self._records[slot, AT:LENGTH + 1])
            if blob is not None:
                if self._records[slot, PRESENT]:
                    self._garbage += length
                at, length = self._append(blob), len(blob)
            self._records[slot] = (1, WIDTHS.index(grid.arena.dtype.type), grid.offer_row,
                                   grid.room_row, at, length, held.start.toordinal(),
                                   held.window_end.toordinal(), grid.property_id)
            self._sources[key] = source
            self._show(arenas)
        finally:
            self._end()

    def remove(self, partner_id: int, environment: str, code: str) -> None:
        key = key_of(partner_id, environment, code)
        self._sources.pop(key, None)
        slot = self._slots.get(key)
        if slot is None or not self._records[slot, PRESENT]:
            return
        self._begin()
        self._records[slot, PRESENT] = 0
        self._garbage += int(self._records[slot, LENGTH])
        self._end()

    def clear(self) -> None:
        """Nothing held (the model dropped everything): every code absent, no token."""
        self._sources = {}
        self._begin()
        self._records[:, PRESENT] = 0
        self._header[TOKEN_LENGTH] = 0
        self._garbage = self._used
        self._end()

    def caught_up(self, token: bytes | None, began_at: float, arenas: Arenas) -> None:
        """After a catch-up: the token it began under (every held hotel reflects every write
        counted up to it) and when it began; the layout first, should arrays have changed."""
        self._begin()
        try:
            self._show(arenas)
            self._header[CAUGHT_UP] = int(began_at * 1e9)
            if token is None or len(token) > CONTROL_BYTES - TOKEN_AT:
                self._header[TOKEN_LENGTH] = 0
            else:
                self._control[TOKEN_AT:TOKEN_AT + len(token)] = np.frombuffer(token, np.uint8)
                self._header[TOKEN_LENGTH] = len(token)
        finally:
            self._end()

    def _begin(self) -> None:
        self._header[SEQ] += 1

    def _end(self) -> None:
        self._header[SEQ] += 1

    def _append(self, blob: bytes) -> int:
        if self._used + len(blob) > len(self._catalogues):
            if self._garbage > max(COMPACT_BYTES, self._used // 2):
                self._compact()
            if self._used + len(blob) > len(self._catalogues):
                grown = self._segments.zeros(
                    max(self._used + len(blob), len(self._catalogues) * 3 // 2), np.uint8)
                grown[:self._used] = self._catalogues[:self._used]
                self._catalogues = grown
        at = self._used
        self._catalogues[at:at + len(blob)] = np.frombuffer(blob, np.uint8)
        self._used += len(blob)
        return at

    def _compact(self) -> None:
        """The live catalogues copied into a new array (its size what they take and half more)."""
        live = [s for s in self._slots.values() if self._records[s, PRESENT]]
        size = sum(int(self._records[s, LENGTH]) for s in live)
        fresh = self._segments.zeros(max(FIRST_BYTES, size * 3 // 2), np.uint8)
        at = 0
        for slot in live:
            start, length = int(self._records[slot, AT]), int(self._records[slot, LENGTH])
            fresh[at:at + length] = self._catalogues[start:start + length]
            self._records[slot, AT] = at
            at += length
        self._catalogues, self._used, self._garbage = fresh, at, 0

    def _slot(self, key: int) -> int:
        slot = self._slots.get(key)
        if slot is not None:
            return slot
        if (len(self._slots) + 1) * 2 > len(self._keys):
            self._rehash(len(self._keys) * 2)
        mask = len(self._keys) - 1
        slot = key & mask
        while self._keys[slot]:
            slot = (slot + 1) & mask
        self._keys[slot] = key
        self._slots[key] = slot
        return slot

    def _rehash(self, size: int) -> None:
        keys = self._segments.zeros(size, np.uint64)
        records = self._segments.zeros((size, FIELDS), np.int64)
        slots: dict[int, int] = {}
        for key, old in self._slots.items():
            slot = key & (size - 1)
            while keys[slot]:
                slot = (slot + 1) & (size - 1)
            keys[slot], records[slot], slots[key] = key, self._records[old], slot
        self._keys, self._records, self._slots = keys, records, slots

    def _show(self, arenas: Arenas) -> None:
        """The layout written anew when any shared array was replaced since the last."""
        shown = (arenas.counts, self._keys, self._records, self._catalogues,
                 *(a for arena in arenas.by_width for a in arena.mapped()))
        if len(shown) == len(self._shown) and all(a is b for a, b in zip(shown, self._shown)):
            return
        describe = self._segments.describe
        self.layout = Layout(int(self._header[GENERATION]) + 1, describe(self._control),
                             describe(arenas.counts),
                             tuple(tuple(describe(a) for a in arena.mapped())
                                   for arena in arenas.by_width),
                             describe(self._keys), describe(self._records),
                             describe(self._catalogues))
        self._header[GENERATION] = self.layout.generation
        self._shown = shown
