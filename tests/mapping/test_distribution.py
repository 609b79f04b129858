"""The distribution use case (connectivity/mapping/distribution.py): a pause or resume changes one
mapping, and the change feed hears of a change of state only."""

from __future__ import annotations

from connectivity.mapping.distribution import set_distribution


def distribution_changes(db) -> int:
    with db.connection() as conn:
        return conn.execute("SELECT count(*) AS n FROM change_log "
                            "WHERE kinds = ARRAY['distribution']").fetchone()["n"]


def test_a_change_of_state_is_recorded_once(db, catalog):
    row = db.run(set_distribution, "acme", "LIS1", False)
    assert (row["hotel_code"], row["distribution_active"], row["changed"]) == (
        "ACME-LIS", False, True)
    assert db.run(set_distribution, "acme", "LIS1", False)["changed"] is False
    assert distribution_changes(db) == 1
    assert db.run(set_distribution, "acme", "LIS1", True)["changed"] is True
    assert distribution_changes(db) == 2


def test_no_mapping_is_none_and_records_nothing(db, catalog):
    assert db.run(set_distribution, "acme", "NOWHERE", False) is None
    assert db.run(set_distribution, "nobody", "LIS1", True) is None
    assert distribution_changes(db) == 0


def test_the_hotel_code_names_the_same_mapping_as_the_property_code(db, catalog):
    row = db.run(set_distribution, "acme", "ACME-LIS", False)
    assert (row["property_code"], row["hotel_code"], row["changed"]) == ("LIS1", "ACME-LIS", True)
    assert db.run(set_distribution, "acme", "LIS1", False)["changed"] is False
    assert distribution_changes(db) == 1
