"""How a snapshot's state is pickled and read back (snapshots.py says what it holds and when):
so that a restored model takes no more memory than one loaded row by row.

The stream: a header (positions, the arenas with their days, which arena holds each index
width, how many batches follow), then the hotels in batches of BATCH_HOTELS, each batch a
pickle of its own holding its grids and the partners' codes that find them. Each batch is
unpickled with a memo of its own, which is dropped when the batch is done: one memo for the
whole snapshot kept every temporary the unpickler made (a tuple of fields per offer, a state
dict per grid) until the end, and their freed blocks were left as holes among the model's
objects (52 MB at 10,000 hotels, 2026-11-29).

What batches still share, they share by reference (persistent ids), never by copy: the arenas
(by their place in the header), and equal ints, strings and frozensets (codes, currencies,
nationality sets), which the reader turns into one object each, as the loader's `shared` does.

Arrays: the arenas' large ones are read as they were written, with no copy; the small ones (a
mapping's rows, a grid's room types) are rebuilt owning their data. Read the way numpy pickles
them, each small array kept the pickle's bytes alive behind a memoryview and its buffer."""

from __future__ import annotations

import pickle
from collections import defaultdict
from typing import BinaryIO

import numpy as np

from connectivity.availability.arena import Arena

BATCH_HOTELS = 200
OWNED_ARRAY_BYTES = 64 * 1024   # arrays up to this size are rebuilt owning their data
_BY_VALUE = (int, str, frozenset)


def _owned_array(data: bytes, dtype: np.dtype, shape: tuple) -> np.ndarray:
    return np.frombuffer(data, dtype).reshape(shape).copy()


class _Pickler(pickle.Pickler):
    """In a batch, pickles each arena as its place in the header; everywhere, equal ints,
    strings and frozensets as one value (_Unpickler), and small arrays by their bytes."""

    def __init__(self, file, places: dict[int, int] | None = None):
        super().__init__(file, protocol=5)
        self._places = places

    def reducer_override(self, obj):
        if type(obj) is np.ndarray and obj.nbytes <= OWNED_ARRAY_BYTES \
                and not obj.dtype.hasobject:
            return _owned_array, (obj.tobytes(), obj.dtype, obj.shape)
        return NotImplemented

    def persistent_id(self, obj):
        kind = type(obj)
        if kind is Arena and self._places is not None:
            return ("arena", self._places[id(obj)])
        # Pickle memoizes no int, and each batch has its memo: equal values would otherwise
        # come back as one object per reference (ints) or per batch (strings, frozensets).
        if kind in _BY_VALUE and not (kind is int and -5 <= obj <= 256):
            return obj
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, values: dict, arenas: list[Arena] | None = None):
        super().__init__(file)
        self._values, self._arenas = values, arenas

    def persistent_load(self, pid):
        kind = type(pid)
        if kind in _BY_VALUE:
            return self._values.setdefault(pid, pid)
        if kind is tuple and self._arenas is not None and pid[0] == "arena":
            return self._arenas[pid[1]]
        raise pickle.UnpicklingError(f"a snapshot refers to an unknown {kind.__name__}")


def dump_state(file: BinaryIO, state: dict, frozen: dict[int, Arena]) -> None:
    """state: positions, ahead, by_width (live arenas), grids (id -> PropertyGrid) and codes
    ((partner, environment) -> code -> Held); frozen: the id of every live arena they refer to
    -> its frozen copy, which the header holds in its place."""
    places = {live: at for at, live in enumerate(frozen)}
    found = defaultdict(list)   # hotel -> (partner key, code, Held) of each code finding it
    for key, held in state["codes"].items():
        for code, h in held.items():
            found[h.grid.property_id].append((key, code, h))
    hotels = sorted({*state["grids"], *found})
    batches = [hotels[at:at + BATCH_HOTELS] for at in range(0, len(hotels), BATCH_HOTELS)]
    _Pickler(file).dump({
        "positions": state["positions"], "ahead": state["ahead"],
        "arenas": list(frozen.values()),
        "by_width": [places[id(a)] for a in state["by_width"]], "batches": len(batches)})
    grids = state["grids"]
    for batch in batches:
        _Pickler(file, places).dump((
            [(pid, grids[pid]) for pid in batch if pid in grids],
            [entry for pid in batch for entry in found.get(pid, ())]))


def load_state(stream: BinaryIO) -> dict:
    """dump_state's state, its arenas' arrays sized to what they hold (Arena.fit)."""
    values: dict = {}
    header = _Unpickler(stream, values).load()
    arenas = header["arenas"]
    for arena in arenas:
        arena.fit()
    grids, codes = {}, {}
    for _ in range(header["batches"]):
        held_grids, held_codes = _Unpickler(stream, values, arenas).load()
        grids.update(held_grids)
        for key, code, held in held_codes:
            codes.setdefault(key, {})[code] = held
    return {"positions": header["positions"], "ahead": header["ahead"],
            "by_width": [arenas[at] for at in header["by_width"]], "grids": grids,
            "codes": codes}
