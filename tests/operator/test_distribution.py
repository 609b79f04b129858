"""`distribution pause|resume --partner CODE --property CODE` (contract section 9)."""

from __future__ import annotations

import pytest

from tests.operator.conftest import output_of


def states(pg):
    """Every mapping's distribution state, but the demo's channel manager's (lisboa-cm), which
    none of these tests touches."""
    return {(pa, pr): active for pa, pr, active in pg.execute(
        "SELECT pa.code, pr.code, pp.distribution_active FROM partner_properties pp "
        "JOIN partners pa ON pa.id = pp.partner_id JOIN properties pr ON pr.id = pp.property_id "
        "WHERE pa.code <> 'lisboa-cm'")}


def run(cli, action, partner="acme", prop="LIS1"):
    return cli("distribution", action, "--partner", partner, "--property", prop)


def test_pause_and_resume_change_only_that_mapping(cli, catalog, pg):
    assert states(pg) == {("acme", "LIS1"): True, ("acme", "OPO1"): True}

    result = run(cli, "pause")
    assert result.exit_code == 0, output_of(result)
    assert states(pg) == {("acme", "LIS1"): False, ("acme", "OPO1"): True}

    result = run(cli, "resume")
    assert result.exit_code == 0, output_of(result)
    assert states(pg) == {("acme", "LIS1"): True, ("acme", "OPO1"): True}


def test_pause_and_resume_are_idempotent(cli, catalog, pg):
    for _ in range(2):
        assert run(cli, "pause", prop="OPO1").exit_code == 0
        assert states(pg)[("acme", "OPO1")] is False
    for _ in range(2):
        assert run(cli, "resume", prop="OPO1").exit_code == 0
        assert states(pg)[("acme", "OPO1")] is True


def test_pause_of_one_partner_leaves_another_partners_mapping(cli, catalog, pg, write_catalog):
    other = write_catalog({"partners": [{"code": "globex", "name": "Globex", "mappings": [
        {"property": "LIS1", "hotel_code": "G-LIS", "room_types": {"DBL": "G-DBL"}}]}]})
    assert cli("catalog", "load", other).exit_code == 0
    assert run(cli, "pause", partner="globex").exit_code == 0
    assert states(pg) == {("acme", "LIS1"): True, ("acme", "OPO1"): True,
                          ("globex", "LIS1"): False}


@pytest.mark.parametrize("action", ["pause", "resume"])
@pytest.mark.parametrize("partner, prop", [
    ("nobody", "LIS1"),        # unknown partner
    ("acme", "NOWHERE"),       # unknown property
    ("globex", "LIS1"),        # both exist, no mapping between them
])
def test_no_such_mapping_fails_with_a_message(cli, catalog, pg, write_catalog, action, partner,
                                              prop):
    assert cli("catalog", "load", write_catalog(
        {"partners": [{"code": "globex", "name": "Globex"}]})).exit_code == 0
    before = states(pg)
    result = run(cli, action, partner=partner, prop=prop)
    text = output_of(result)
    assert result.exit_code != 0, text
    assert partner in text and prop in text, text
    assert "Traceback" not in text
    assert states(pg) == before
