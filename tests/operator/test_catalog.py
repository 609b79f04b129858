"""`catalog load FILE.json` (contract section 9): idempotent upsert, all or nothing, named fields."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tests.operator.conftest import CATALOG_TABLES, demo_data, output_of, snapshot


def load(cli, write_catalog, data):
    return cli("catalog", "load", write_catalog(data))


def assert_loaded(result):
    assert result.exit_code == 0, (result.exit_code, output_of(result), result.exception)


def mapping_row(pg, partner, prop):
    return pg.execute(
        "SELECT pp.id, pp.hotel_code, pp.distribution_active, pp.environment "
        "FROM partner_properties pp JOIN partners pa ON pa.id = pp.partner_id "
        "JOIN properties pr ON pr.id = pp.property_id WHERE pa.code = %s AND pr.code = %s",
        (partner, prop)).fetchone()


def mapped_codes(pg, partner, prop):
    rooms = pg.execute(
        "SELECT rt.code, prt.room_type_code FROM partner_room_types prt "
        "JOIN room_types rt ON rt.id = prt.room_type_id "
        "JOIN partner_properties pp ON pp.id = prt.mapping_id "
        "JOIN partners pa ON pa.id = pp.partner_id JOIN properties pr ON pr.id = pp.property_id "
        "WHERE pa.code = %s AND pr.code = %s", (partner, prop)).fetchall()
    plans = pg.execute(
        "SELECT rp.code, prp.rate_plan_code FROM partner_rate_plans prp "
        "JOIN rate_plans rp ON rp.id = prp.rate_plan_id "
        "JOIN partner_properties pp ON pp.id = prp.mapping_id "
        "JOIN partners pa ON pa.id = pp.partner_id JOIN properties pr ON pr.id = pp.property_id "
        "WHERE pa.code = %s AND pr.code = %s", (partner, prop)).fetchall()
    return dict(rooms), dict(plans)


def changed_catalog() -> dict:
    """The demo catalogue with every name, limit and rate changed and one property more: a file
    that, if any part of it were written, would leave a visible trace."""
    data = demo_data()
    for prop in data["properties"]:
        prop["name"] += " (v2)"
        prop["max_child_age"] = 9
        for room in prop["room_types"]:
            room["name"] += " (v2)"
        for plan in prop["rate_plans"]:
            plan["name"] += " (v2)"
    for partner in data["partners"]:
        partner["name"] += " (v2)"
    data["fx_rates"] = [{"base": "EUR", "quote": "USD", "rate": "1.2000"},
                        {"base": "EUR", "quote": "GBP", "rate": "0.9000"},
                        {"base": "USD", "quote": "JPY", "rate": "150.25"}]
    data["properties"].append(
        {"code": "FAO1", "name": "Faro Marina", "environment": "sandbox", "country": "PT",
         "timezone": "Europe/Lisbon", "currency": "EUR", "max_child_age": 10,
         "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 3}],
         "rate_plans": [{"code": "BAR", "name": "Flexible", "board_type": "RO", "currency": "EUR",
                         "room_types": ["DBL"], "base_adults": 2, "max_adults": 2,
                         "max_children": 1, "max_occupancy": 3,
                         "cancellation_policy": {"non_refundable": True, "tiers": []}}]})
    data["partners"][0]["mappings"].append(
        {"property": "FAO1", "hotel_code": "ACME-FAO", "active": True,
         "room_types": {"DBL": "ACME-FAO-DBL"}, "rate_plans": {"BAR": "ACME-FAO-BAR"}})
    data["partners"].append({"code": "globex", "name": "Globex", "mappings": [
        {"property": "LIS1", "hotel_code": "G-LIS", "room_types": {"DBL": "G-DBL"},
         "rate_plans": {"BAR": "G-BAR"}}]})
    return data


# --------------------------------------------------------------------------- idempotence


def test_loading_the_demo_catalogue_twice_gives_the_same_state(cli, write_catalog, pg):
    path = write_catalog(demo_data())
    first = cli("catalog", "load", path)
    assert_loaded(first)
    before = snapshot(pg)
    for table in CATALOG_TABLES:
        assert before[table], f"the demo catalogue left {table} empty"

    second = cli("catalog", "load", path)
    assert_loaded(second)
    after = snapshot(pg)
    assert after == before

    summary = output_of(second)
    assert summary.strip(), "no summary line"
    assert "2 properties" in summary and "2 partners" in summary, summary
    assert "3 mappings" in summary and "3 fx_rates" in summary, summary


def test_the_demo_catalogue_is_loaded_as_written(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    props = pg.execute("SELECT code, name, environment, country, timezone, currency, "
                       "max_child_age FROM properties ORDER BY code").fetchall()
    assert props == [("LIS1", "Lisboa Centro", "sandbox", "PT", "Europe/Lisbon", "EUR", 11),
                     ("OPO1", "Porto Ribeira", "sandbox", "PT", "Europe/Lisbon", "EUR", 12)]
    plans = pg.execute(
        "SELECT pr.code, rp.code, rp.board_type, rp.base_adults, rp.max_adults, rp.max_children, "
        "rp.max_occupancy, rp.cancellation_policy FROM rate_plans rp "
        "JOIN properties pr ON pr.id = rp.property_id ORDER BY 1, 2").fetchall()
    assert plans == [
        ("LIS1", "BAR", "BB", 2, 3, 2, 4, {"non_refundable": False, "tiers": [
            {"within_hours": 48, "penalty": {"type": "nights", "value": 1}}]}),
        ("LIS1", "NRF", "RO", 2, 2, 2, 4, {"non_refundable": True, "tiers": []}),
        ("LIS1", "RES", "BB", 2, 2, 2, 4, {"non_refundable": False, "tiers": [
            {"within_hours": 24, "penalty": {"type": "nights", "value": 1}}]}),
        ("LIS1", "USD", "RO", 2, 3, 2, 4, {"non_refundable": False, "tiers": [
            {"within_hours": 72, "penalty": {"type": "amount", "value": 50}}]}),
        ("OPO1", "BAR", "HB", 2, 2, 0, 2, {"non_refundable": False, "tiers": [
            {"within_hours": 24, "penalty": {"type": "percent", "value": 50}}]}),
    ]
    sells = pg.execute(
        "SELECT pr.code, rp.code, rt.code FROM rate_plan_room_types x "
        "JOIN rate_plans rp ON rp.id = x.rate_plan_id JOIN room_types rt ON rt.id = x.room_type_id "
        "JOIN properties pr ON pr.id = x.property_id ORDER BY 1, 2, 3").fetchall()
    assert sells == [("LIS1", "BAR", "DBL"), ("LIS1", "BAR", "SGL"), ("LIS1", "NRF", "DBL"),
                     ("LIS1", "RES", "DBL"), ("LIS1", "USD", "DBL"), ("OPO1", "BAR", "TWN")]
    assert mapping_row(pg, "acme", "LIS1")[1:] == ("ACME-LIS", True, "sandbox")
    assert mapped_codes(pg, "acme", "LIS1") == (
        {"DBL": "ACME-DBL", "SGL": "ACME-SGL"}, {"BAR": "ACME-BAR", "NRF": "ACME-NRF", "RES": "ACME-RES",
                                              "USD": "ACME-USD"})
    assert mapped_codes(pg, "acme", "OPO1") == ({"TWN": "ACME-TWN"}, {"BAR": "ACME-OPO-BAR"})


def test_fx_rate_is_stored_exactly_as_a_numeric(cli, write_catalog, pg):
    data = demo_data()
    data["fx_rates"].append({"base": "USD", "quote": "JPY", "rate": 149.1234567891})  # a JSON number
    assert_loaded(load(cli, write_catalog, data))
    rows = dict(((b, q), r) for b, q, r in pg.execute("SELECT base, quote, rate FROM fx_rates"))
    assert isinstance(rows[("EUR", "USD")], Decimal)
    assert rows[("EUR", "USD")] == Decimal("1.0850")
    assert rows[("EUR", "GBP")] == Decimal("0.8600")
    assert rows[("USD", "JPY")] == Decimal("149.1234567891")
    assert pg.execute("SELECT pg_typeof(rate)::text, rate = 1.0850 FROM fx_rates "
                      "WHERE base = 'EUR' AND quote = 'USD'").fetchone() == ("numeric", True)


def test_a_reload_updates_names_and_limits(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    ids_before = dict(pg.execute("SELECT code, id FROM properties").fetchall())
    plan_ids_before = sorted(pg.execute("SELECT id FROM rate_plans").fetchall())

    data = demo_data()
    lis = data["properties"][0]
    lis["name"] = "Lisboa Baixa"
    lis["max_child_age"] = 7
    lis["timezone"] = "Europe/Madrid"
    lis["room_types"][0]["name"] = "Double Deluxe"
    lis["room_types"][0]["max_occupancy"] = 5
    bar = lis["rate_plans"][0]
    bar.update(name="Flexible+", board_type="HB", max_adults=4, max_occupancy=5, max_children=3,
               room_types=["DBL"], blocked_nationalities=["RU"])
    data["partners"][0]["name"] = "Acme Travel Ltd"
    data["partners"][0]["mappings"][0]["hotel_code"] = "ACME-LISBOA"
    data["fx_rates"][0]["rate"] = "1.0912"
    assert_loaded(load(cli, write_catalog, data))

    assert pg.execute("SELECT name, max_child_age, timezone FROM properties WHERE code = 'LIS1'"
                      ).fetchone() == ("Lisboa Baixa", 7, "Europe/Madrid")
    assert dict(pg.execute("SELECT code, id FROM properties").fetchall()) == ids_before
    assert sorted(pg.execute("SELECT id FROM rate_plans").fetchall()) == plan_ids_before
    assert pg.execute(
        "SELECT rt.name, rt.max_occupancy FROM room_types rt JOIN properties p "
        "ON p.id = rt.property_id WHERE p.code = 'LIS1' AND rt.code = 'DBL'"
    ).fetchone() == ("Double Deluxe", 5)
    assert pg.execute(
        "SELECT rp.name, rp.board_type, rp.max_adults, rp.max_occupancy, rp.max_children, "
        "rp.blocked_nationalities FROM rate_plans rp JOIN properties p ON p.id = rp.property_id "
        "WHERE p.code = 'LIS1' AND rp.code = 'BAR'"
    ).fetchone() == ("Flexible+", "HB", 4, 5, 3, ["RU"])
    # The rate plan now sells exactly the listed room types.
    assert [r[0] for r in pg.execute(
        "SELECT rt.code FROM rate_plan_room_types x JOIN rate_plans rp ON rp.id = x.rate_plan_id "
        "JOIN room_types rt ON rt.id = x.room_type_id JOIN properties p ON p.id = rp.property_id "
        "WHERE p.code = 'LIS1' AND rp.code = 'BAR'")] == ["DBL"]
    assert pg.execute("SELECT name FROM partners WHERE code = 'acme'").fetchone() == (
        "Acme Travel Ltd",)
    assert mapping_row(pg, "acme", "LIS1")[1] == "ACME-LISBOA"
    assert pg.execute("SELECT rate FROM fx_rates WHERE base = 'EUR' AND quote = 'USD'"
                      ).fetchone() == (Decimal("1.0912"),)


# --------------------------------------------------------------------------- invalid files


def _set(path: str, value):
    """A mutation setting `path` (dotted, list indexes as numbers) of the changed catalogue."""
    def mutate(data):
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


def _duplicate_property(data):
    dup = json.loads(json.dumps(data["properties"][1]))
    dup["code"] = "LIS1"
    data["properties"].append(dup)


def _second_mapping_same_hotel_code(data):
    data["partners"][0]["mappings"][1]["hotel_code"] = "ACME-LIS"


INVALID = [
    ("base_adults_over_max_adults", _set("properties.0.rate_plans.0.base_adults", 4),
     "properties.0.rate_plans.0.base_adults"),
    ("unknown_board_type", _set("properties.0.rate_plans.1.board_type", "XB"),
     "properties.0.rate_plans.1.board_type"),
    ("bad_property_currency", _set("properties.1.currency", "EURO"), "properties.1.currency"),
    ("bad_rate_plan_currency", _set("properties.0.rate_plans.0.currency", "EURO"),
     "properties.0.rate_plans.0.currency"),
    ("unknown_currency_code", _set("properties.0.currency", "XYZ"), "properties.0.currency"),
    ("bad_fx_currency", _set("fx_rates.1.quote", "EURO"), "fx_rates.1.quote"),
    ("bad_country", _set("properties.1.country", "XX"), "properties.1.country"),
    ("lowercase_country", _set("properties.0.country", "pt"), "properties.0.country"),
    ("bad_timezone", _set("properties.2.timezone", "Europe/Atlantis"), "properties.2.timezone"),
    ("rate_plan_unknown_room_type", _set("properties.0.rate_plans.1.room_types", ["DBL", "STE"]),
     "properties.0.rate_plans.1.room_types"),
    ("rate_plan_room_type_of_other_property",
     _set("properties.2.rate_plans.0.room_types", ["TWN"]), "properties.2.rate_plans.0.room_types"),
    ("mapping_to_unknown_property", _set("partners.0.mappings.2.property", "NOWHERE1"),
     "partners.0.mappings.2.property"),
    ("mapping_unknown_room_type", _set("partners.1.mappings.0.room_types",
                                       {"DBL": "G-DBL", "TWN": "G-TWN"}),
     "partners.1.mappings.0.room_types"),
    ("mapping_unknown_rate_plan", _set("partners.0.mappings.1.rate_plans", {"NRF": "X-NRF"}),
     "partners.0.mappings.1.rate_plans"),
    ("duplicate_property_code", _duplicate_property, "properties.3.code"),
    ("hotel_code_with_slash", _set("partners.0.mappings.0.hotel_code", "ACME/LIS"),
     "partners.0.mappings.0.hotel_code"),
    ("room_type_code_with_slash", _set("partners.0.mappings.0.room_types",
                                       {"DBL": "ACME/DBL"}),
     "partners.0.mappings.0.room_types"),
    ("hotel_code_taken_by_another_property", _second_mapping_same_hotel_code,
     "partners.0.mappings.1.hotel_code"),
    ("fx_rate_zero", _set("fx_rates.0.rate", "0"), "fx_rates.0.rate"),
    ("fx_rate_negative", _set("fx_rates.2.rate", "-1.5"), "fx_rates.2.rate"),
    ("fx_rate_not_a_number", _set("fx_rates.0.rate", "abc"), "fx_rates.0.rate"),
    ("missing_property_name", lambda d: d["properties"][2].pop("name"), "properties.2.name"),
    ("max_adults_over_max_occupancy", _set("properties.1.rate_plans.0.max_adults", 3),
     "properties.1.rate_plans.0.max_adults"),
    # priced in a currency its EUR property has no FX rate to: never shown in the hotel's own
    ("rate_plan_currency_without_fx", _set("properties.0.rate_plans.0.currency", "CHF"),
     "properties.0.rate_plans.0.currency"),
]


@pytest.mark.parametrize("mutate, field", [pytest.param(m, f, id=i) for i, m, f in INVALID])
def test_an_invalid_catalogue_changes_nothing_and_names_the_field(cli, write_catalog, pg,
                                                                   mutate, field):
    assert_loaded(load(cli, write_catalog, demo_data()))
    # The unmutated file is valid: it loads. What it stored is the state to keep.
    assert_loaded(load(cli, write_catalog, changed_catalog()))
    before = snapshot(pg)

    # The next file differs from what is stored in valid places too, so a partial write shows.
    data = changed_catalog()
    data["properties"][0]["name"] = "Lisboa (v3)"
    data["partners"][0]["name"] = "Acme (v3)"
    data["fx_rates"][0]["rate"] = "1.3333"
    mutate(data)

    result = cli("catalog", "load", write_catalog(data))
    text = output_of(result)
    assert result.exit_code != 0, text
    assert field in text, (field, text, repr(result.exception))
    assert snapshot(pg) == before


def test_an_invalid_catalogue_changes_nothing_on_an_empty_database(cli, write_catalog, pg):
    data = changed_catalog()
    data["partners"][0]["mappings"][0]["room_types"]["STE"] = "ACME-STE"  # loader-level error
    result = cli("catalog", "load", write_catalog(data))
    assert result.exit_code != 0
    assert "partners.0.mappings.0.room_types" in output_of(result)
    assert all(rows == [] for rows in snapshot(pg).values()), snapshot(pg)


def test_malformed_json_changes_nothing(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    before = snapshot(pg)
    text = json.dumps(changed_catalog())
    for broken in (text[:-5], "{'properties': []}", "", "[1, 2]"):
        result = cli("catalog", "load", write_catalog(broken))
        out = output_of(result)
        assert result.exit_code != 0, (broken[:40], out)
        assert "file" in out, out
        assert "Traceback" not in out
        assert snapshot(pg) == before


def test_a_valid_first_property_is_not_written_when_the_second_is_invalid(cli, write_catalog, pg):
    data = changed_catalog()
    # Property 0 (LIS1) is valid and loaded first; property 1 (OPO1) fails in the loader, after
    # property 0 has been written inside the transaction.
    data["properties"][1]["rate_plans"][0]["room_types"] = ["TWN", "DBL"]
    result = cli("catalog", "load", write_catalog(data))
    assert result.exit_code != 0
    assert "properties.1.rate_plans.0.room_types" in output_of(result)
    assert pg.execute("SELECT count(*) FROM properties").fetchone() == (0,)
    assert all(rows == [] for rows in snapshot(pg).values())


def test_a_valid_first_property_is_not_written_when_the_second_fails_validation(
        cli, write_catalog, pg):
    data = changed_catalog()
    data["properties"][1]["timezone"] = "Nowhere/Special"
    result = cli("catalog", "load", write_catalog(data))
    assert result.exit_code != 0
    assert "properties.1.timezone" in output_of(result)
    assert all(rows == [] for rows in snapshot(pg).values())


def test_an_error_in_the_last_mapping_rolls_back_everything_before_it(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    before = snapshot(pg)
    data = changed_catalog()
    data["partners"][1]["mappings"][0]["rate_plans"] = {"BAR": "G-BAR", "XXX": "G-XXX"}
    result = cli("catalog", "load", write_catalog(data))
    assert result.exit_code != 0
    assert "partners.1.mappings.0.rate_plans" in output_of(result)
    assert snapshot(pg) == before


def test_a_property_never_changes_environment(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    before = snapshot(pg)
    data = changed_catalog()
    data["properties"][1]["environment"] = "production"
    result = cli("catalog", "load", write_catalog(data))
    text = output_of(result)
    assert result.exit_code != 0, text
    assert "properties.1.environment" in text, text
    assert snapshot(pg) == before
    assert pg.execute("SELECT environment FROM properties WHERE code = 'OPO1'").fetchone() == (
        "sandbox",)


def test_a_production_property_and_mapping_can_be_loaded(cli, write_catalog, pg):
    data = demo_data()
    data["properties"][1]["environment"] = "production"
    assert_loaded(load(cli, write_catalog, data))
    assert mapping_row(pg, "acme", "OPO1")[3] == "production"
    assert mapping_row(pg, "acme", "LIS1")[3] == "sandbox"


# ------------------------------------------------------- values the database cannot hold


def _rename_new_property(data):
    data["properties"][2]["code"] = "FAO1\n"
    data["partners"][0]["mappings"][2]["property"] = "FAO1\n"


@pytest.mark.parametrize("mutate, field", [
    # Python's `$` matches before a trailing newline; the database's CHECK does not.
    pytest.param(_rename_new_property, "properties.2.code", id="property_code_trailing_newline"),
    pytest.param(_set("partners.0.mappings.0.hotel_code", "ACME-LIS\n"),
                 "partners.0.mappings.0.hotel_code", id="hotel_code_trailing_newline"),
    pytest.param(_set("partners.1.code", "globex\n"), "partners.1.code",
                 id="partner_code_trailing_newline"),
    # U+0085 is a control character (Unicode category Cc).
    pytest.param(_set("partners.0.mappings.0.hotel_code", "ACME\u0085LIS"),
                 "partners.0.mappings.0.hotel_code", id="hotel_code_c1_control_character"),
    # numeric(20, 10): 1e-11 rounds to 0 (CHECK rate > 0), 1e10 overflows.
    pytest.param(_set("fx_rates.0.rate", "0.00000000001"), "fx_rates.0.rate",
                 id="fx_rate_rounds_to_zero"),
    pytest.param(_set("fx_rates.0.rate", "12345678901.5"), "fx_rates.0.rate",
                 id="fx_rate_too_large"),
])
def test_a_value_the_database_cannot_hold_is_rejected_by_field(cli, write_catalog, pg, mutate,
                                                               field):
    """An invalid value must be refused like any other: its field named, exit code != 0, nothing
    changed, and not a database error escaping the command."""
    assert_loaded(load(cli, write_catalog, demo_data()))
    before = snapshot(pg)
    data = changed_catalog()
    mutate(data)
    result = cli("catalog", "load", write_catalog(data))
    text = output_of(result)
    assert result.exit_code != 0
    assert snapshot(pg) == before
    assert field in text, (text, repr(result.exception))


def test_an_fx_rate_is_stored_exactly_or_refused(cli, write_catalog, pg):
    """numeric(20, 10) keeps 10 decimals: a rate with more must not be silently rounded."""
    data = demo_data()
    data["fx_rates"][0]["rate"] = "1.085012345678"
    result = load(cli, write_catalog, data)
    if result.exit_code == 0:
        assert pg.execute("SELECT rate FROM fx_rates WHERE base = 'EUR' AND quote = 'USD'"
                          ).fetchone() == (Decimal("1.085012345678"),)
    else:
        assert "fx_rates.0.rate" in output_of(result)
        assert all(rows == [] for rows in snapshot(pg).values())


# --------------------------------------------------------------------- distribution state


def test_active_false_on_first_load_creates_a_paused_mapping(cli, write_catalog, pg):
    data = demo_data()
    data["partners"][0]["mappings"][1]["active"] = False
    assert_loaded(load(cli, write_catalog, data))
    assert mapping_row(pg, "acme", "OPO1")[2] is False
    assert mapping_row(pg, "acme", "LIS1")[2] is True

    # A reload saying active: true does not resume it.
    assert_loaded(load(cli, write_catalog, demo_data()))
    assert mapping_row(pg, "acme", "OPO1")[2] is False


def test_active_defaults_to_true(cli, write_catalog, pg):
    data = demo_data()
    del data["partners"][0]["mappings"][0]["active"]
    assert_loaded(load(cli, write_catalog, data))
    assert mapping_row(pg, "acme", "LIS1")[2] is True


def test_a_reload_never_resumes_a_pause_only_distribution_resume_does(cli, write_catalog, pg):
    path = write_catalog(demo_data())
    assert_loaded(cli("catalog", "load", path))
    paused = cli("distribution", "pause", "--partner", "acme", "--property", "LIS1")
    assert paused.exit_code == 0, output_of(paused)
    assert mapping_row(pg, "acme", "LIS1")[2] is False

    assert_loaded(cli("catalog", "load", path))   # the file says active: true
    assert mapping_row(pg, "acme", "LIS1")[2] is False
    assert mapping_row(pg, "acme", "OPO1")[2] is True

    resumed = cli("distribution", "resume", "--partner", "acme", "--property", "LIS1")
    assert resumed.exit_code == 0, output_of(resumed)
    assert mapping_row(pg, "acme", "LIS1")[2] is True


def test_a_reload_with_active_false_does_not_pause_an_existing_mapping(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    data = demo_data()
    data["partners"][0]["mappings"][0]["active"] = False
    assert_loaded(load(cli, write_catalog, data))
    assert mapping_row(pg, "acme", "LIS1")[2] is True


# ------------------------------------------------------------------------ mapping codes


def test_a_room_type_code_dropped_from_the_file_disappears(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    mapping_id = mapping_row(pg, "acme", "LIS1")[0]
    data = demo_data()
    data["partners"][0]["mappings"][0]["room_types"] = {"DBL": "ACME-DBL"}
    data["partners"][0]["mappings"][0]["rate_plans"] = {"NRF": "ACME-NRF"}
    assert_loaded(load(cli, write_catalog, data))
    assert mapped_codes(pg, "acme", "LIS1") == ({"DBL": "ACME-DBL"}, {"NRF": "ACME-NRF"})
    assert mapping_row(pg, "acme", "LIS1")[0] == mapping_id
    # The other mapping is untouched.
    assert mapped_codes(pg, "acme", "OPO1") == ({"TWN": "ACME-TWN"}, {"BAR": "ACME-OPO-BAR"})


def test_two_mapped_codes_can_swap(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    data = demo_data()
    data["partners"][0]["mappings"][0]["room_types"] = {"DBL": "ACME-SGL", "SGL": "ACME-DBL"}
    data["partners"][0]["mappings"][0]["rate_plans"] = {"BAR": "ACME-NRF", "NRF": "ACME-BAR"}
    assert_loaded(load(cli, write_catalog, data))
    assert mapped_codes(pg, "acme", "LIS1") == (
        {"DBL": "ACME-SGL", "SGL": "ACME-DBL"}, {"BAR": "ACME-NRF", "NRF": "ACME-BAR"})


def test_a_pause_survives_a_reload_that_changes_mapped_codes(cli, write_catalog, pg):
    assert_loaded(load(cli, write_catalog, demo_data()))
    assert cli("distribution", "pause", "--partner", "acme", "--property", "OPO1").exit_code == 0
    data = demo_data()
    data["partners"][0]["mappings"][1]["room_types"] = {"TWN": "ACME-TWIN"}
    assert_loaded(load(cli, write_catalog, data))
    assert mapping_row(pg, "acme", "OPO1")[2] is False
    assert mapped_codes(pg, "acme", "OPO1")[0] == {"TWN": "ACME-TWIN"}
