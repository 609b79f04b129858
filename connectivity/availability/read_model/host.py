"""The model host: one process per machine that holds the read model and answers every web
worker's search and rates reads from it (remote.py is the workers' side). Memory then does not
grow with the number of workers, and each write is caught up with once per machine, not once
per worker (docs/operations.md 6.5).

The gunicorn master starts it before the first worker and restarts it when it dies
(supervisor.py); it stops when the master is gone. It listens on a Unix socket in a directory
only the service's user can enter, and a client proves it knows the socket's key
(multiprocessing.connection's HMAC challenge) before anything it sends is unpickled.

Each client connection is served by a thread of its own, over channel.py's wire once the
challenge is passed. Answers are the model's own, under its rules: a request's catch-up follows
the read fence's token the worker read (catching_up.py), so a read through the host reflects
every write acknowledged before it as it does in process (contract 13.1).

The arrays a stay's days are read from are shared (shared_arrays.py), with a directory of where
each held hotel lies (directory.py): a worker asks for their layout and segments (`layout`) and
reads rates itself (mapped.py). Since those reads no longer come here, a thread of its own
makes the periodic catch-up.

`python -m connectivity.availability.read_model.host` (SEARCH_MODEL_SOCKET and the service's
settings in the environment)."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import signal
import threading
import time
from multiprocessing.connection import Connection, Listener

from connectivity.availability import arena
from connectivity.availability.read_model.building import search_model_of
from connectivity.availability.read_model.channel import Channel, WithFds
from connectivity.availability.read_model.directory import Directory
from connectivity.availability.read_model.model import SearchModel
from connectivity.availability.read_model.shared_arrays import Segments

log = logging.getLogger("connectivity.availability.read_model.host")  # also as __main__

PARENT_CHECK_SECONDS = 1.0
SNAPSHOT_CHECK_SECONDS = 60.0


def socket_key(secret_key: str) -> bytes:
    """The key a client proves it knows (derived from SECRET_KEY: nothing more to configure)."""
    return hmac.new(secret_key.encode(), b"pcs search model host", hashlib.sha256).digest()


class ModelHost:
    """The model, and the requests the workers send it: (operation, *arguments) tuples, each
    answered with ("ok", result) or ("raise", exception). `directory`: where the hotels lie in
    the arrays it shares (None: none are, its workers ask it every read)."""

    def __init__(self, model: SearchModel, segments: Segments | None = None,
                 directory: Directory | None = None):
        self.model = model
        self.segments, self.directory = segments, directory

    def answer(self, message: tuple):
        operation, *arguments = message
        if operation == "rows":
            return self.model.held_answers(*arguments)
        if operation == "rates":
            return self.model.rates_view(*arguments)
        if operation == "layout":
            return self.layout()
        if operation == "forget":
            return self.model.forget()
        if operation == "held":
            return self.model.held()
        raise ValueError(f"unknown operation {operation!r}")

    def layout(self) -> WithFds:
        """The shared arrays' layout as last written (None: none yet), and the segments it
        names that are still live, with their sizes and descriptors (sent with the answer)."""
        layout = self.directory.layout if self.directory is not None else None
        if layout is None:
            return WithFds((None, [], []), [])
        found, sizes, fds = self.segments.descriptors(layout.segments())
        return WithFds((layout, found, sizes), fds)

    def serve_connection(self, conn: Connection) -> None:
        with Channel(conn) as channel:
            while True:
                try:
                    message = channel.recv()
                except (EOFError, OSError):
                    return  # the worker closed it (or exited)
                fds = []
                try:
                    answer = self.answer(message)
                    if isinstance(answer, WithFds):
                        answer, fds = answer.value, answer.fds
                    reply = ("ok", answer)
                except Exception as exc:  # the worker raises it as the in-process model would
                    reply = ("raise", exc)
                try:
                    channel.send(reply, fds)
                except OSError:
                    return
                except Exception:  # an exception that does not pickle: the worker sees a 500
                    log.exception("model host: an answer could not be sent")
                    channel.send(("raise", RuntimeError("the model host's answer did not pickle")))

    def serve(self, listener: Listener) -> None:
        while True:
            try:
                conn = listener.accept()
            except OSError:
                return  # closed: stopping
            except Exception:  # a client that failed the key's challenge
                log.warning("model host: a connection was refused (wrong key)")
                continue
            threading.Thread(target=self.serve_connection, args=(conn,), daemon=True,
                             name="model-host-connection").start()


def main() -> int:
    import redis

    from connectivity.logs import configure_logging
    from connectivity.settings import Settings
    from connectivity.store.database import Database
    from connectivity.store.read_fence import ReadFence

    settings = Settings.from_env()
    configure_logging(settings.log_level)
    # Before the model makes its first array: the workers map them (shared_arrays.py; Linux's
    # memfd_create: elsewhere every read asks the host).
    segments = (Segments() if settings.search_model_mapped and hasattr(os, "memfd_create")
                else None)
    directory = None
    if segments is not None:
        arena.share_with(segments)
        directory = Directory(segments)
    path = settings.search_model_socket
    if not path:
        raise SystemExit("SEARCH_MODEL_SOCKET: where the model host listens")
    # The loading connections, and one for the reads a catch-up's reloads make.
    db = Database(settings.database_url, max_size=settings.search_model_load_connections + 2,
                  timeout=settings.db_pool_timeout_seconds,
                  application_name="pcs-model-host",
                  statement_timeout_seconds=settings.db_statement_timeout_seconds,
                  idle_in_transaction_timeout_seconds=(
                      settings.db_idle_in_transaction_timeout_seconds))
    fence = ReadFence(redis.Redis.from_url(settings.redis_url, socket_timeout=2,
                                           socket_connect_timeout=2), settings.redis_prefix)
    model = search_model_of(settings, db, fence.read_since, directory)
    model.begin()  # a snapshot read first, while the statements answer
    if settings.search_model_preload:
        model.preload()
    if directory is not None and settings.search_model_refresh_seconds:
        threading.Thread(target=_keep_current,
                         args=(model, settings.search_model_refresh_seconds), daemon=True,
                         name="model-host-refresh").start()
    if settings.search_model_snapshot_seconds:
        threading.Thread(target=_write_snapshots,
                         args=(model, settings.search_model_snapshot_seconds), daemon=True,
                         name="model-host-snapshots").start()
    if os.path.exists(path):
        os.unlink(path)  # a socket left by a host that died
    listener = Listener(path, family="AF_UNIX", backlog=128,
                        authkey=socket_key(settings.secret_key))

    def stop(*_):
        raise SystemExit(0)  # out of the blocked accept(): the connections' threads end with it
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True,
                     name="model-host-parent").start()
    log.info("model host: serving on %s", path)
    try:
        ModelHost(model, segments, directory).serve(listener)
    finally:
        listener.close()
        log.info("model host: stopped")
    return 0


def _keep_current(model: SearchModel, seconds: float) -> None:
    """The periodic catch-up that requests no longer bring once the workers read the shared
    arrays themselves: looked at four times a period, so that the last began at most about
    1.25 periods ago (a worker asks the host past mapped.py's STALE_PERIODS)."""
    failing = False
    while True:
        time.sleep(seconds / 4)
        try:
            model.refresh_when_due()
            failing = False
        except Exception:  # the database away, say: the next look tries again
            if not failing:  # logged once a run of failures, not four times a period
                log.exception("model host: the periodic catch-up failed")
            failing = True


def _write_snapshots(model: SearchModel, seconds: float) -> None:
    """The copy written to the database when the newest stored one is older than `seconds`:
    a host that starts empty reads it (snapshots.py). Several hosts may each write one now and
    then; each keeps only the newest."""
    while True:
        time.sleep(min(SNAPSHOT_CHECK_SECONDS, seconds))
        try:
            model.write_snapshot_if_due(seconds)
        except Exception:  # the database away, say: the next check tries again
            log.exception("model host: the snapshot could not be written")


def _watch_parent(parent: int) -> None:
    """Stop once the gunicorn master that started it is no longer its parent (killed)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    raise SystemExit(main())
