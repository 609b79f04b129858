"""The framework's ceiling: a bare Flask app with one route answering a small JSON, served by
the same gunicorn command and gunicorn.conf.py as the service (only the WSGI module differs), so
the gap between it and /ping is what the service's own work costs per request."""

from __future__ import annotations

from flask import Flask, jsonify

app = Flask("bare")


@app.get("/bare")
def bare():
    # About the size of /ping's envelope, so the two answers cost the same to send.
    return jsonify({"success": True, "data": {"pong": True, "environment": "sandbox",
                                              "server_time": "2026-01-01T00:00:00+00:00"},
                    "request_id": "0123456789abcdef0123456789abcdef"})


@app.get("/healthz")
def healthz():
    # The bench runner waits on /healthz before it measures, as it does for the service.
    return jsonify({"status": "ok"})
