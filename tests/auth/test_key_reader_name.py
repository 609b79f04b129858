"""The key reader's sessions carry their own application_name, so that an operator reading
pg_stat_activity (or PgBouncer's SHOW CLIENTS) tells the authentication lookups from the use
cases' transactions (`pcs-web`) and the worker's."""

from __future__ import annotations

import psycopg

from connectivity.auth.guards import KeyReader


def test_key_lookup_sessions_are_named_pcs_web_keys(services):
    reader = KeyReader(services.database_url, max_size=1, timeout=5)
    try:
        assert reader.find_key("no-such-key") is None
        with reader.pool.connection() as conn:
            own = conn.execute("SELECT current_setting('application_name')").fetchone()
        with psycopg.connect(services.direct_url or services.database_url) as observer:
            named = observer.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND application_name = 'pcs-web-keys'"
            ).fetchone()[0]
    finally:
        reader.close()
    assert own == {"current_setting": "pcs-web-keys"}
    assert named >= 1
