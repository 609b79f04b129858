"""The webhooks' tests: the demo catalogue plus a production hotel of acme and a second partner,
keys of each kind, and helpers to call the endpoints' operations."""

from __future__ import annotations

import copy
import json

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.conftest import DEMO_CATALOG
from tests.support.envelope import API, assert_envelope_success
from tests.support.signing import bearer

ENDPOINTS = f"{API}/webhook-endpoints"


@pytest.fixture
def catalog(db):
    """The demo catalogue, acme's hotel LIS1 copied into production as LIV1, and partner globex
    mapping LIS1 in the sandbox."""
    document = json.loads(DEMO_CATALOG.read_text())
    live = copy.deepcopy(next(p for p in document["properties"] if p["code"] == "LIS1"))
    live.update(code="LIV1", environment="production")
    document["properties"].append(live)
    acme = document["partners"][0]
    acme["mappings"].append({**copy.deepcopy(acme["mappings"][0]), "property": "LIV1",
                             "hotel_code": "ACME-LIV"})
    document["partners"].append({"code": "globex", "name": "Globex", "mappings": [
        {**copy.deepcopy(acme["mappings"][0]), "hotel_code": "GLX-LIS"}]})
    parsed = parse_catalog(json.dumps(document))
    db.run(load_catalog, parsed)
    return parsed


@pytest.fixture
def pull(issue, catalog):
    return bearer(issue("pull", rate_limit=100000).token)


@pytest.fixture
def push(issue, catalog):
    return bearer(issue("push", signed=False, rate_limit=100000).token)


def create(client, headers, url, event_types=("booking.confirmed",), **fields):
    return client.post(ENDPOINTS, headers=headers,
                       json={"url": url, "event_types": list(event_types), **fields})


def created(client, headers, url, event_types=("booking.confirmed",), **fields) -> dict:
    return assert_envelope_success(create(client, headers, url, event_types, **fields), 201)
