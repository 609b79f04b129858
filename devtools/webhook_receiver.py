"""A webhook receiver on loopback (sandbox keys may send there): a real HTTP server recording
what it received, and when, and answering as told. The tests' receivers and the webhook bench's
(bench/webhooks.py)."""

from __future__ import annotations

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
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    # The status to answer the n-th request (0-based) with; 204 by default.
    answer: Callable[[int], int] = lambda n: 204
    # While cleared, requests wait here (a receiver that does not answer in time).
    open: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)


@contextmanager
def receiver(answer: Callable[[int], int] = lambda n: 204, *, holding: bool = False,
             tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    """A receiver at http://127.0.0.1:<port>/hook; `holding`: requests wait until `open` is set
    (or the server stops); `tls`: https, with this server-side context's certificate."""
    box: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            me, at = box[0], time.time()
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with me.arrived:
                n = len(me.received)
                me.received.append(Received(self.path, {k.lower(): v for k, v in
                                                        self.headers.items()}, body, at))
                me.arrived.notify_all()
            me.open.wait()
            status = me.answer(n)
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

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
