"""The docs page (`GET /api/connectivity/v1/docs`): Swagger UI over the published description,
served with its assets by this app (no CDN), whose "Try it out" signs requests in the browser
for signed keys (sign-requests.js, Web Crypto HMAC-SHA256). It replaces flask-smorest's own page
so that the page is this app's, not a template of the library's overridden by name."""

from __future__ import annotations

from pathlib import Path

import swagger_ui_bundle
from flask import Flask, render_template_string, send_from_directory, url_for

from connectivity import API_PREFIX

HERE = Path(__file__).resolve().parent
SIGNING_SCRIPT = "sign-requests.js"
# Endpoints that are public by design (app.py refuses any other unguarded API route).
PUBLIC_ENDPOINTS = ("docs_page", "docs_assets", "docs_signing")


def register_docs_page(app: Flask, title: str) -> None:
    page = (HERE / "index.html").read_text(encoding="utf-8")

    @app.get(f"{API_PREFIX}/docs", endpoint="docs_page")
    def docs_page():
        return render_template_string(
            page, title=title, spec_url=url_for("api-docs.openapi_json"),
            assets=f"{API_PREFIX}/docs/assets/",
            signing_script=url_for("docs_signing"))

    @app.get(f"{API_PREFIX}/docs/{SIGNING_SCRIPT}", endpoint="docs_signing")
    def docs_signing():
        return send_from_directory(HERE, SIGNING_SCRIPT, mimetype="text/javascript")

    @app.get(f"{API_PREFIX}/docs/assets/<path:filename>", endpoint="docs_assets")
    def docs_assets(filename):
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)
