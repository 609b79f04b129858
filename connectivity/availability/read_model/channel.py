"""The model host's wire (host.py, remote.py): each message a pickle behind its length, over the
Unix socket that multiprocessing.connection opened and authenticated (its HMAC challenge: no
byte is unpickled before the client proved it knows the key).

Why not Connection.send and recv after the challenge: Connection writes a message of over 16 KiB
(a rates answer of 14 nights is 22 KiB) as its length, then its body, two writes that wake the
reader twice, and reads each message in two calls (length, body) after a poll that builds a
selector each time. Here a message is one sendmsg, and is read in as few recv calls as its bytes
arrive in (one, nearly always). What bench.model_host_cpu measured: docs/benchmarks.md.

A message may carry file descriptors (the shared arrays' segments, shared_arrays.py): sent with
its first bytes (SCM_RIGHTS), received by `recv_with_fds`. Only an answer the worker waits for
carries any, so nothing it reads before holds a part of that message."""

from __future__ import annotations

import array
import os
import pickle
import socket
import struct
from dataclasses import dataclass
from multiprocessing.connection import Connection

LENGTH = struct.Struct("!I")
CHUNK = 1 << 16  # read at once: a search's answer of 200 hotels is about 9 KiB
MAX_FDS = 64     # descriptors one message may carry (a hotel's arrays are 11)


@dataclass(frozen=True)
class WithFds:
    """An answer and the descriptors to send with it."""
    value: object
    fds: list[int]


class Channel:
    """One end of an authenticated connection. `timeout`: seconds any one send or receive may
    wait (TimeoutError past it); None waits as long as it takes."""

    def __init__(self, conn: Connection, timeout: float | None = None):
        # The socket takes a copy of the descriptor: the Connection is closed, never read again.
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM,
                                     fileno=os.dup(conn.fileno()))
        conn.close()
        self._socket.settimeout(timeout)
        self._received = bytearray()  # what arrived past the last message read

    def send(self, message, fds: list[int] = ()) -> None:
        body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        parts = [LENGTH.pack(len(body)), body]
        ancillary = ([(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds
                     else [])
        sent = self._socket.sendmsg(parts, ancillary)
        if sent < LENGTH.size + len(body):  # the socket's buffer took part of it: the rest
            self._socket.sendall(memoryview(b"".join(parts))[sent:])

    def recv(self):
        """The next message; EOFError when the other end closed the connection."""
        self._fill(LENGTH.size)
        (size,) = LENGTH.unpack_from(self._received)
        end = LENGTH.size + size
        self._fill(end)
        message = pickle.loads(self._received[LENGTH.size:end])
        del self._received[:end]
        return message

    def recv_with_fds(self) -> tuple[object, list[int]]:
        """The next message and the descriptors it carried (the caller closes them)."""
        fds: list[int] = []
        try:
            self._fill(LENGTH.size, fds)
            (size,) = LENGTH.unpack_from(self._received)
            end = LENGTH.size + size
            self._fill(end, fds)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        message = pickle.loads(self._received[LENGTH.size:end])
        del self._received[:end]
        return message, fds

    def _fill(self, size: int, fds: list[int] | None = None) -> None:
        while len(self._received) < size:
            wanted = max(CHUNK, size - len(self._received))
            if fds is None:
                chunk = self._socket.recv(wanted)
            else:
                chunk, received, _, _ = socket.recv_fds(self._socket, wanted, MAX_FDS)
                fds.extend(received)
            if not chunk:
                raise EOFError("the connection was closed")
            self._received += chunk

    def close(self) -> None:
        self._socket.close()

    def __enter__(self) -> Channel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
