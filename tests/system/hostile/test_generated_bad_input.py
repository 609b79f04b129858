"""Bad input generated from the published description itself, not from hand-picked cases.

For every operation with a body, and every field at every depth of its request schema (list
items through their first entry), on an otherwise valid body and one at a time: the field
removed, set to null, and given a value of the wrong JSON type. Every answer is 422
`validation_failed` naming that field's path, or a success where the description says the field
may be absent or null. Never a 5xx, and a refused request writes no row.

The valid bodies below carry every field the description declares; a field added to a schema
and not to its body here fails `test_the_valid_bodies_carry_every_declared_field`, so the
generation cannot silently skip it."""

from __future__ import annotations

import copy
import itertools

import pytest


from tests.system.hostile.conftest import API, START, day, snapshot, changes
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

_serial = itertools.count(1)


def _reference(prefix: str) -> str:
    return f"{prefix}-{next(_serial)}"


def _occupancy() -> list[dict]:
    return [{"adults": 2, "children": 1, "child_ages": [5]}]


def _stay() -> dict:
    return {"check_in": day(0), "check_out": day(2), "rooms": 1, "occupancy": _occupancy(),
            "nationality": "PT", "currency": "EUR"}


def search() -> dict:
    return {"hotel_codes": ["ACME-LIS"], **_stay()}


def rates() -> dict:
    return {"hotel_code": "ACME-LIS", "room_type_codes": ["ACME-DBL"],
            "rate_plan_codes": ["ACME-BAR"], **_stay()}


def quote() -> dict:
    return {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            **_stay()}


def booking() -> dict:
    return {"partner_reference": _reference("GEN-BKG"), "quote_token": "not-a-real-token",
            "hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(0), "check_out": day(2), "rooms": 1,
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True, "age": 40, "nationality": "PT", "is_lead": True}],
            "contact": {"first_name": "Ana", "last_name": "Silva", "email": "ana@example.com",
                        "phone": "+351 210 000 000"},
            "total_amount": "200.00", "currency": "EUR", "special_requests": "late arrival",
            "arrival_time": "15:30"}


def booking_cancel() -> dict:
    return {"reason": "plans changed", "expected_penalty_amount": "1000.00", "currency": "EUR"}


def ari() -> dict:
    return {"hotel_code": "ACME-LIS",
            "items": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                       "date": day(5), "availability": 7, "rate": "100.00", "currency": "EUR",
                       "single_rate": "80.00", "extra_adult_rate": "30.00",
                       "extra_child_rate": "15.00", "closed": False, "min_stay": 1,
                       "max_stay": 7, "closed_to_arrival": False,
                       "closed_to_departure": False}]}


def restrictions() -> dict:
    return {"hotel_code": "ACME-LIS",
            "items": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                       "from_date": day(5), "to_date": day(6), "days_of_week": [0, 1, 2],
                       "closed": False, "min_stay": 1, "max_stay": 7,
                       "closed_to_arrival": False, "closed_to_departure": False}]}


def reservation() -> dict:
    return {"partner_reference": _reference("GEN-RSV"), "guest_confirmation": "G-1",
            "hotel_code": "ACME-LIS", "status": "confirmed",
            "check_in": day(0), "check_out": day(2),
            "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                       "quantity": 1, "adults": 2, "children": 1, "child_ages": [5],
                       "nightly_rates": [{"date": day(0), "amount": "100.00"},
                                         {"date": day(1), "amount": "100.00"}]}],
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True, "nationality": "PT"}],
            "contact": {"email": "ana@example.com", "phone": "+351 210 000 000"},
            "sell_amount": "200.00", "sell_currency": "EUR",
            "net_amount": "170.00", "net_currency": "EUR", "is_non_refundable": False,
            "cancellation_deadline": day(-1), "special_requests": "quiet room",
            "booked_at": day(-3)}


def reservation_cancel() -> dict:
    return {"hotel_code": "ACME-LIS", "cancelled_at": day(-2), "reason": "guest cancelled",
            "penalty_amount": "0.00", "penalty_currency": "EUR"}


def reservation_modify() -> dict:
    return {"hotel_code": "ACME-LIS", "check_in": day(1), "check_out": day(3),
            "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2,
                       "children": 0}],
            "net_amount": "300.00", "net_currency": "EUR", "modified_at": day(-1)}


def webhook_endpoint() -> dict:
    # a sandbox key may use http on a loopback address where the operator allows it, as the
    # tests' settings do (nothing is sent in this test)
    return {"url": "http://127.0.0.1:8080/pcs-webhooks", "event_types": ["booking.confirmed"],
            "description": "our PMS"}


# (method, path template in the description) -> (key, valid body, the path's values)
BODIES = {
    ("post", "/availability/search"): ("pull", search, {}),
    ("post", "/availability/rates"): ("pull", rates, {}),
    ("post", "/bookings/quote"): ("pull", quote, {}),
    ("post", "/bookings"): ("pull", booking, {}),
    ("post", "/bookings/{reference}/cancel"): ("pull", booking_cancel,
                                               {"reference": "GEN-BKG-HELD"}),
    ("put", "/ari"): ("push", ari, {}),
    ("put", "/ari/restrictions"): ("push", restrictions, {}),
    ("post", "/reservations"): ("push", reservation, {}),
    ("post", "/reservations/{reference}/cancel"): ("push", reservation_cancel,
                                                   {"reference": "GEN-RSV-HELD"}),
    ("post", "/reservations/{reference}/modify"): ("push", reservation_modify,
                                                   {"reference": "GEN-RSV-HELD"}),
    ("post", "/webhook-endpoints"): ("pull", webhook_endpoint, {}),
}


@pytest.fixture(scope="module")
def description(app):
    return app.test_client().get(f"{API}/openapi.json").get_json()


def _resolve(spec: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return _resolve(spec, schema["allOf"][0])
    return schema


def _body_schema(spec: dict, method: str, path: str) -> dict | None:
    operation = spec["paths"][API + path].get(method, {})
    body = operation.get("requestBody")
    if body is None:
        return None
    return _resolve(spec, body["content"]["application/json"]["schema"])


def declared_fields(spec: dict, schema: dict, prefix: str = ""):
    """(path, field schema, required, nullable) for every property at every depth; a list's
    items are reached through its first entry (`rooms.0.quantity`)."""
    required = set(schema.get("required", ()))
    for name, field in schema.get("properties", {}).items():
        field = _resolve(spec, field)
        path = f"{prefix}{name}"
        yield path, field, name in required, bool(field.get("nullable"))
        if field.get("type") == "object" or "properties" in field:
            yield from declared_fields(spec, field, f"{path}.")
        elif field.get("type") == "array":
            items = _resolve(spec, field.get("items", {}))
            if "properties" in items:
                yield from declared_fields(spec, items, f"{path}.0.")


def _wrong_type(field: dict):
    """A JSON value of another type than the field's (and not one it converts from)."""
    kind = field.get("type")
    if kind in ("string", None):
        # A string field accepting numbers too (amounts) is typed in the description as
        # oneOf/anyOf; an object fits neither.
        return {"not": "a string"}
    if kind in ("integer", "number"):
        return [1]
    if kind == "boolean":
        return "yes"
    if kind == "array":
        return {"not": "a list"}
    if kind == "object":
        return "not an object"
    raise AssertionError(f"no wrong type for {field}")


def _locate(body: dict, path: str):
    *parents, last = path.split(".")
    target = body
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target, int(last) if isinstance(target, list) else last


# Optional fields another field's rule depends on: removing one is refused on its dependant
# (`child_ages` must have `children` entries, and `children` defaults to 0; the sell amount and
# its currency come together). Only these, each named.
DEPENDANTS = {"children": "child_ages", "sell_amount": "sell_currency",
              "sell_currency": "sell_amount"}


def expected_paths(path: str, change: str) -> set[str]:
    """The paths a 422 for this change may name: the field's own, and for the removal of a
    field in DEPENDANTS its dependant's."""
    *parents, name = path.split(".")
    if change == "removed" and name in DEPENDANTS:
        return {path, ".".join([*parents, DEPENDANTS[name]])}
    return {path}


def mutations(spec: dict, schema: dict, body: dict):
    """(path, what was done, body, may it succeed) for each field, one change at a time."""
    for path, field, required, nullable in declared_fields(spec, schema):
        for change in ("removed", "null", "wrong type"):
            mutated = copy.deepcopy(body)
            target, key = _locate(mutated, path)
            if change == "removed":
                del target[key]
                may_succeed = not required
            elif change == "null":
                target[key] = None
                may_succeed = nullable
            else:
                target[key] = _wrong_type(field)
                may_succeed = False
            yield path, change, mutated, may_succeed


def test_every_operation_with_a_body_has_a_valid_body_here(description):
    with_body = {(method, path[len(API):])
                 for path, operations in description["paths"].items()
                 for method, operation in operations.items()
                 if isinstance(operation, dict) and "requestBody" in operation}
    assert with_body == set(BODIES)


@pytest.mark.parametrize("operation", list(BODIES), ids=" ".join)
def test_the_valid_bodies_carry_every_declared_field(description, operation):
    key, body, _ = BODIES[operation]
    made = body()
    missing = []
    for path, *_ in declared_fields(description, _body_schema(description, *operation)):
        try:
            target, name = _locate(made, path)
            target[name]
        except (KeyError, IndexError, TypeError):
            missing.append(path)
    assert missing == [], f"{operation}: the valid body lacks {missing}"


@pytest.fixture
def held(client, db, keys):
    """ARI for the stays above, a booking and a pushed reservation the cancel and modify
    operations address."""
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=500)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00", single_rate="80.00",
                  extra_adult_rate="30.00", extra_child_rate="15.00")
    made = booking()
    made.pop("quote_token")
    made["partner_reference"] = "GEN-BKG-HELD"
    made["total_amount"] = "160.00"  # one adult: the single rate, two nights
    response = client.post(f"{API}/bookings", json=made, headers=keys.acme_pull)
    assert response.status_code == 201, response.get_json()
    made = reservation()
    made["partner_reference"] = "GEN-RSV-HELD"
    response = client.post(f"{API}/reservations", json=made, headers=keys.acme_push)
    assert response.status_code == 201, response.get_json()


@pytest.mark.parametrize("operation", list(BODIES), ids=" ".join)
def test_every_field_removed_nulled_or_mistyped_is_a_clear_answer(
        client, keys, description, settings, held, operation):
    method, template = operation
    key, body, values = BODIES[operation]
    path = API + template.format(**values)
    headers = keys.acme_pull if key == "pull" else keys.acme_push
    schema = _body_schema(description, method, template)
    cases = list(mutations(description, schema, body()))
    assert len(cases) >= 9, cases
    wrong = []
    for field, change, mutated, may_succeed in cases:
        before = snapshot(settings.database_url)
        response = getattr(client, method)(path, json=mutated, headers=headers)
        answer = response.get_json()
        status = response.status_code
        if status >= 500:
            wrong.append((field, change, status, answer))
            continue
        if status == 422 and answer["error"]["code"] == "validation_failed":
            named = answer["error"]["details"]["fields"]
            if not expected_paths(field, change) & set(named):
                wrong.append((field, change, "422 without the field", named))
            gone, new = changes(before, snapshot(settings.database_url))
            if gone or new:
                wrong.append((field, change, "refused but wrote", gone, new))
            continue
        if not may_succeed:
            wrong.append((field, change, status, answer))
    assert wrong == [], "\n".join(map(repr, wrong))
