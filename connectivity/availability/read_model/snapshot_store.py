"""Where the read model's snapshots are kept: in the database (migration 0040), as a pickle that
is compressed and signed while it is written, in chunks, all in one transaction. A reader gets
the chunks of the newest snapshot of its own format and checks their signature before anything
is unpickled (snapshots.py says what a snapshot holds and when one is written or read).

The signature's key is derived from SECRET_KEY, as the model host's socket key is: whoever can
write a row but does not know the key cannot make the host unpickle it. A rotated SECRET_KEY
makes every stored snapshot unreadable, and the next cold start loads row by row."""

from __future__ import annotations

import hashlib
import hmac
import io
import platform
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np

from connectivity.store.queries import queries

CHUNK_BYTES = 16 * 1024 * 1024   # compressed bytes a row (a bytea is read whole)
LEVEL = 1                        # zlib's fastest: the days compress about 9 to 1 even so
INFLATED_BYTES = 4 * 1024 * 1024 # decompressed at a time while a snapshot is read

# Every module whose classes or rules a snapshot's pickle holds: a deploy that changes any of
# them gives a new format, and the hosts it starts read no snapshot of the old code.
_AVAILABILITY = Path(__file__).resolve().parents[1]
_PICKLED = sorted([*(_AVAILABILITY / "read_model").glob("*.py"),
                   _AVAILABILITY / "grid.py", _AVAILABILITY / "arena.py",
                   _AVAILABILITY / "feed_cursor.py"])


def snapshot_format(window_days: int) -> str:
    digest = hashlib.sha256(f"{platform.python_version()} {np.__version__} "
                            f"{window_days}".encode())
    for path in _PICKLED:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


def snapshot_key(secret_key: str) -> bytes:
    return hmac.new(secret_key.encode(), b"pcs search model snapshot", hashlib.sha256).digest()


class SnapshotRefused(Exception):
    """A stored snapshot this host will not use (the model then loads row by row)."""


class Stored(NamedTuple):
    """A snapshot as read: its header, and a stream of its pickles once the signature held."""
    snapshot_id: int
    taken_at: object
    hotels: int
    bytes: int
    stream: BinaryIO


class _Sealing(io.RawIOBase):
    """What the pickler writes to: compressed, signed and stored a chunk at a time, so that
    neither the pickle nor the compressed snapshot is ever whole in memory."""

    def __init__(self, put: Callable[[int, bytes], None], key: bytes):
        self._put, self._mac = put, hmac.new(key, digestmod=hashlib.sha256)
        self._zip = zlib.compressobj(LEVEL)
        self._pending: list[bytes] = []
        self._size = 0
        self.chunks = self.stored = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._add(self._zip.compress(data))
        return memoryview(data).nbytes

    def _add(self, compressed: bytes, last: bool = False) -> None:
        if compressed:
            self._pending.append(compressed)
            self._size += len(compressed)
        while self._size >= CHUNK_BYTES or (last and self._size):
            joined = b"".join(self._pending)
            chunk, rest = joined[:CHUNK_BYTES], joined[CHUNK_BYTES:]
            self._mac.update(chunk)
            self._put(self.chunks, chunk)
            self.chunks, self.stored = self.chunks + 1, self.stored + len(chunk)
            self._pending, self._size = ([rest] if rest else []), len(rest)

    def seal(self) -> bytes:
        self._add(self._zip.flush(), last=True)
        return self._mac.digest()


class _Inflating(io.RawIOBase):
    """The chunks decompressed as the unpickler reads them, a few MiB at a time: a chunk
    inflates about ninefold, and whole it would be a transient of over 100 MiB that glibc may
    keep in the heap after it is freed."""

    def __init__(self, chunks: Iterable[bytes]):
        self._chunks, self._zip = iter(chunks), zlib.decompressobj()
        self._compressed = b""
        self._inflated = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, into) -> int:
        while not self._inflated:
            if not self._compressed:
                self._compressed = next(self._chunks, b"")
                if not self._compressed:
                    self._inflated = memoryview(self._zip.flush())
                    if not self._inflated:
                        return 0
                    break
            self._inflated = memoryview(self._zip.decompress(self._compressed, INFLATED_BYTES))
            self._compressed = self._zip.unconsumed_tail
        view = memoryview(into).cast("B")
        taken = min(len(view), len(self._inflated))
        view[:taken] = self._inflated[:taken]
        self._inflated = self._inflated[taken:]
        return taken


class SnapshotStore:
    """The snapshots of one database (the primary: a snapshot's position is the primary's)."""

    def __init__(self, db, secret_key: str, window_days: int):
        self._db = db
        self._key = snapshot_key(secret_key)
        self.format = snapshot_format(window_days)

    def due(self, older_than_seconds: float) -> bool:
        with self._db.connection() as conn:
            return queries().availability.snapshot_due(
                conn, format=self.format, older_than_seconds=older_than_seconds)

    def write(self, hotels: int, dump: Callable[[BinaryIO], bool]) -> int | None:
        """Store what `dump` writes, in one transaction; rolled back, and None, when it returns
        False (the model dropped what it was writing). The compressed bytes stored."""
        q = queries().availability
        with self._db.connection() as conn:
            snapshot_id = q.begin_snapshot(conn, format=self.format, hotels=hotels)
            sealing = _Sealing(lambda n, data: q.put_snapshot_chunk(
                conn, snapshot_id=snapshot_id, chunk=n, data=data), self._key)
            if not dump(sealing):
                conn.rollback()
                return None
            signature = sealing.seal()
            q.seal_snapshot(conn, snapshot_id=snapshot_id, chunks=sealing.chunks,
                            bytes=sealing.stored, signature=signature)
            return sealing.stored

    @contextmanager
    def reading(self) -> Iterator[Stored | None]:
        """The newest snapshot of this format, signed with this key, whose stream is read inside
        the block; None when there is none. Its chunks are read twice in one transaction (so
        the same rows, even when a newer snapshot replaces it meanwhile): once to check their
        signature, then as the unpickler reads them. One chunk at a time is held: at 100,000
        hotels a snapshot is about 700 MiB compressed, and read whole it stayed in memory
        beside the copy being unpickled."""
        q = queries().availability
        with self._db.snapshot() as conn:
            header = q.newest_snapshot(conn, format=self.format)
            if header is None:
                yield None
                return
            snapshot_id = header["snapshot_id"]

            def chunks() -> Iterator[bytes]:
                for n in range(header["chunks"]):
                    row = q.snapshot_chunk(conn, snapshot_id=snapshot_id, chunk=n)
                    if row is None:
                        raise SnapshotRefused(f"snapshot {snapshot_id}: chunk {n} is missing")
                    yield bytes(row["data"])
            mac = hmac.new(self._key, digestmod=hashlib.sha256)
            for chunk in chunks():
                mac.update(chunk)
            if not hmac.compare_digest(mac.digest(), bytes(header["signature"])):
                raise SnapshotRefused(f"snapshot {snapshot_id}: its chunks do not match its "
                                      "signature (another SECRET_KEY, or altered)")
            yield Stored(snapshot_id, header["taken_at"], header["hotels"], header["bytes"],
                         io.BufferedReader(_Inflating(chunks()), 1 << 20))
