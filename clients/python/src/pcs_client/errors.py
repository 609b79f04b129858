"""What the client raises. Branch on `ApiError.code` (the contract's catalogue), never on the
message."""

from __future__ import annotations

from typing import Any


class PcsError(Exception):
    """Base of everything this client raises."""


class InvalidRequest(PcsError, ValueError):
    """Refused before sending: only for what the description says cannot be sent, such as a
    booking reference that would not fit in its path."""


class UnknownOption(InvalidRequest, TypeError):
    """A keyword the call does not take, refused before anything is sent: `option` is the one
    given, `suggestion` the known one nearest to it, `known` every one the call takes."""

    def __init__(self, call: str, option: str, known: tuple[str, ...], suggestion: str):
        super().__init__(f"{call}: unknown option {option!r}; did you mean {suggestion!r}? "
                         f"(it takes {', '.join(known)})")
        self.option = option
        self.suggestion = suggestion
        self.known = known


class ApiError(PcsError):
    """The service answered with its failure envelope."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None,
                 request_id: str | None, retry_after: int | None = None):
        super().__init__(f"{status} {code}: {message} (request_id {request_id})")
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """429 and 503: nothing was done, the same request may be sent again later."""
        return self.status in (429, 503)


class ClockSkewError(PcsError):
    """This machine's clock is too far from the service's for signed requests to be accepted."""

    def __init__(self, skew_seconds: float, tolerance: float):
        super().__init__(f"this clock is {skew_seconds:+.0f} s off the service's (server minus "
                         f"local); signed requests allow {tolerance:.0f} s: fix the clock (NTP)")
        self.skew_seconds = skew_seconds
