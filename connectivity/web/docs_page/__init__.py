"""The docs page (`GET /api/connectivity/v1/docs`): Swagger UI over the published description,
served with its assets by this app (no CDN), whose "Try it out" signs requests in the browser
for signed keys (sign-requests.js, Web Crypto HMAC-SHA256), followed by a section per error code
(rendered from the error catalogue; `error.doc_url` links to them). It replaces flask-smorest's
own page so that the page is this app's, not a template of the library's overridden by name.
`/` and the API's root redirect to it: a newcomer who opens the service's address finds it.
`/favicon.ico`, which a browser asks for beside any page, answers 204 (no icon, and no 404 in
the browser's console)."""

from __future__ import annotations

import re
from pathlib import Path

import swagger_ui_bundle
from flask import (Flask, Response, redirect, render_template_string, send_from_directory,
                   url_for)
from markupsafe import Markup, escape

from connectivity import API_PREFIX
from connectivity.web.catalogue import DOCS_PAGE_PATH, sections

HERE = Path(__file__).resolve().parent
SIGNING_SCRIPT = "sign-requests.js"
# Endpoints that are public by design (app.py refuses any other unguarded API route).
PUBLIC_ENDPOINTS = ("docs_page", "docs_assets", "docs_signing", "docs_root")
_CODE_SPAN = re.compile(r"`([^`]+)`")


def inline_code(text: str) -> Markup:
    """The catalogue's texts mark code as `this`: escaped, then set as <code>."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


def register_docs_page(app: Flask, title: str) -> None:
    page = (HERE / "index.html").read_text(encoding="utf-8")
    error_sections = sections(app.config["MAX_CONTENT_LENGTH"])

    @app.get(DOCS_PAGE_PATH, endpoint="docs_page")
    def docs_page():
        return render_template_string(
            page, title=title, spec_url=url_for("api-docs.openapi_json"),
            assets=f"{API_PREFIX}/docs/assets/",
            signing_script=url_for("docs_signing"), error_sections=error_sections,
            console_url=url_for("console.page"),
            inline_code=inline_code)

    @app.get(f"{API_PREFIX}/docs/{SIGNING_SCRIPT}", endpoint="docs_signing")
    def docs_signing():
        return send_from_directory(HERE, SIGNING_SCRIPT, mimetype="text/javascript")

    @app.get(f"{API_PREFIX}/docs/assets/<path:filename>", endpoint="docs_assets")
    def docs_assets(filename):
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    @app.get("/", endpoint="docs_root")
    @app.get(API_PREFIX, endpoint="docs_root")
    @app.get(f"{API_PREFIX}/", endpoint="docs_root")
    def docs_root():
        return redirect(DOCS_PAGE_PATH, code=302)

    @app.get("/favicon.ico", endpoint="favicon")
    def favicon():
        # A day in the browser's cache: it asks again at most daily.
        return Response(status=204, headers={"Cache-Control": "public, max-age=86400"})
