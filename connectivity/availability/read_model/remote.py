"""The read model as a web worker reads it when the machine's model host holds it (host.py): the
same two reads as SearchModel's (`search_rows`, `rates_view`), sent over the host's socket, one
connection per worker thread.

A host that cannot be reached (starting, restarting after a crash) or that does not answer
within ANSWER_SECONDS is never an error for the partner: the statements answer instead, exact
and slower (pcs_search_model_host_unreachable_total counts those reads)."""

from __future__ import annotations

import datetime as dt
import threading
from multiprocessing.connection import Client

from connectivity.availability.read_model.answering import (RatesView, Reference, as_rows,
                                                           merged)
from connectivity.availability.read_model.channel import Channel
from connectivity.availability.read_model.held import Rows
from connectivity.availability.read_model.metrics import UNREACHABLE

# Longer than any catch-up or load batch holds the model's lock; shorter than gunicorn's
# request timeout (30 s), so that the statements still answer in time.
ANSWER_SECONDS = 10.0


class HostUnreachable(Exception):
    pass


class HostedModel:
    def __init__(self, path: str, key: bytes):
        self._path, self._key = path, key
        self._local = threading.local()

    def search_rows(self, partner_id: int, environment: str, codes: list[str], request: dict,
                    now: dt.datetime, reference: Reference, fence: bytes | None) -> Rows:
        """As SearchModel.search_rows: the host's rows for the hotels it holds, the
        statement's (`reference`, run here) for the rest."""
        # The codes are sent once: the request's own list is the same codes, asked twice.
        asked = {k: v for k, v in request.items() if k != "hotel_codes"}
        try:
            answers, rest = self._call("rows", partner_id, environment, codes, asked, now, fence)
        except HostUnreachable:
            answers, rest = [], codes
        return merged(codes, as_rows(answers), rest, reference)

    def rates_view(self, partner_id: int, environment: str, code: str, check_in: dt.date,
                   check_out: dt.date, fence: bytes | None,
                   room_type_codes: list[str] | None = None,
                   rate_plan_codes: list[str] | None = None) -> RatesView | None:
        try:
            return self._call("rates", partner_id, environment, code, check_in, check_out,
                              fence, room_type_codes, rate_plan_codes)
        except HostUnreachable:
            return None

    def forget(self) -> None:
        """As SearchModel.forget, on the host (operators after a restore, and the tests)."""
        self._call("forget")

    def held(self) -> int:
        """Properties the host holds (the bench waits for its preload)."""
        return self._call("held")

    def _call(self, *message):
        """The host's answer; an exception it raised is raised here. A broken connection is
        opened again once: every operation is a read, so sending it twice is harmless."""
        for attempt in (1, 2):
            conn: Channel | None = getattr(self._local, "conn", None)
            try:
                if conn is None:
                    conn = self._local.conn = Channel(
                        Client(self._path, family="AF_UNIX", authkey=self._key),
                        timeout=ANSWER_SECONDS)
                conn.send(message)
                status, value = conn.recv()
            except (OSError, EOFError) as exc:  # ConnectionRefusedError is one, TimeoutError too
                self._drop(conn)
                # A host too slow to answer is not asked again: the statements answer now.
                if attempt == 2 or isinstance(exc, TimeoutError):
                    UNREACHABLE.inc()
                    raise HostUnreachable() from None
                continue
            if status == "raise":
                raise value
            return value

    def _drop(self, conn: Channel | None) -> None:
        self._local.conn = None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass
