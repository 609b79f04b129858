"""The read model itself: its state, and the four jobs that share it (answering.py,
catching_up.py, loading.py, snapshots.py)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import psycopg

from connectivity.availability.feed_cursor import Position
from connectivity.availability.grid import Arenas, PropertyGrid
from connectivity.availability.read_model.held import Held
from connectivity.availability.read_model.answering import Answering
from connectivity.availability.read_model.catching_up import CatchingUp
from connectivity.availability.read_model.directory import Directory
from connectivity.availability.read_model.loading import Loading
from connectivity.availability.read_model.snapshot_store import SnapshotStore
from connectivity.availability.read_model.snapshots import Snapshotting
from connectivity.store.read_fence import FenceReading

WINDOW_DAYS = 400          # loaded from yesterday on: stays booked up to ~13 months ahead


class SearchModel(Answering, CatchingUp, Loading, Snapshotting):
    def __init__(self, reads, *, window_days: int = WINDOW_DAYS,
                 background: bool = True, refresh_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic, max_properties: int = 0,
                 connect: Callable[[], psycopg.Connection] | None = None,
                 load_connections: int = 1,
                 current_fence: Callable[[bytes | None], FenceReading] | None = None,
                 snapshots: SnapshotStore | None = None, gauged: bool = True,
                 directory: Directory | None = None):
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
        # Loading (loading.py): batches read side by side over this many connections, outside
        # the lock; the properties being read, each with whether a catch-up saw it change
        # meanwhile; the holdings' generation, which dropping everything moves on.
        self._load_connections = load_connections
        self._loading = threading.Lock()
        self._in_flight: dict[int, bool] = {}
        self._generation = 0
        # A search within this long of the last catch-up answers without one: staleness is at
        # most this plus one catch-up.
        self._refresh_seconds = refresh_seconds
        self._clock = clock
        # At most this many properties held (0: no bound); the rest are searched by search.sql.
        self._max_properties = max_properties
        self._refreshed = self._horizons_read = float("-inf")
        # The read fence's token the last catch-up began under (None: none, or unknown), and
        # how a catch-up reads the token as it is when it begins, with the properties named
        # since that one (ReadFence.read_since; None: it records the token of the request that
        # began it, and reads every property's changes).
        self._fence: bytes | None = None
        self._current_fence = current_fence
        # The last reading a request that reads only the hotels it holds took (catching_up.py
        # `_untouched`), and the token it was read since: (since, reading), or None.
        self._touch_reading: tuple[bytes, FenceReading] | None = None
        # A request's catch-up runs on a connection of the model's own (`_catch_up_alone`).
        self._connect = connect
        self._conn: psycopg.Connection | None = None
        self._pruning_checked = float("-inf")
        # Where its snapshots are kept (None: none are written or read), and the hotels whose
        # days were rewritten in place while one is being written (None: none is).
        self._snapshots = snapshots
        self._torn: set[int] | None = None
        # Whether it sets the held gauges (metrics.py): a twin does not, the model it is made
        # for answers from what it holds.
        self._gauged = gauged
        # Where the model host's workers find what it holds (directory.py; None elsewhere).
        self._directory = directory
        if directory is not None:
            directory.lay_out(self._arenas)
        # What an empty twin is made with (`twin`).
        self._made_with = dict(
            window_days=window_days, background=background, refresh_seconds=refresh_seconds,
            clock=clock, max_properties=max_properties, connect=connect,
            load_connections=load_connections, current_fence=current_fence)

    def twin(self) -> SearchModel:
        """An empty model made as this one, that writes and reads no snapshot: a restored
        snapshot catches up in it before this model adopts it (snapshots.py)."""
        return SearchModel(self._reads, **self._made_with, gauged=False)
