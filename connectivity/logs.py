"""JSON logs through structlog, one object per line on stdout, whichever library wrote the
record: the service's own events, and through the root logger every standard-library record
(RQ, psycopg_pool, httpx; gunicorn's own log through json_handler, gunicorn.conf.py). Request context
(request_id, key_id, partner) rides on contextvars; no header, body or credential is ever
logged, and a URL's user information, query string and fragment are cut from every line."""

from __future__ import annotations

import json
import logging
import re
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


# A URL's user information, query string and fragment may hold a secret (a webhook endpoint's
# URL is the partner's, token parameters included), and so may a request target's query (a line
# gunicorn could not parse is logged as sent): cut from every string a line carries. The scheme,
# host and path are kept, to tell which URL it was.
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^\s/?#@\"'<>]*@)?([^\s?#\"'<>]*)"
                  r"([?#][^\s\"'<>]*)?")
_PATH_QUERY = re.compile(r"(?<![\w.~:/%-])(/[^\s?#\"'<>]*)([?#])[^\s\"'<>]+")


def _cut_url(match: re.Match) -> str:
    return (match[1] + ("[redacted]@" if match[2] else "") + match[3]
            + (match[4][0] + "[redacted]" if match[4] else ""))


def redact_urls(_logger, _method, event_dict: dict) -> dict:
    """A structlog processor: the URLs and paths in the line's strings, without user info,
    query or fragment."""
    for key, value in event_dict.items():
        if type(value) is str and ("://" in value or "?" in value or "#" in value):
            event_dict[key] = _PATH_QUERY.sub(r"\1\2[redacted]", _URL.sub(_cut_url, value))
    return event_dict


_RENDERER = structlog.processors.JSONRenderer(serializer=_render)


class LineHandler(logging.Handler):
    """A standard-library handler writing each record as LineLogger does: one write, one line."""

    _line = LineLogger()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # noqa: BLE001 - as logging's own handlers: report, never raise
            self.handleError(record)
            return
        self._line.msg(line)


def json_handler() -> LineHandler:
    """A handler rendering any standard-library record as the service's JSON line: `event` the
    message, `logger` its logger's name, `level`, `timestamp`, a traceback as `exception`."""
    handler = LineHandler()
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.add_logger_name,
            structlog.stdlib.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact_urls,
            _RENDERER,
        ]))
    return handler


def configure_logging(level: str = "INFO") -> None:
    logging.basicConfig(handlers=[json_handler()], level=level, force=True)
    logging.captureWarnings(True)  # warnings.warn() too, as a JSON line rather than stderr text
    # httpx logs a line per request with the full URL, query string included; the webhooks
    # process writes its own line per attempt (webhook_attempt), with no URL at all.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            redact_urls,
            _RENDERER,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        # One write per record (LineLogger), never print()'s two.
        logger_factory=_line_logger,
        cache_logger_on_first_use=True,
    )
