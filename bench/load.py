"""The load driver: N operations at concurrency C, closed loop (each connection sends its next
request when the previous answer is in), timed one by one.

On a 2-core machine the client takes CPU from the server it measures, so it is kept lean: raw
keep-alive sockets and pre-built request bytes instead of http.client (which parses every header
into objects), one thread per connection, and the connections spread over a few forked processes
so the client is not held back by one interpreter lock. Each process reports its CPU time, so
the results say what the client cost.

An operation is either an HTTP request (method, path, body, credentials) sent to a server, or a
plain callable (a database-floor query through psycopg), timed the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import multiprocessing
import queue
import resource
import secrets
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

Op = Callable[[int], "int | str"]           # index -> status (HTTP status or a short label)
OpFactory = Callable[[], Op]                 # called once per connection, in its thread


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: bytes = b""
    auth: "Bearer | Signed | None" = None


class Bearer:
    def __init__(self, token: str):
        self._line = f"Authorization: Bearer {token}\r\n".encode()

    def header_lines(self, method: str, path: str, body: bytes) -> bytes:
        return self._line


class Signed:
    """Contract section 2: HMAC-SHA256 over METHOD, target, timestamp, nonce, sha256(body);
    a fresh nonce per request (the service refuses a replay)."""

    def __init__(self, token: str):
        key_id, _, secret = token.partition(".")
        self._key_id, self._secret = key_id, secret.encode()

    def header_lines(self, method: str, path: str, body: bytes) -> bytes:
        ts, nonce = str(int(time.time())), secrets.token_hex(16)
        message = f"{method}\n{path}\n{ts}\n{nonce}\n{hashlib.sha256(body).hexdigest()}".encode()
        signature = hmac.new(self._secret, message, hashlib.sha256).hexdigest()
        return (f"X-Api-Key-Id: {self._key_id}\r\nX-Timestamp: {ts}\r\nX-Nonce: {nonce}\r\n"
                f"X-Signature: {signature}\r\n").encode()


def encode(request: Request, host: str) -> bytes:
    head = f"{request.method} {request.path} HTTP/1.1\r\nHost: {host}\r\n".encode()
    if request.auth is not None:
        head += request.auth.header_lines(request.method, request.path, request.body)
    if request.body or request.method in ("POST", "PUT", "PATCH"):
        head += (f"Content-Type: application/json\r\nContent-Length: {len(request.body)}\r\n"
                 .encode())
    return head + b"\r\n" + request.body


class ServerClosed(Exception):
    pass


class HttpConnection:
    """One keep-alive HTTP/1.1 connection; reads exactly one Content-Length framed answer."""

    def __init__(self, host: str, port: int):
        self._address = (host, port)
        self._sock: socket.socket | None = None
        self._buf = b""
        self.reconnects = 0
        self.samples: dict[int, bytes] = {}   # first body of each non-2xx status, for the report

    def exchange(self, data: bytes) -> int:
        for attempt in (1, 2):
            if self._sock is None:
                self._connect()
            try:
                self._sock.sendall(data)
                return self._read_response()
            except (ServerClosed, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server closed while idle: reconnect and resend
                # once. A second failure is real and propagates.
                self._close()
                self.reconnects += 1
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _connect(self) -> None:
        self._sock = socket.create_connection(self._address)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._buf = b""

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock, self._buf = None, b""

    def _recv(self) -> bytes:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ServerClosed()
        return chunk

    def _read_response(self) -> int:
        buf = self._buf
        while (end := buf.find(b"\r\n\r\n")) < 0:
            buf += self._recv()
        head = buf[:end].lower()
        status = int(head[9:12])
        at = head.find(b"\r\ncontent-length:")
        if at < 0:
            raise RuntimeError(f"answer without Content-Length: {head[:200]!r}")
        line_end = head.find(b"\r\n", at + 2)
        total = end + 4 + int(head[at + 17:line_end if line_end >= 0 else None])
        while len(buf) < total:
            buf += self._recv()
        if not 200 <= status < 300 and status not in self.samples:
            self.samples[status] = buf[end + 4:total][:400]
        self._buf = buf[total:]
        if b"\r\nconnection: close" in head:
            self._close()
        return status


def http_ops(host: str, port: int, make_request: Callable[[int], Request]) -> OpFactory:
    """One keep-alive connection per calling thread; op(i) sends make_request(i)."""
    host_header = f"{host}:{port}"

    def open_op() -> Op:
        conn = HttpConnection(host, port)

        def op(i: int) -> int:
            return conn.exchange(encode(make_request(i), host_header))
        op.connection = conn  # type: ignore[attr-defined]
        return op
    return open_op


@dataclass
class Outcome:
    latencies_ns: list[int] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    started: float = float("inf")
    finished: float = 0.0
    client_cpu_s: float = 0.0
    reconnects: int = 0
    samples: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def merge(self, other: "Outcome") -> None:
        self.latencies_ns += other.latencies_ns
        self.statuses.update(other.statuses)
        self.started = min(self.started, other.started)
        self.finished = max(self.finished, other.finished)
        self.client_cpu_s += other.client_cpu_s
        self.reconnects += other.reconnects
        for status, body in other.samples.items():
            self.samples.setdefault(status, body)
        self.errors += other.errors


def _connection(open_op: OpFactory, slot: int, connections: int, warmup: int, count: int,
                barrier, out: Outcome, lock: threading.Lock) -> None:
    mine = Outcome()
    try:
        op = open_op()
        for k in range(warmup):
            op(-1 - slot - k * connections)  # negative indexes: warm-up, never measured
    except Exception as exc:  # noqa: BLE001 - reported with the results, never hidden
        mine.errors.append(f"warm-up: {type(exc).__name__}: {exc}")
        op = None
    barrier.wait()
    if op is not None:
        clock, add, statuses = time.perf_counter_ns, mine.latencies_ns.append, mine.statuses
        mine.started = time.perf_counter()
        for k in range(count):
            t0 = clock()
            try:
                status = op(slot + k * connections)
            except Exception as exc:  # noqa: BLE001
                status = f"error:{type(exc).__name__}"
                if len(mine.errors) < 5:
                    mine.errors.append(f"{type(exc).__name__}: {exc}")
            add(clock() - t0)
            statuses[status] += 1
        mine.finished = time.perf_counter()
        conn = getattr(op, "connection", None)
        if conn is not None:
            mine.reconnects, mine.samples = conn.reconnects, conn.samples
    with lock:
        out.merge(mine)


def _process(open_op: OpFactory, slots: list[int], connections: int, warmup: int,
             counts: list[int], barrier, results) -> None:
    out, lock = Outcome(), threading.Lock()
    threads = [threading.Thread(target=_connection, args=(open_op, s, connections, warmup, c,
                                                          barrier, out, lock))
               for s, c in zip(slots, counts)]
    for t in threads:
        t.start()
    cpu0 = _cpu_seconds()  # the threads are warming up, not measured; close enough
    for t in threads:
        t.join()
    out.client_cpu_s = _cpu_seconds() - cpu0
    out.samples = {k: v.decode("utf-8", "replace") for k, v in out.samples.items()}
    results.put(out)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def drive(open_op: OpFactory, *, requests: int, concurrency: int, warmup: int,
          processes: int, on_start: Callable[[list[int]], None] | None = None) -> Outcome:
    """Run `requests` operations over `concurrency` connections (spread over `processes`
    forked processes) after `warmup` untimed operations per connection. `on_start(client_pids)`
    runs in this process when the measured phase starts (CPU counters are read there)."""
    processes = max(1, min(processes, concurrency))
    ctx = multiprocessing.get_context("fork")  # the op factories are closures: inherit them
    barrier = ctx.Barrier(concurrency + 1)
    results = ctx.Queue()
    counts = [requests // concurrency + (1 if s < requests % concurrency else 0)
              for s in range(concurrency)]
    slots = [list(range(p, concurrency, processes)) for p in range(processes)]
    procs = [ctx.Process(target=_process, args=(open_op, s, concurrency, warmup,
                                                [counts[i] for i in s], barrier, results),
                         daemon=True) for s in slots]
    for p in procs:
        p.start()
    barrier.wait(timeout=600)
    if on_start is not None:
        on_start([p.pid for p in procs])
    outcome, pending = Outcome(), len(procs)
    while pending:
        try:
            outcome.merge(results.get(timeout=1))
            pending -= 1
        except queue.Empty:
            if not any(p.is_alive() for p in procs):
                raise RuntimeError("a client process died without reporting") from None
    for p in procs:
        p.join()
    return outcome
