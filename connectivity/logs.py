"""JSON logs through structlog. Request context (request_id, key_id, partner) rides on
contextvars; no header, body or credential is ever logged."""

from __future__ import annotations

import json
import logging
import sys

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
        logger_factory=structlog.PrintLoggerFactory(file=sys.stdout),
        cache_logger_on_first_use=True,
    )
