"""The limits gunicorn holds a request's head to (gunicorn.conf.py), refused by gunicorn before
the app sees the request: 414 `uri_too_long` and 431 `headers_too_large` (web/catalogue.py),
answered in the envelope (web/envelope.py, adapters/gunicorn_errors.py). gunicorn's own
defaults, stated here so that the catalogue's texts and the server cannot disagree."""

# Bytes of the request line: method, path, query string and HTTP version.
REQUEST_LINE_BYTES = 4094
# Bytes of one header line (name and value), and headers in a request.
HEADER_FIELD_BYTES = 8190
HEADER_FIELDS = 100
