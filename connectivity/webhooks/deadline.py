"""One deadline for a whole delivery attempt (contract 12.3: 10 s from connecting to the last
byte of the answer, however slowly the receiver sends it).

httpx's and httpcore's timeouts bound each socket operation, not the request: a receiver that
sends one byte a second never lets a 10 s read timeout fire (httpx issue 1450; the read timeout
is documented as the time between two reads). So the sender gives httpcore this network backend,
through httpcore's public interface for custom backends (`NetworkBackend`, `NetworkStream`):
every operation on the connection is given the time left until the attempt's deadline, and none
starts after it. Python's socket and TLS calls treat their timeout as a deadline for the whole
call (a `sendall` of a large body to a receiver that reads slowly included; the socket docs:
"the maximum total duration"), so the attempt as a whole cannot outlive its deadline by more
than the CPU time between two calls."""

from __future__ import annotations

import select
import socket
import ssl
import time
import typing

import httpcore


class Deadline:
    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0

    def bound(self, timeout: float | None, timed_out: type[Exception]) -> float:
        """The time an operation may take: its own timeout, cut to the time left; past the
        deadline, no operation starts (a zero timeout would make the socket non-blocking)."""
        left = self.left()
        if left <= 0:
            raise timed_out("the attempt's deadline has passed")
        return left if timeout is None else min(timeout, left)


class DeadlineBackend(httpcore.NetworkBackend):
    """TCP connections whose every operation ends by the deadline."""

    def __init__(self, deadline: Deadline):
        self.deadline = deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: typing.Iterable | None = None) -> httpcore.NetworkStream:
        limit = self.deadline.bound(timeout, httpcore.ConnectTimeout)
        source = None if local_address is None else (local_address, 0)
        try:
            sock = socket.create_connection((host, port), limit, source_address=source)
            for option in socket_options or ():
                sock.setsockopt(*option)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except socket.timeout as exc:
            raise httpcore.ConnectTimeout(str(exc) or "connecting timed out") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return DeadlineStream(sock, self.deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: typing.Iterable | None = None
                            ) -> httpcore.NetworkStream:
        raise httpcore.UnsupportedProtocol("webhooks are sent over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, self.deadline.left())))


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, sock: socket.socket, deadline: Deadline):
        self._sock = sock
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        limit = self._deadline.bound(timeout, httpcore.ReadTimeout)
        try:
            self._sock.settimeout(limit)
            return self._sock.recv(max_bytes)
        except socket.timeout as exc:
            raise httpcore.ReadTimeout(str(exc) or "reading timed out") from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from exc

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        limit = self._deadline.bound(timeout, httpcore.WriteTimeout)
        try:
            # One call for the whole buffer: its timeout bounds all of it (a loop of send()
            # calls would give each the time left anew).
            self._sock.settimeout(limit)
            self._sock.sendall(buffer)
        except socket.timeout as exc:
            raise httpcore.WriteTimeout(str(exc) or "writing timed out") from exc
        except OSError as exc:
            raise httpcore.WriteError(str(exc)) from exc

    def close(self) -> None:
        self._sock.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        limit = self._deadline.bound(timeout, httpcore.ConnectTimeout)
        try:
            self._sock.settimeout(limit)
            tls = ssl_context.wrap_socket(self._sock, server_hostname=server_hostname)
        except socket.timeout as exc:
            self._sock.close()
            raise httpcore.ConnectTimeout(str(exc) or "the TLS handshake timed out") from exc
        except OSError as exc:  # ssl.SSLError included: a certificate refused
            self._sock.close()
            raise httpcore.ConnectError(str(exc)) from exc
        return DeadlineStream(tls, self._deadline)

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "ssl_object":  # what httpcore asks of it (the ALPN chosen) an SSLSocket says
            return self._sock if isinstance(self._sock, ssl.SSLSocket) else None
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        if info == "socket":
            return self._sock
        if info == "is_readable":  # a kept-alive connection the server closed meanwhile
            return bool(select.select([self._sock], [], [], 0)[0])
        return None
