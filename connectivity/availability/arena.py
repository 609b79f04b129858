"""Where search's read model keeps the days of many properties, compactly and in one place.

Memory: real ARI repeats itself (seasons, weekdays, the same restrictions all year), so each row
(an offer, or a room type) keeps a palette of its distinct values and, per day, only the
position of that day's value in it: one byte a day while every row of the property has at most
256 distinct values, else two (or four). The values stay whole integers (money in millionths),
so nothing is rounded: the palette holds the very numbers the dense layout held.

CPU: every property of one index width lives in the same arrays (an Arena), so search gathers
the days of 200 hotels' offers with a few vectorised takes instead of slicing and concatenating
per hotel.

Columns (each a palette per row and an index per row and day):
  money  per offer row: rate, single, extra adult, extra child (NONE: never sent)
  plan   per offer row: the plan's packed restrictions (grid.pack_restrictions)
  room   per room-type row: available rooms, the room type's packed restrictions, and the
         rooms it sells that day (0 when closed: a function of the other two, kept so that
         search reads one value a night rather than two)

Updates: a property's days are rewritten in place when their new values fit the room left in
its palettes (`patch`); otherwise the property moves to a new slot (in the arena its widest
palette needs) and the old slot is garbage until `compact` copies the live slots into new
arrays. Readers never lock: the caller (read_model.SearchModel) counts writes and evaluates
again when one overlapped (a seqlock); arrays are only ever replaced by larger copies, so a
reader's rows stay valid in whatever arrays it picked up, and are never written again once
replaced.

Readers in other processes (the web workers, read_model/mapped.py) map the arrays a stay's
days are read from (each column's index, base and palette): the model host makes those through
`share_with` (read_model/shared_arrays.py). Otherwise they are plain numpy ones."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class Allocation:
    """How the arrays other processes may map are made: `zeros(shape, dtype)`, and `owns(array)`,
    whether an array is one of them (a snapshot's arrays, unpickled, are not)."""
    zeros: Callable = staticmethod(np.zeros)

    @staticmethod
    def owns(array: np.ndarray) -> bool:
        return True


_allocation = Allocation()


def share_with(allocation: Allocation) -> None:
    """Make the mapped arrays with `allocation` from now on (the model host, at its start)."""
    global _allocation
    _allocation = allocation


def mapped_zeros(shape, dtype) -> np.ndarray:
    return _allocation.zeros(shape, dtype)

WIDTHS = (np.uint8, np.uint16, np.uint32)
GROWTH = 1.25  # arrays grow by a quarter: what is allocated stays near what is held
COMPACT_MIN_ROWS = 1024  # below so many garbage rows an arena is never compacted


def _exclusive_cumsum(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts), np.int64)
    if len(counts) > 1:
        np.cumsum(counts[:-1], out=out[1:])
    return out


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """np.unique(keys, axis=0, return_index=True, return_inverse=True), twenty times as fast
    on these shapes: the rows sorted (stably, so each group's first is its earliest row)."""
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    starts = np.empty(len(keys), bool)
    starts[:1] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=starts[1:])
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], order[starts], inverse


def palettes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """values [rows, days, k] -> (each row's distinct values one after the other [m, k], how
    many each row has [rows], each (row, day)'s position in its row's palette [rows, days])."""
    rows, days, k = values.shape
    if not rows:
        return (np.zeros((0, k), np.int64), np.zeros(0, np.int64),
                np.zeros((0, days), np.int64))
    row_of = np.repeat(np.arange(rows, dtype=np.int64), days)
    keys = np.concatenate([row_of[:, None], values.reshape(-1, k).astype(np.int64)], axis=1)
    distinct, _, inverse = _distinct(keys)
    counts = np.bincount(distinct[:, 0], minlength=rows).astype(np.int64)
    index = inverse - _exclusive_cumsum(counts)[row_of]
    return distinct[:, 1:], counts, index.reshape(rows, days)


def headroom(counts: np.ndarray, limit: int) -> np.ndarray:
    """Palette room per row: what it uses and an eighth more (at least 2), for values that
    later updates add without moving the property."""
    return np.minimum(limit, counts + np.maximum(counts // 8, 2))


class Column:
    """Values of k whole numbers per (row, day): per row a palette, per (day, row) an index.
    Day-major, so that a stay's nights of many rows are a few contiguous runs to gather from
    and reduce along (numpy reduces a short last axis row by row, ten times slower)."""

    def __init__(self, window: int, dtype, k: int, values=np.int64):
        self.k = k
        # index, base and palette: what a stay's days are read from (`mapped`, above).
        self.index = mapped_zeros((window, 0), dtype)
        self.base = mapped_zeros(0, np.int64)    # per row: where its palette starts
        self.size = np.zeros(0, np.int32)    # per row: entries used
        self.room = np.zeros(0, np.int32)    # per row: entries it may use
        self.palette = mapped_zeros((k, 0), values)  # [component, entry]
        self.palette_used = 0

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.index, self.base, self.size, self.room, self.palette))

    def mapped(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The arrays a stay's days are read from (grid.stay_days_of)."""
        return self.palette, self.index, self.base

    def grow_rows(self, capacity: int) -> None:
        index = mapped_zeros((self.index.shape[0], capacity), self.index.dtype)
        index[:, :self.index.shape[1]] = self.index
        self.index = index
        self.base = _grown(self.base, capacity, mapped_zeros)
        self.size, self.room = (_grown(a, capacity) for a in (self.size, self.room))

    def take_palette(self, entries: int) -> int:
        at = self.palette_used
        if at + entries > self.palette.shape[1]:
            capacity = max(at + entries, int(self.palette.shape[1] * GROWTH), 256)
            grown = mapped_zeros((self.k, capacity), self.palette.dtype)
            grown[:, :at] = self.palette[:, :at]
            self.palette = grown
        self.palette_used = at + entries
        return at

    def put(self, row0: int, encoded, limit: int) -> None:
        """Write a property's rows at row0 from palettes(values), with room to grow."""
        entries, counts, index = encoded
        rows = len(counts)
        caps = headroom(counts, limit)
        bases = self.take_palette(int(caps.sum())) + _exclusive_cumsum(caps)
        self.index[:, row0:row0 + rows] = index.T
        self.base[row0:row0 + rows] = bases
        self.size[row0:row0 + rows] = counts
        self.room[row0:row0 + rows] = caps
        within = np.arange(len(entries)) - np.repeat(_exclusive_cumsum(counts), counts)
        self.palette[:, np.repeat(bases, counts) + within] = entries.T

    def values(self, row0: int, rows: int) -> np.ndarray:
        """[rows, days, k] of the rows, decoded."""
        at = self.base[row0:row0 + rows, None] + self.index[:, row0:row0 + rows].T
        return np.moveaxis(self.palette[:, at], 0, -1)

    def held(self, row0: int, rows: int) -> np.ndarray:
        """Positions of the rows' palette entries in use, row after row."""
        sizes, bases = self.size[row0:row0 + rows], self.base[row0:row0 + rows]
        return np.repeat(bases, sizes) + (np.arange(int(sizes.sum()))
                                          - np.repeat(_exclusive_cumsum(sizes), sizes))

    def prepare_patch(self, row0: int, rows: int, first: int, values: np.ndarray):
        """A function writing values [rows, span, k] into the days from `first`, or None when
        a row's palette has no room for its new values (nothing is written then)."""
        span, k = values.shape[1], self.k
        sizes, bases = self.size[row0:row0 + rows], self.base[row0:row0 + rows]
        starts = _exclusive_cumsum(sizes)
        old = np.concatenate([np.repeat(np.arange(rows, dtype=np.int64), sizes)[:, None],
                              self.palette[:, self.held(row0, rows)].T], axis=1)
        new = np.concatenate([np.repeat(np.arange(rows, dtype=np.int64), span)[:, None],
                              values.reshape(-1, k).astype(np.int64)], axis=1)
        distinct, first_seen, inverse = _distinct(np.concatenate([old, new]))
        row = distinct[:, 0]
        added = first_seen >= len(old)       # a value the row's palette lacks
        added_per_row = np.bincount(row[added], minlength=rows)
        grown = sizes + added_per_row
        if (grown > self.room[row0:row0 + rows]).any():
            return None
        # Held values keep their position; added ones follow the row's last, in order.
        rank = np.cumsum(added) - 1 - _exclusive_cumsum(added_per_row)[row]
        code = np.where(added, sizes[row] + rank, first_seen - starts[row])
        index = code[inverse[len(old):]].reshape(rows, span)
        at = bases[row[added]] + code[added]
        entries = distinct[added, 1:].T

        def write():
            self.palette[:, at] = entries
            self.size[row0:row0 + rows] = grown
            self.index[first:first + span, row0:row0 + rows] = index.T
        return write

    def fit(self, rows: int) -> None:
        """Arrays sized to the rows used and the palette entries taken: what is held, without
        the room left to grow into (take_rows and take_palette grow them again as needed)."""
        self.index = _fitted(self.index, rows, axis=1, zeros=mapped_zeros)
        self.base = _fitted(self.base, rows, zeros=mapped_zeros)
        self.size, self.room = (_fitted(a, rows) for a in (self.size, self.room))
        self.palette = _fitted(self.palette, self.palette_used, axis=1, zeros=mapped_zeros)

    def copy_rows(self, source: Column, src_row: int, row0: int, rows: int) -> None:
        """Copy rows of another arena's column (compaction), their palettes with their room."""
        if not rows:
            return
        bases = source.base[src_row:src_row + rows]
        caps = source.room[src_row:src_row + rows]
        start, end = int(bases[0]), int(bases[-1] + caps[-1])  # a property's are contiguous
        at = self.take_palette(end - start)
        self.palette[:, at:at + end - start] = source.palette[:, start:end]
        self.index[:, row0:row0 + rows] = source.index[:, src_row:src_row + rows]
        self.base[row0:row0 + rows] = bases - start + at
        self.size[row0:row0 + rows] = source.size[src_row:src_row + rows]
        self.room[row0:row0 + rows] = caps


def _fitted(array: np.ndarray, used: int, axis: int = 0, zeros=None) -> np.ndarray:
    """The array cut to `used` along the axis, as a copy of its own (a slice, even a contiguous
    one, would keep the whole array alive); the array itself when it is no longer, and, for a
    mapped array (`zeros`: mapped_zeros), already one."""
    if array.shape[axis] == used and (zeros is None or _allocation.owns(array)):
        return array
    kept = array[:used] if axis == 0 else array[:, :used]
    if zeros is None:
        return kept.copy()
    fitted = zeros(kept.shape, array.dtype)
    fitted[...] = kept
    return fitted


def _grown(array: np.ndarray, capacity: int, zeros=np.zeros) -> np.ndarray:
    grown = zeros((capacity, *array.shape[1:]), array.dtype)
    grown[:len(array)] = array
    return grown


class Arena:
    """The columns of the properties whose palettes fit one index width."""

    def __init__(self, window: int, dtype):
        self.window = window
        self.dtype = np.dtype(dtype)
        self.limit = int(np.iinfo(self.dtype).max) + 1
        self.money = Column(window, dtype, 4)
        # Restrictions pack into 21 bits and rooms are PostgreSQL integers: int32 holds them.
        self.plan = Column(window, dtype, 1, np.int32)
        self.room = Column(window, dtype, 3, np.int32)
        self.room_of = np.zeros(0, np.int64)          # per offer row: its room type's row
        # Per offer row: every price its palette holds is a whole number of its plan's minor
        # units, so that no sum of them needs rounding (search skips it when all rows say so).
        self.whole_units = np.zeros(0, bool)
        self.statics = np.zeros((6, 0), np.int64)     # [grid.statics_of's, offer row]
        self.offer_rows = self.room_rows = 0          # used
        self.garbage_rows = 0                         # offer and room rows no longer used

    def nbytes(self) -> int:
        return (self.money.nbytes() + self.plan.nbytes() + self.room.nbytes()
                + self.room_of.nbytes + self.statics.nbytes)

    def mapped(self) -> tuple[np.ndarray, ...]:
        """Every array a mapped reader reads: each column's (`Column.mapped`)."""
        return (*self.money.mapped(), *self.plan.mapped(), *self.room.mapped())

    def fit(self) -> None:
        """Every array sized to what the arena holds (a snapshot's arenas once read: the copy
        it was taken from had room to grow, a quarter at most, which a restored model would
        otherwise hold empty until it grew into it), the mapped ones made mappable."""
        self.money.fit(self.offer_rows)
        self.plan.fit(self.offer_rows)
        self.room.fit(self.room_rows)
        self.room_of, self.whole_units = (_fitted(a, self.offer_rows)
                                          for a in (self.room_of, self.whole_units))
        self.statics = _fitted(self.statics, self.offer_rows, axis=1)

    def take_rows(self, offers: int, rooms: int) -> tuple[int, int]:
        offer_row, room_row = self.offer_rows, self.room_rows
        if offer_row + offers > len(self.room_of):
            capacity = max(offer_row + offers, int(len(self.room_of) * GROWTH), 64)
            self.money.grow_rows(capacity)
            self.plan.grow_rows(capacity)
            self.room_of = _grown(self.room_of, capacity)
            self.whole_units = _grown(self.whole_units, capacity)
            statics = np.zeros((6, capacity), np.int64)
            statics[:, :self.statics.shape[1]] = self.statics
            self.statics = statics
        if room_row + rooms > len(self.room.base):
            self.room.grow_rows(max(room_row + rooms, int(len(self.room.base) * GROWTH), 64))
        self.offer_rows, self.room_rows = offer_row + offers, room_row + rooms
        return offer_row, room_row

    def put(self, money, plan, room, room_of: np.ndarray, statics: np.ndarray):
        """A new slot for a property from its encoded columns: (offer row, room row)."""
        offer_row, room_row = self.take_rows(len(money[1]), len(room[1]))
        self.money.put(offer_row, money, self.limit)
        self.plan.put(offer_row, plan, self.limit)
        self.room.put(room_row, room, self.limit)
        offers = len(money[1])
        self.room_of[offer_row:offer_row + offers] = room_of + room_row
        self.statics[:, offer_row:offer_row + offers] = statics.T
        self.check_units(offer_row, offers)
        return offer_row, room_row

    def check_units(self, offer_row: int, offers: int) -> None:
        """Recompute whole_units of the rows from their palettes (after a put or a patch)."""
        if not offers:
            return
        sizes = self.money.size[offer_row:offer_row + offers]
        held = self.money.held(offer_row, offers)
        unit = np.repeat(self.statics[4, offer_row:offer_row + offers], sizes)
        prices = self.money.palette[:, held]
        # NONE (and INEXACT) are never summed: an offer priced by them is not sellable.
        whole = ((prices < 0) | (prices % unit == 0)).all(0)
        per_row = np.ones(offers, bool)
        used = sizes > 0
        per_row[used] = np.logical_and.reduceat(whole, _exclusive_cumsum(sizes)[used])
        self.whole_units[offer_row:offer_row + offers] = per_row

    def copy_slot(self, source: Arena, offer_row: int, offers: int, room_row: int,
                  rooms: int) -> tuple[int, int]:
        to_offer, to_room = self.take_rows(offers, rooms)
        self.money.copy_rows(source.money, offer_row, to_offer, offers)
        self.plan.copy_rows(source.plan, offer_row, to_offer, offers)
        self.room.copy_rows(source.room, room_row, to_room, rooms)
        self.room_of[to_offer:to_offer + offers] = (
            source.room_of[offer_row:offer_row + offers] - room_row + to_room)
        self.statics[:, to_offer:to_offer + offers] = source.statics[:, offer_row:offer_row + offers]
        self.whole_units[to_offer:to_offer + offers] = (
            source.whole_units[offer_row:offer_row + offers])
        return to_offer, to_room

    def worth_compacting(self) -> bool:
        # A third of the rows garbage: copying the live ones costs less than keeping them.
        used = self.offer_rows + self.room_rows
        return self.garbage_rows > max(used // 3, COMPACT_MIN_ROWS)


def width_for(*counts: np.ndarray) -> int:
    """The narrowest index width (position in WIDTHS) the largest palette fits."""
    largest = max((int(c.max()) for c in counts if len(c)), default=0)
    for at, dtype in enumerate(WIDTHS):
        if largest <= int(np.iinfo(dtype).max) + 1:
            return at
    raise ValueError("a row with more distinct values than days")  # never: days < 2^32
