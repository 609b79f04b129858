"""GET /mapping/hotels and GET /mapping/hotels/{hotelCode}: only what is mapped and active for
the calling partner, in the key's environment, in the partner's own codes."""


import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog

BASE = "/api/connectivity/v1"

OTHER_PARTNER = """{
  "properties": [{"code": "PRD1", "name": "Prod Hotel", "environment": "production",
     "country": "ES", "timezone": "Europe/Madrid", "currency": "EUR", "max_child_age": 10,
     "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}],
     "rate_plans": []}],
  "partners": [
    {"code": "globex", "name": "Globex", "mappings": [
      {"property": "LIS1", "hotel_code": "GLX-1", "room_types": {"DBL": "G-DBL"},
       "rate_plans": {"BAR": "G-BAR"}}]},
    {"code": "acme", "name": "Acme Travel", "mappings": [
      {"property": "PRD1", "hotel_code": "ACME-MAD", "room_types": {"DBL": "P-DBL"}}]}]
}"""


def bearer(key):
    return {"Authorization": f"Bearer {key.token}"}


@pytest.fixture
def two_partners(db, catalog):
    db.run(load_catalog, parse_catalog(OTHER_PARTNER))


def test_list_shows_the_partners_active_hotels_in_its_codes(client, catalog, issue):
    response = client.get(f"{BASE}/mapping/hotels", headers=bearer(issue("pull")))
    assert response.status_code == 200, response.json
    assert response.json["data"] == {"hotels": [
        {"hotel_code": "ACME-LIS", "name": "Lisboa Centro", "country": "PT", "currency": "EUR",
         "max_child_age": 11},
        {"hotel_code": "ACME-OPO", "name": "Porto Ribeira", "country": "PT", "currency": "EUR",
         "max_child_age": 12}]}


def test_paused_distribution_disappears_and_comes_back(app, client, catalog, issue):
    key = issue("pull")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["distribution", "pause", "--partner", "acme",
                               "--property", "LIS1"]).exit_code == 0
    codes = [h["hotel_code"] for h in
             client.get(f"{BASE}/mapping/hotels", headers=bearer(key)).json["data"]["hotels"]]
    assert codes == ["ACME-OPO"]
    detail = client.get(f"{BASE}/mapping/hotels/ACME-LIS", headers=bearer(key))
    assert detail.status_code == 404 and detail.json["error"]["code"] == "not_found"
    runner.invoke(args=["distribution", "resume", "--partner", "acme", "--property", "LIS1"])
    assert client.get(f"{BASE}/mapping/hotels/ACME-LIS", headers=bearer(key)).status_code == 200


def test_environment_and_partner_scoping(client, two_partners, issue):
    sandbox = client.get(f"{BASE}/mapping/hotels", headers=bearer(issue("pull")))
    assert [h["hotel_code"] for h in sandbox.json["data"]["hotels"]] == ["ACME-LIS", "ACME-OPO"]
    production = client.get(f"{BASE}/mapping/hotels",
                            headers=bearer(issue("pull", environment="production")))
    assert [h["hotel_code"] for h in production.json["data"]["hotels"]] == ["ACME-MAD"]
    globex = issue("pull", partner="globex")
    assert [h["hotel_code"] for h in client.get(
        f"{BASE}/mapping/hotels", headers=bearer(globex)).json["data"]["hotels"]] == ["GLX-1"]
    # Another partner's hotel code is absent for this one, exactly like an unknown code.
    for code in ("ACME-LIS", "NOPE"):
        r = client.get(f"{BASE}/mapping/hotels/{code}", headers=bearer(globex))
        assert r.status_code == 404 and r.json["error"]["code"] == "not_found"


def test_detail_in_partner_codes_with_occupancy_board_and_policy(client, two_partners, issue):
    response = client.get(f"{BASE}/mapping/hotels/ACME-LIS", headers=bearer(issue("pull")))
    assert response.status_code == 200, response.json
    hotel = response.json["data"]["hotel"]
    assert hotel["timezone"] == "Europe/Lisbon" and hotel["max_child_age"] == 11
    assert hotel["room_types"] == [
        {"room_type_code": "ACME-DBL", "name": "Double", "max_occupancy": 4},
        {"room_type_code": "ACME-SGL", "name": "Single", "max_occupancy": 1}]
    plans = {p["rate_plan_code"]: p for p in hotel["rate_plans"]}
    assert set(plans) == {"ACME-BAR", "ACME-NRF", "ACME-RES", "ACME-USD"}
    assert plans["ACME-BAR"]["room_type_codes"] == ["ACME-DBL", "ACME-SGL"]
    assert plans["ACME-BAR"]["board_type"] == "BB"
    assert plans["ACME-BAR"]["occupancy"] == {"base_adults": 2, "max_adults": 3,
                                              "max_children": 2, "max_occupancy": 4}
    assert plans["ACME-BAR"]["cancellation_policy"] == {
        "non_refundable": False,
        "tiers": [{"within_hours": 48, "penalty": {"type": "nights", "value": 1}}]}
    assert plans["ACME-NRF"]["cancellation_policy"]["non_refundable"] is True
    # Globex maps only DBL and BAR of the same property: it sees nothing else.
    globex = client.get(f"{BASE}/mapping/hotels/GLX-1",
                        headers=bearer(issue("pull", partner="globex"))).json["data"]["hotel"]
    assert [r["room_type_code"] for r in globex["room_types"]] == ["G-DBL"]
    assert [(p["rate_plan_code"], p["room_type_codes"]) for p in globex["rate_plans"]] == [
        ("G-BAR", ["G-DBL"])]
