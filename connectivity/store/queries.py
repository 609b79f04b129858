"""The named queries of sql/queries, loaded once. Every query takes the connection first, so the
caller (a service function) owns the transaction; no query commits."""

from __future__ import annotations

import types
from functools import cache
from pathlib import Path

import aiosql
from aiosql.queries import Queries

QUERIES_DIR = Path(__file__).resolve().parents[2] / "sql" / "queries"
MIGRATIONS_DIR = QUERIES_DIR.parent / "migrations"


class EagerQueries:
    """aiosql runs a many-row query lazily, as a generator: an UPDATE ... RETURNING nobody
    iterates would never run. This view of the queries returns lists instead."""

    def __init__(self, inner: Queries):
        self._inner = inner

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        if isinstance(attr, Queries):
            return EagerQueries(attr)
        if not callable(attr):
            return attr

        def run(*args, **kwargs):
            result = attr(*args, **kwargs)
            return list(result) if isinstance(result, types.GeneratorType) else result
        # The statement's text with psycopg placeholders, for a caller that runs it on a cursor
        # of its own (ari/readback.py reads tuples).
        run.sql = attr.sql
        return run


@cache
def queries() -> EagerQueries:
    # Sub-folders become namespaces, file names do not: sql/queries/auth/request_key.sql ->
    # queries().auth.find_key_for_request. One folder per package that runs SQL (sql/README.md).
    return EagerQueries(aiosql.from_path(QUERIES_DIR, "psycopg"))
