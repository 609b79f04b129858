"""The partner console (`GET /console`): one page that shows a partner's state through the
public API (the ARI calendar, bookings and hotel bookings, the events, the webhook endpoints and
their deliveries, a batch's outcome), for a key pasted into it. Static files only, no build step
and nothing fetched from elsewhere: the page works offline. It signs every request in the
browser with the docs page's signing script (any key may sign, a signed key must), and keeps
the key in the page's memory only (no storage, no cookie): a reload forgets it.

Outside the API prefix and unauthenticated: the page holds no data of its own, everything it
shows comes from the API calls the key makes."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory

from connectivity.web.docs_page import HERE as DOCS_PAGE_FOLDER, SIGNING_SCRIPT

STATIC = Path(__file__).resolve().parent / "static"
CONSOLE_PATH = "/console"
# Everything the page loads is its own: scripts, styles and calls to this origin, nothing else,
# no inline script or style, no framing (a console that signs requests must not be clickjacked).
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; "
                           "connect-src 'self'; img-src 'self' data:; form-action 'none'; "
                           "frame-ancestors 'none'; base-uri 'none'")
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}

blp = Blueprint("console", __name__)


@blp.after_request
def protect(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@blp.get(CONSOLE_PATH)
def page():
    return send_from_directory(STATIC, "index.html", mimetype="text/html")


@blp.get(f"{CONSOLE_PATH}/")
def page_slash():
    return redirect(CONSOLE_PATH, code=301)


@blp.get(f"{CONSOLE_PATH}/{SIGNING_SCRIPT}")
def signing_script():
    """The docs page's own file: one signing implementation for both pages."""
    return send_from_directory(DOCS_PAGE_FOLDER, SIGNING_SCRIPT, mimetype="text/javascript")


@blp.get(f"{CONSOLE_PATH}/<path:filename>")
def asset(filename: str):
    # send_from_directory refuses a path that leaves the folder (404).
    return send_from_directory(STATIC, filename, mimetype=_TYPES.get(Path(filename).suffix))
