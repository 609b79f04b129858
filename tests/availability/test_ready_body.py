"""Search and rates answer without a schema dump (connectivity/web/ready_body.py): on random ARI and
random requests, each body must equal what its result schema's dump of the same payload gives,
field for field and type for type (an amount stays a number, a whole one an integer)."""

from __future__ import annotations

import json
import random
from decimal import Decimal

import pytest
from flask import g

from connectivity.availability import routes
from connectivity.availability.schemas import RatesResultSchema, SearchResultSchema
from connectivity.web.envelope import enveloped
from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.availability.conftest import API
from tests.availability.test_search_matches_rates import CATALOG, HOTEL_CODES, random_ari, random_request


def spy(monkeypatch, name: str) -> list:
    """The real use case, run as ever; its payloads kept for the comparison."""
    payloads = []
    real = getattr(routes, name)

    def recording(*args):
        payloads.append(real(*args))
        return payloads[-1]
    monkeypatch.setattr(routes, name, recording)
    return payloads


AMOUNTS = {"amount", "total_amount", "lowest_total_amount"}


def as_decimals(value, key=None):
    """The payload with every amount a Decimal, as the schema's Money takes it: rates' fast path
    hands its amounts as the JSON numbers Money writes (a float's repr is the decimal it
    writes, so Money writes that number again)."""
    if isinstance(value, dict):
        return {k: as_decimals(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [as_decimals(v, key) for v in value]
    if key in AMOUNTS and isinstance(value, (int, float)) and not isinstance(value, bool):
        return Decimal(repr(value))
    return value


def same_json(response, app, schema, payload) -> bool:
    """Compared as JSON text, where 150 and 150.0 differ (as Python's == would not)."""
    with app.test_request_context():
        g.request_id = response.json["request_id"]
        dumped = enveloped(schema)().dump(as_decimals(payload))
    return json.dumps(response.json, sort_keys=True) == json.dumps(dumped, sort_keys=True)


@pytest.mark.parametrize("seed", range(3))
def test_bodies_equal_their_schemas_dump(app, client, pull, db, monkeypatch, seed):
    db.run(load_catalog, parse_catalog(json.dumps(CATALOG)))
    rng = random.Random(seed)
    random_ari(db, rng)
    searched, rated = spy(monkeypatch, "search_hotels"), spy(monkeypatch, "read_rates")
    compared = 0
    for _ in range(10):
        request = random_request(rng)
        response = client.post(f"{API}/availability/search",
                               json={"hotel_codes": HOTEL_CODES + ["NOPE"], **request},
                               headers=pull)
        assert response.status_code == 200, response.json
        assert same_json(response, app, SearchResultSchema, searched[-1])
        for code in HOTEL_CODES:
            response = client.post(f"{API}/availability/rates",
                                   json={"hotel_code": code, **request}, headers=pull)
            assert response.status_code == 200, response.json
            assert same_json(response, app, RatesResultSchema, rated[-1])
            compared += 1
    assert compared == 30
