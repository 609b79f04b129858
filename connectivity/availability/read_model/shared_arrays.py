"""The arrays the model host shares with the web workers on its machine: each one a memory
segment of its own (`os.memfd_create`) that the host maps read-write and a worker maps
read-only, its descriptor passed over the host's socket (channel.py, SCM_RIGHTS).

Why memfd and not files in /dev/shm or on disk: a container's /dev/shm is often 64 MiB
(Docker's default) where the arrays of 100,000 hotels are gigabytes, and a file on disk would
be written back as the host patches it. A segment lives while a process maps it or holds its
descriptor: the host closes its descriptor when the array it made is collected (replaced by a
larger one, compacted away), and a worker's mapping keeps the pages it still reads until it
drops them (`Mapped.keep`).

Only what a worker reads is made here: the arrays a stay's days are read from (arena.py
`share_with`: each column's index, base and palette, and the arenas' seqlock count) and the
directory of where each hotel lies (directory.py)."""

from __future__ import annotations

import itertools
import mmap
import os
import threading
import weakref

import numpy as np

from connectivity.availability.arena import Allocation

# (segment, dtype, shape): how a worker finds and reads one array.
Descriptor = tuple[int, str, tuple[int, ...]]


class Segments(Allocation):
    """The host's side: arrays made in segments, and the descriptors of the live ones."""

    def __init__(self):
        self._lock = threading.Lock()  # collections run finalizers on any thread
        self._next = itertools.count(1)
        self._fds: dict[int, tuple[int, int]] = {}      # segment -> (descriptor, bytes)
        self._of: dict[int, int] = {}                   # id(array) -> segment

    def zeros(self, shape, dtype) -> np.ndarray:
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        count = int(np.prod(shape, dtype=np.int64))
        size = max(count * dtype.itemsize, 1)  # mmap maps no empty file
        fd = os.memfd_create("pcs-read-model", os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, size)
            buffer = mmap.mmap(fd, size)
        except OSError:
            os.close(fd)
            raise
        array = np.frombuffer(buffer, dtype, count).reshape(shape)  # zeros: a new segment's
        segment = next(self._next)
        with self._lock:
            self._fds[segment] = (fd, size)
            self._of[id(array)] = segment
        weakref.finalize(array, self._release, segment, id(array))
        return array

    def owns(self, array: np.ndarray) -> bool:
        return id(array) in self._of

    def describe(self, array: np.ndarray) -> Descriptor | None:
        """How a worker reads the array (None: not one of the shared ones)."""
        segment = self._of.get(id(array))
        return None if segment is None else (segment, array.dtype.str, array.shape)

    def descriptors(self, segments: list[int]) -> tuple[list[int], list[int], list[int]]:
        """Of the segments asked, those still live: their ids, sizes and descriptors (the
        host's own, to be sent: the worker receives copies)."""
        found, sizes, fds = [], [], []
        with self._lock:
            for segment in segments:
                if segment in self._fds:
                    fd, size = self._fds[segment]
                    found.append(segment)
                    sizes.append(size)
                    fds.append(fd)
        return found, sizes, fds

    def _release(self, segment: int, array_id: int) -> None:
        with self._lock:
            fd, _ = self._fds.pop(segment)
            if self._of.get(array_id) == segment:
                del self._of[array_id]
        os.close(fd)


class Mapped:
    """A worker's side: the segments it mapped, read-only."""

    def __init__(self):
        self._lock = threading.Lock()
        self._buffers: dict[int, mmap.mmap] = {}

    def add(self, segments: list[int], sizes: list[int], fds: list[int]) -> None:
        """Map the segments the host sent (their descriptors closed once mapped)."""
        try:
            buffers = {segment: mmap.mmap(fd, size, prot=mmap.PROT_READ)
                       for segment, size, fd in zip(segments, sizes, fds)}
        finally:
            for fd in fds:
                os.close(fd)
        with self._lock:
            self._buffers.update(buffers)

    def array(self, descriptor: Descriptor) -> np.ndarray | None:
        """The array, read-only (None: its segment is not mapped here)."""
        segment, dtype, shape = descriptor
        buffer = self._buffers.get(segment)
        if buffer is None:
            return None
        count = int(np.prod(shape, dtype=np.int64))
        return np.frombuffer(buffer, np.dtype(dtype), count).reshape(shape)

    def keep(self, segments: set[int]) -> None:
        """Unmap every segment but these (the pages go once no process maps them): arrays
        already read from them stay valid, holding their buffer."""
        with self._lock:
            self._buffers = {s: b for s, b in self._buffers.items() if s in segments}

    def __len__(self) -> int:
        return len(self._buffers)
