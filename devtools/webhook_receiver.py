"""A webhook receiver on loopback (sandbox keys may send there where WEBHOOK_ALLOW_LOOPBACK is
on): a real HTTP server recording what it received, and when, and answering as told, at once,
after being let go, or a byte at a time. The tests' receivers and the webhook bench's
(bench/webhooks.py)."""

from __future__ import annotations

import select
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.time() when the request arrived


@dataclass
class Connection:
    """One request's time on the receiver, from its arrival to the handler's end (the answer
    sent, or the sender gone)."""
    webhook_id: str
    start: float
    end: float | None = None


@dataclass
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    # The status to answer the n-th request (0-based) with; 204 by default.
    answer: Callable[[int], int] = lambda n: 204
    # While cleared, requests wait here (a receiver that does not answer in time).
    open: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)

    def open_now(self) -> list[Connection]:
        with self.arrived:
            return [c for c in self.connections if c.end is None]

    def most_at_once(self, webhook_id: str | None = None, slack: float = 0.0) -> int:
        """The most requests (of one webhook-id, or any) this receiver held at one time; a
        request that began less than `slack` seconds before another's end is not counted as
        beside it (the receiver learns that a sender went away a moment late)."""
        with self.arrived:
            spans = [c for c in self.connections if webhook_id in (None, c.webhook_id)]
            return max((sum(1 for o in spans if o.start <= c.start
                            and (o.end is None or o.end > c.start + slack)) for c in spans),
                       default=0)


@contextmanager
def receiver(answer: Callable[[int], int] = lambda n: 204, *, holding: bool = False,
             trickle: int = 0, tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    """A receiver at http://127.0.0.1:<port>/hook; `holding`: requests wait until `open` is set
    (or the server stops); `trickle`: the answer is `HTTP/1.1 200 OK` at once, then a header of
    this many bytes sent one a second, then the end of the head (a trickle that lasts `trickle`
    seconds); `tls`: https, with this server-side context's certificate."""
    box: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            me, at = box[0], time.time()
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            connection = Connection(self.headers.get("webhook-id", ""), time.monotonic())
            with me.arrived:
                n = len(me.received)
                me.received.append(Received(self.path, {k.lower(): v for k, v in
                                                        self.headers.items()}, body, at))
                me.connections.append(connection)
                me.arrived.notify_all()
            try:
                if trickle:
                    self._trickle(trickle)
                else:
                    self._answer(me, n)
            except OSError:
                pass  # the sender went away
            finally:
                with me.arrived:
                    connection.end = time.monotonic()
                    me.arrived.notify_all()

        def _answer(self, me: Receiver, n: int) -> None:
            me.open.wait()
            status = me.answer(n)
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _trickle(self, seconds: int) -> None:
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Trickle: ")
            for _ in range(seconds):
                if self._sender_gone(within=1.0):
                    return
                self.wfile.write(b"a")
            self.wfile.write(b"\r\nContent-Length: 0\r\n\r\n")

        def _sender_gone(self, within: float) -> bool:
            """Whether the sender closed the connection, waiting at most `within` to know (it
            sends nothing more after its request: the socket turns readable only as it goes)."""
            readable, _, _ = select.select([self.connection], [], [], within)
            if not readable:
                return False
            try:
                return self.connection.recv(1) == b""
            except (OSError, ValueError):
                return True

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    scheme = "http" if tls is None else "https"
    me = Receiver(f"{scheme}://127.0.0.1:{server.server_port}/hook", answer=answer)
    if not holding:
        me.open.set()
    box.append(me)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield me
    finally:
        me.open.set()
        server.shutdown()
        server.server_close()
        thread.join(10)
