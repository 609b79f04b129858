"""Every body-carrying operation: fields a caller might try to set for itself (`partner_id`,
`status`, `price`) are refused where they are not part of the body, at the top level and in
every nested object, and a body over the cap is 413 before anything else."""

from __future__ import annotations

import copy
import json

import pytest

from tests.support.envelope import assert_envelope_failure

from tests.system.hostile.conftest import (
    API,
    ari_body,
    booking_body,
    modify_body,
    quote_body,
    rates_body,
    reservation_body,
    restrictions_body,
    search_body,
)

HOSTILE_FIELDS = ("partner_id", "status", "price")

# operation -> (method, path, pull or push key, valid body, paths of its nested objects)
OPERATIONS = {
    "search": ("post", "/availability/search", "pull", search_body, ["occupancy.0"]),
    "rates": ("post", "/availability/rates", "pull", rates_body, ["occupancy.0"]),
    "quote": ("post", "/bookings/quote", "pull", quote_body, ["occupancy.0"]),
    "book": ("post", "/bookings", "pull", booking_body, ["guests.0", "contact"]),
    "cancel booking": ("post", "/bookings/ACME-BKG-1/cancel", "pull", dict, []),
    "ari": ("put", "/ari", "push", ari_body, ["items.0"]),
    "restrictions": ("put", "/ari/restrictions", "push", restrictions_body, ["items.0"]),
    "reservation": ("post", "/reservations", "push", reservation_body,
                    ["rooms.0", "rooms.0.nightly_rates.0", "guests.0", "contact"]),
    "cancel reservation": ("post", "/reservations/CM-1/cancel", "push", dict, []),
    "modify reservation": ("post", "/reservations/CM-1/modify", "push", modify_body,
                           ["rooms.0"]),
}
# `status` is a real field of a pushed reservation (confirmed / cancelled / modified).
PART_OF_THE_BODY = {("reservation", "", "status")}


def _cases(name: str):
    for where in ["", *OPERATIONS[name][4]]:
        for field in HOSTILE_FIELDS:
            if (name, where, field) not in PART_OF_THE_BODY:
                yield where, field


def _with_field(body: dict, where: str, field: str, value) -> dict:
    body = copy.deepcopy(body)
    target = body
    for part in filter(None, where.split(".")):
        target = target[int(part)] if isinstance(target, list) else target[part]
    target[field] = value
    return body


def _send(client, keys, name, body=None, data=None):
    method, path, key, _, _ = OPERATIONS[name]
    headers = keys.acme_pull if key == "pull" else keys.acme_push
    if data is not None:
        return getattr(client, method)(API + path, data=data, content_type="application/json",
                                       headers=headers)
    return getattr(client, method)(API + path, json=body, headers=headers)


# What a caller would try: another partner's id, a state, a price of its choosing.
VALUES = {"partner_id": 2, "status": "confirmed", "price": {"amount": "0.01"}}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_field_the_caller_may_not_set_is_refused(client, keys, db, name):
    valid = OPERATIONS[name][3]()
    cases = list(_cases(name))
    assert len(cases) >= 3
    for where, field in cases:
        response = _send(client, keys, name, _with_field(valid, where, field, VALUES[field]))
        error = assert_envelope_failure(response, 422, "validation_failed")
        path = f"{where}.{field}" if where else field
        assert list(error["details"]["fields"]) == [path], (where, field, error)
        assert path in error["message"]
    stored = db.run(lambda c: c.execute(
        "SELECT (SELECT count(*) FROM bookings) + (SELECT count(*) FROM reservations) + "
        "(SELECT count(*) FROM ari_batches) AS n").fetchone()["n"])
    assert stored == 0


def test_the_valid_bodies_pass_validation(client, keys):
    """The bodies the cases above start from are valid: each refusal is the added field's."""
    for name in OPERATIONS:
        response = _send(client, keys, name, OPERATIONS[name][3]())
        body = response.get_json()
        assert response.status_code < 500 and body["success"] in (True, False), name
        if not body["success"]:
            assert body["error"]["code"] != "validation_failed", (name, body)


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_a_body_over_the_cap_is_payload_too_large(client, keys, db, settings, name):
    """A real (otherwise valid) JSON body one byte over the cap, on every body route."""
    valid = OPERATIONS[name][3]()
    head = b'{"pad": "x'
    # the body's own fields after the padding
    tail = b'", ' + json.dumps(valid).encode()[1:] if valid else b'"}'
    body = head + b"x" * (settings.max_body_bytes + 1 - len(head) - len(tail)) + tail
    json.loads(body)  # well-formed: only its size is wrong
    assert len(body) == settings.max_body_bytes + 1
    response = _send(client, keys, name, data=body)
    assert_envelope_failure(response, 413, "payload_too_large")
    assert db.run(lambda c: c.execute("SELECT count(*) AS n FROM ari_batches").fetchone()["n"]) \
        == 0
