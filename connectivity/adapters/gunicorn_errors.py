"""gunicorn internals: the answer a worker writes when it refuses a request before the app sees
it (a request line or headers over its limits, a malformed request), an HTML page.

gunicorn has no setting for that page: `Worker.handle_error` picks the status and calls
`gunicorn.util.write_error(sock, status_int, reason, mesg)`, which writes the page with
`util.write_nonblock`. `answer_in_json(body_for)` replaces that writer in this process: for a
status `body_for` gives a body (JSON bytes and the request id it names), the answer is that
body, `Content-Type: application/json`, with `X-Request-Id`; every other status keeps
gunicorn's page. Relied on (gunicorn 23-27): those two functions, their parameters, and
`handle_error` calling `util.write_error` through the module. Guarded by
tests/adapters/test_gunicorn_errors.py."""

from __future__ import annotations

from collections.abc import Callable

from gunicorn import util

# gunicorn's own writer, kept once: installing again (the config is read again on SIGHUP)
# never wraps the replacement in itself.
_HTML_PAGE = util.write_error


def answer_in_json(body_for: Callable[[int], tuple[bytes, str] | None]) -> None:
    def write_error(sock, status_int: int, reason: str, mesg: str) -> None:
        made = body_for(status_int)
        if made is None:
            _HTML_PAGE(sock, status_int, reason, mesg)
            return
        body, request_id = made
        head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                f"X-Request-Id: {request_id}\r\n\r\n")
        util.write_nonblock(sock, head.encode("latin-1") + body)

    util.write_error = write_error
