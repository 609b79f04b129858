"""`catalog list [--json]`: partners, properties and mappings with their state."""

from __future__ import annotations

import json

from tests.operator.conftest import demo_data, output_of


def listed(cli) -> dict:
    result = cli("catalog", "list", "--json")
    assert result.exit_code == 0, output_of(result)
    return json.loads(result.output)


def test_lists_what_the_catalogue_file_loaded(cli, catalog):
    data = demo_data()
    shown = listed(cli)
    assert [p["code"] for p in shown["partners"]] == sorted(p["code"] for p in data["partners"])
    assert {p["code"]: (p["environment"], p["room_types"], p["rate_plans"])
            for p in shown["properties"]} == {
        p["code"]: (p["environment"], len(p["room_types"]), len(p["rate_plans"]))
        for p in data["properties"]}
    assert sorted((m["partner_code"], m["property_code"], m["hotel_code"], m["state"])
                  for m in shown["mappings"]) == sorted(
        (p["code"], m["property"], m["hotel_code"], "active" if m.get("active", True) else "paused")
        for p in data["partners"] for m in p.get("mappings", []))


def test_shows_a_pause_and_the_active_keys(cli, catalog, issue):
    kept, revoked = issue("pull"), issue("push")
    assert cli("keys", "revoke", revoked.key_id).exit_code == 0
    assert cli("distribution", "pause", "--partner", "acme", "--property", "OPO1").exit_code == 0
    shown = listed(cli)
    acme = next(p for p in shown["partners"] if p["code"] == "acme")
    assert (acme["active_keys"], acme["keys"]) == (1, 2)
    states = {m["property_code"]: m["state"] for m in shown["mappings"]
              if m["partner_code"] == "acme"}
    assert states == {"LIS1": "active", "OPO1": "paused"}

    result = cli("catalog", "list")
    text = output_of(result)
    assert result.exit_code == 0, text
    assert "paused" in text and "ACME-OPO" in text and "1 active key(s) of 2" in text
    assert kept.token.partition(".")[2] not in text


def test_shows_which_mappings_receive_their_hotels_bookings(cli, catalog):
    data = demo_data()
    shown = listed(cli)
    assert {(m["partner_code"], m["property_code"]): m["receives_bookings"]
            for m in shown["mappings"]} == {
        (p["code"], m["property"]): m.get("receives_bookings", False)
        for p in data["partners"] for m in p.get("mappings", [])}
    assert any(m["receives_bookings"] for m in shown["mappings"])   # lisboa-cm's of LIS1
    result = cli("catalog", "list")
    assert result.exit_code == 0, output_of(result)
    lines = [line for line in result.output.splitlines() if "receives bookings" in line]
    assert [line.split()[:2] for line in lines] == [
        [m["partner_code"], m["property_code"]] for m in shown["mappings"]
        if m["receives_bookings"]]


def test_an_empty_catalogue_lists_nothing(cli):
    assert listed(cli) == {"partners": [], "properties": [], "mappings": []}
