"""Prometheus metrics: GET /metrics (endpoint.py), request figures (http.py), figures read at
scrape time (stored.py), and gunicorn's shared directory (process_dir.py).

Nothing is imported here: gunicorn's master imports process_dir before any worker forks, and
prometheus_client must not be imported in the master before the directory is set (the
workers would inherit its single-process value storage)."""
