"""JSON logs through structlog. Request context (request_id, key_id, partner) rides on
contextvars; no header, body or credential is ever logged."""

from __future__ import annotations

import json
import logging
import sys
import threading

import structlog


def _unserializable(value) -> str:
    """As structlog's JSONRenderer renders what JSON has no type for."""
    to_log = getattr(value, "__structlog__", None)
    return to_log() if to_log is not None else repr(value)


# One encoder for every line: `json.dumps(..., default=...)` builds a new JSONEncoder per call,
# a cost paid on every request's log line; the text it writes is the same.
_ENCODER = json.JSONEncoder(default=_unserializable)


def _render(event_dict, **_dumps_kw) -> str:
    return _ENCODER.encode(event_dict)


class LineLogger:
    """Writes each record and its newline in ONE write to the current sys.stdout (looked up at
    each record, as print() does, so a redirected stdout is followed), then flushes.

    print() writes the message and the newline separately; with PYTHONUNBUFFERED=1 (common on
    PaaS) each goes to the pipe on its own, and another process's record can land between them,
    so a log shipper reads two records as one line (tests/web/test_log_lines.py). A write to a
    pipe stays whole up to PIPE_BUF (4,096 bytes on Linux)."""

    _lock = threading.Lock()  # threads of one process: one record at a time

    def msg(self, message: str) -> None:
        out = sys.stdout
        with self._lock:
            out.write(message + "\n")
            out.flush()

    log = debug = info = warn = warning = msg
    fatal = failure = err = error = critical = exception = msg


def _line_logger(*_args) -> LineLogger:
    return LineLogger()


def configure_logging(level: str = "INFO") -> None:
    logging.basicConfig(format="%(message)s", stream=sys.stdout, level=level, force=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_render),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        # One write per record (LineLogger), never print()'s two.
        logger_factory=_line_logger,
        cache_logger_on_first_use=True,
    )
