"""The read model as the settings describe it: built by the web app when each process holds its
own (tests, `flask run`), and by the model host when one process holds it for the machine
(host.py). One home for both, so the two can never be configured apart."""

from __future__ import annotations

from connectivity.availability.read_model.model import SearchModel
from connectivity.availability.read_model.snapshot_store import SnapshotStore


def search_model_of(settings, db, current_fence=None, directory=None) -> SearchModel:
    """`db`: the primary. The model catches up from it, never from a replica, whose lag would
    hide acknowledged writes from it (contract 13.1). `current_fence`: the read fence's
    `ReadFence.read_since`, which each catch-up reads the token with before it begins. A model
    that starts empty reads the newest snapshot (snapshots.py); only the model host writes
    them (host.py), which also keeps the `directory` its workers find hotels in (directory.py)."""
    return SearchModel(
        db, connect=lambda: db.standalone(
            "pcs-web-model",
            # On Citus a catch-up's statements reuse one cached connection per worker
            # (sql/queries/availability/search_model.sql model_catch_up_settings).
            # No parallel workers: a catch-up reads a few days of a few hotels, and
            # PostgreSQL, planning two workers for some of those reads, started them each
            # time (30 hotels, a day each: 15 ms against 5). A plan for each statement's own
            # arrays and bounds: the generic plan a prepared statement falls back to after
            # five runs cannot see how few days model_days asks for (plain PostgreSQL, 30
            # hotels within five months: 10-17 against 6-7 ms of its CPU).
            **{"citus.max_adaptive_executor_pool_size": "1",
               "max_parallel_workers_per_gather": "0",
               "plan_cache_mode": "force_custom_plan"}),
        background=settings.search_model_loading == "background",
        refresh_seconds=settings.search_model_refresh_seconds,
        max_properties=settings.search_model_max_properties,
        window_days=settings.search_model_window_days,
        load_connections=settings.search_model_load_connections,
        current_fence=current_fence, directory=directory,
        snapshots=(SnapshotStore(db, settings.secret_key, settings.search_model_window_days)
                   if settings.search_model_snapshot_seconds else None))
