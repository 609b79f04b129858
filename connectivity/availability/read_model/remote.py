"""The read model as a web worker reads it when the machine's model host holds it (host.py): the
same two reads as SearchModel's (`search_rows`, `rates_view`), sent over the host's socket, one
connection per worker thread.

A host that cannot be reached (starting, restarting after a crash) or that does not answer
within ANSWER_SECONDS is never an error for the partner: the statements answer instead, exact
and slower (pcs_search_model_host_unreachable_total counts those reads).

Rates are read in the worker itself from the host's shared arrays while they reflect every
write acknowledged before the read (mapped.py): only the other reads cross the socket."""

from __future__ import annotations

import datetime as dt
import threading
from multiprocessing.connection import Client

from connectivity.availability.read_model.answering import (RatesView, Reference, as_rows,
                                                           merged)
from connectivity.availability.read_model.channel import Channel
from connectivity.availability.read_model.held import Rows
from connectivity.availability.read_model.mapped import MappedRates
from connectivity.availability.read_model.metrics import UNREACHABLE

# Longer than any catch-up or load batch holds the model's lock; shorter than gunicorn's
# request timeout (30 s), so that the statements still answer in time.
ANSWER_SECONDS = 10.0


class HostUnreachable(Exception):
    pass


class HostedModel:
    """`mapped`: where rates are read from the host's shared arrays (None: every read asks the
    host)."""

    def __init__(self, path: str, key: bytes, mapped: MappedRates | None = None):
        self._path, self._key = path, key
        self._local = threading.local()
        self._mapped = mapped

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
        mapped = self._mapped
        if mapped is not None:
            asked = (partner_id, environment, code, check_in, check_out, fence,
                     room_type_codes, rate_plan_codes)
            view = mapped.view(*asked)
            if view is None and mapped.behind():  # the layout first: none, or a new one
                self._map_layout(mapped)
                view = mapped.view(*asked)
            if view is not None:
                return view
        try:
            return self._call("rates", partner_id, environment, code, check_in, check_out,
                              fence, room_type_codes, rate_plan_codes)
        except HostUnreachable:
            return None

    def _map_layout(self, mapped: MappedRates) -> None:
        """The host's shared arrays as it lays them out now, mapped (mapped.py reads them)."""
        try:
            (layout, found, sizes), fds = self._call_with_fds("layout")
        except Exception:  # unreachable, or it raised: this read, and the next ones, ask it
            return
        mapped.segments.add(found, sizes, fds)
        if layout is not None:
            mapped.adopt(layout)

    def forget(self) -> None:
        """As SearchModel.forget, on the host (operators after a restore, and the tests)."""
        self._call("forget")

    def held(self) -> int:
        """Properties the host holds (the bench waits for its preload)."""
        return self._call("held")

    def _call(self, *message):
        return self._exchange(message, False)[0]

    def _call_with_fds(self, *message):
        """The host's answer and the descriptors it carried."""
        return self._exchange(message, True)

    def _exchange(self, message: tuple, with_fds: bool):
        """The host's answer (and the descriptors it carried, `with_fds`); an exception it
        raised is raised here. A broken connection is opened again once: every operation is a
        read, so sending it twice is harmless."""
        for attempt in (1, 2):
            conn: Channel | None = getattr(self._local, "conn", None)
            fds: list[int] = []
            try:
                if conn is None:
                    conn = self._local.conn = Channel(
                        Client(self._path, family="AF_UNIX", authkey=self._key),
                        timeout=ANSWER_SECONDS)
                conn.send(message)
                if with_fds:
                    (status, value), fds = conn.recv_with_fds()
                else:
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
            return value, fds

    def _drop(self, conn: Channel | None) -> None:
        self._local.conn = None
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass
