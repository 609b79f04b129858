"""The read model's snapshots (read_model/snapshots.py): a model that starts empty holds what the
snapshot held without reading a day row, then reflects every write acknowledged since it was
taken before it answers (contract 13.1); a hotel rewritten while the snapshot was written is
left out of it; a snapshot of another key, of other code, or whose changes were pruned, is not
used. Last, the model host writes one on its own, and a second host starts from it."""

from __future__ import annotations

import dataclasses
import pickle
import time

import numpy as np

from connectivity.availability.grid import Offer
from connectivity.availability.read_model import RATES, snapshot_pickling
from connectivity.availability.read_model.snapshot_pickling import load_state
from connectivity.availability.read_model.snapshot_store import SnapshotStore
from connectivity.web.services import services_of

from tests.availability.conftest import API, day
from tests.availability.test_reads_follow_writes import (BACKSTOP_SECONDS, book, first_night,
                                                         keys, lisbon)  # noqa: F401 (fixtures)
from tests.support.ari_days import set_plan_days
from tests.support.model_host import model_host


def model_of(make_app, **changes):
    application = make_app(**{"search_model_refresh_seconds": BACKSTOP_SECONDS, **changes})
    return application.test_client(), services_of(application).search_model


def held_within(model, hotels: int, seconds: float = 20) -> None:
    began = time.monotonic()
    while model.held() < hotels:
        assert time.monotonic() - began < seconds, f"{model.held()} hotels held, not {hotels}"
        time.sleep(0.05)


def test_a_restored_model_holds_the_copy_and_reflects_the_writes_since(make_app, keys, lisbon):
    pull = keys["pull"]
    writer, written = model_of(make_app)
    assert first_night(writer, pull) == (5, 100.0)        # LIS1 loaded into the writer's model
    assert written.write_snapshot() > 0
    assert book(writer, pull, "AFTER-SNAPSHOT").status_code == 201   # acknowledged after it

    reader, restored = model_of(make_app)
    assert restored.restore_snapshot()
    assert restored.held() == 1                            # held without a day row read
    from_model = RATES.labels("model")._value.get()
    assert first_night(reader, pull) == (4, 100.0)        # the booking since the snapshot
    assert RATES.labels("model")._value.get() == from_model + 1


def test_a_hotel_rewritten_while_the_snapshot_is_written_is_left_out(make_app, keys, lisbon,
                                                                     db, settings):
    """The pickle is written outside the model's lock: a catch-up that rewrites a hotel's days
    in place meanwhile may tear what was pickled of them, so every hotel a catch-up changes
    then is left out. LIS1 always is; OPO1 too when the catch-up replays the catalogue's
    changes from above the horizon (a transaction of another database on the same server
    holds the horizon back: the tests run side by side)."""
    pull = keys["pull"]
    writer, written = model_of(make_app, search_model_refresh_seconds=0)  # each catch-up full
    written.preload()
    held_within(written, 2)                                # LIS1 and OPO1

    class RewrittenMeanwhile(SnapshotStore):
        def write(self, hotels, dump):
            set_plan_days(db, "LIS1", "DBL", "BAR", [day(0)], rate="130.00")
            written.refresh(None)                          # a catch-up rewrites LIS1's days
            return super().write(hotels, dump)
    written._snapshots = RewrittenMeanwhile(db, settings.secret_key,
                                            settings.search_model_window_days)
    assert written.write_snapshot() > 0

    reader, restored = model_of(make_app)
    assert restored.restore_snapshot()
    assert restored.held() <= 1                            # OPO1 at most
    assert first_night(reader, pull) == (5, 130.0)        # LIS1 read from the database


def test_a_snapshot_is_read_back_as_compact_as_the_copy_it_was_taken_of(
        make_app, keys, lisbon, db, settings, monkeypatch):
    """Each hotel in a batch of its own (snapshot_pickling.py), unpickled with its own memo:
    what batches share stays one object, the small arrays own their data, and the arenas hold
    no room to grow into. The days and offers come back equal."""
    monkeypatch.setattr(snapshot_pickling, "BATCH_HOTELS", 1)
    _, written = model_of(make_app)
    written.preload()
    held_within(written, 2)                                # LIS1 and OPO1
    began = time.monotonic()
    while written.write_snapshot() is None:                # the loader still letting go
        assert time.monotonic() - began < 20, "no snapshot written"
        time.sleep(0.05)
    store = SnapshotStore(db, settings.secret_key, settings.search_model_window_days)
    with store.reading() as stored:
        state = load_state(stored.stream)

    grids, arenas = state["grids"], state["by_width"]
    assert sorted(grids) == sorted(written._grids)
    for pid, grid in grids.items():
        assert any(grid.arena is arena for arena in arenas)
        assert grid.offer_room_type.flags.owndata
        assert all(m.rows.flags.owndata for m in grid.mappings)
        loaded = written._grids[pid]
        assert grid.offers == loaded.offers
        for restored_days, loaded_days in zip(grid.dense(), loaded.dense()):
            np.testing.assert_array_equal(restored_days, loaded_days)
    held = [h for codes in state["codes"].values() for h in codes.values()]
    assert sorted(h.code for h in held) == sorted(
        h.code for codes in written._codes.values() for h in codes.values())
    for h in held:
        assert h.grid is grids[h.grid.property_id] and h.arena is h.grid.arena
        assert h.columns.flags.owndata
    offers = [o for grid in grids.values() for o in grid.offers]
    assert len({id(o.currency) for o in offers}) == len({o.currency for o in offers})
    assert len({id(o.blocked_nationalities) for o in offers}) == len(
        {o.blocked_nationalities for o in offers})
    for arena in arenas:
        for column, rows in ((arena.money, arena.offer_rows), (arena.plan, arena.offer_rows),
                             (arena.room, arena.room_rows)):
            assert column.index.shape[1] == len(column.base) == rows
            assert column.palette.shape[1] == column.palette_used
            # Copies of their own: a view would keep the whole array with its room alive.
            assert column.index.base is None and column.palette.base is None
        assert len(arena.room_of) == arena.statics.shape[1] == arena.offer_rows


def test_a_snapshot_replaced_while_it_is_read_is_read_whole(make_app, keys, lisbon, db,
                                                             settings):
    """Its chunks are read again as they are unpickled, after the signature was checked: in the
    same transaction, so a newer snapshot sealed meanwhile (which deletes it) takes none."""
    writer, written = model_of(make_app)
    assert first_night(writer, keys["pull"]) == (5, 100.0)
    assert written.write_snapshot() > 0
    store = SnapshotStore(db, settings.secret_key, settings.search_model_window_days)
    with store.reading() as stored:
        assert written.write_snapshot() > 0                # sealed, and the older deleted
        assert snapshots(db) == 1
        state = load_state(stored.stream)
    assert sorted(state["grids"]) == sorted(written._grids)


def test_a_snapshot_of_another_key_or_other_code_is_not_used(make_app, keys, lisbon, settings):
    writer, written = model_of(make_app)
    assert first_night(writer, keys["pull"]) == (5, 100.0)
    assert written.write_snapshot() > 0
    _, other_key = model_of(make_app, secret_key="another-" + settings.secret_key)
    assert not other_key.restore_snapshot()
    _, other_code = model_of(make_app, search_model_window_days=300)  # another format
    assert not other_code.restore_snapshot()
    assert other_key.held() == other_code.held() == 0


def test_a_snapshot_whose_changes_were_pruned_is_not_used(make_app, keys, lisbon, db):
    writer, written = model_of(make_app)
    assert first_night(writer, keys["pull"]) == (5, 100.0)
    assert written.write_snapshot() > 0
    set_plan_days(db, "LIS1", "DBL", "BAR", [day(0)], rate="110.00")
    with db.connection() as conn:  # pruning deleted the changes up to now, as prune_changes
        conn.execute("INSERT INTO change_log_pruned (origin, through_xid) "
                     "SELECT DISTINCT ON (origin) origin, xid FROM change_log "
                     "ORDER BY origin, xid DESC")
    _, restored = model_of(make_app)
    assert not restored.restore_snapshot()
    assert restored.held() == 0


def test_the_host_writes_a_snapshot_and_a_host_that_starts_empty_reads_it(
        make_app, settings, keys, lisbon, db, tmp_path):
    """The second host loads nothing of itself (no preload, no search yet), so the hotels it
    holds are the snapshot's; what changed since is read before it answers."""
    environment = {"SEARCH_MODEL_SNAPSHOT_SECONDS": "1",
                   "SEARCH_MODEL_REFRESH_SECONDS": str(BACKSTOP_SECONDS)}
    with model_host(settings, tmp_path, SEARCH_MODEL_PRELOAD="on", **environment):
        began = time.monotonic()
        while not snapshots(db):
            assert time.monotonic() - began < 30, "the host wrote no snapshot"
            time.sleep(0.2)
    set_plan_days(db, "LIS1", "DBL", "BAR", [day(0)], rate="120.00")
    with model_host(settings, tmp_path, **environment):
        application = make_app(search_model_socket=str(tmp_path / "host.sock"))
        held_within(services_of(application).search_model, 2)
        assert first_night(application.test_client(), keys["pull"]) == (5, 120.0)


def snapshots(db) -> int:
    with db.connection() as conn:
        return conn.execute("SELECT count(*) AS n FROM search_model_snapshots "
                            "WHERE signature IS NOT NULL").fetchone()["n"]


def test_an_offer_pickles_every_field():
    """Offer's own __reduce__ (grid.py) lists its fields: one added must be added there too."""
    offer = Offer(101, 202, "EUR", 2, 2, 3, 1, 4, frozenset({"PT"}), frozenset({"XX"}))
    assert len(offer.__reduce__()[1]) == len(dataclasses.fields(Offer))
    assert pickle.loads(pickle.dumps(offer, protocol=5)) == offer
