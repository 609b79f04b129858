"""Validation messages in one voice (connectivity/web/schema.py): every schema derives from the
house Schema, no library default message ("Not a valid integer.", "Missing data for required
field.") is left on any field or stock validator of any schema, a sample of every field kind
answers in the house's words through the API, and an unknown field close to a known one names
it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import marshmallow
import pytest
from marshmallow import fields, validate

import connectivity
from connectivity.reservations.schemas import ReservationRequestSchema
from connectivity.web.schema import Schema, did_you_mean

from tests.support.envelope import API, assert_envelope_failure
from tests.support.signing import bearer

PACKAGE = Path(connectivity.__file__).parent


def schema_classes() -> list[type[marshmallow.Schema]]:
    for module in pkgutil.walk_packages([str(PACKAGE)], "connectivity."):
        importlib.import_module(module.name)
    found, todo = [], list(marshmallow.Schema.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("connectivity."):
            found.append(cls)
    return found


def library_defaults() -> set[str]:
    """Every message marshmallow words itself, fields' and validators' (templates unformatted,
    so a message is compared by its opening words too)."""
    texts = set(marshmallow.Schema._default_error_messages.values())
    for _, cls in inspect.getmembers(fields, inspect.isclass):
        texts.update(cls.__dict__.get("default_error_messages", {}).values())
    for _, cls in inspect.getmembers(validate, inspect.isclass):
        for name in ("default_message", "message_min", "message_max", "message_all",
                     "message_equal"):
            if isinstance(cls.__dict__.get(name), str):
                texts.add(cls.__dict__[name])
    return texts


def messages_of(field: fields.Field, seen: set[int]) -> list[tuple[str, str]]:
    """(where, message) of a bound field, its stock validators and the fields inside it."""
    found = [(f"{field.name}:{key}", text) for key, text in field.error_messages.items()]
    for validator in field.validators:
        for name in ("error", "message_min", "message_max", "message_all", "message_equal"):
            text = getattr(validator, name, None)
            if isinstance(text, str):
                found.append((f"{field.name}:{type(validator).__name__}.{name}", text))
    inner = [getattr(field, "inner", None), getattr(field, "key_field", None),
             getattr(field, "value_field", None), *getattr(field, "tuple_fields", ())]
    for each in inner:
        if isinstance(each, fields.Field):
            found.extend(messages_of(each, seen))
    if isinstance(field, fields.Nested) and id(field.schema) not in seen:
        seen.add(id(field.schema))
        found.extend(messages_of_schema(field.schema, seen))
    return found


def messages_of_schema(schema: marshmallow.Schema, seen: set[int]) -> list[tuple[str, str]]:
    found = [(f"{type(schema).__name__}:{key}", text)
             for key, text in schema.error_messages.items()]
    for field in schema.fields.values():
        found.extend((f"{type(schema).__name__}.{where}", text)
                     for where, text in messages_of(field, seen))
    return found


def test_every_schema_derives_from_the_house_schema():
    outside = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in schema_classes()
                     if not issubclass(cls, Schema))
    assert outside == [], ("derive these from connectivity.web.schema.Schema, so that partners "
                           "read their messages in the house voice")


def test_no_library_message_is_left_on_any_schema():
    library = library_defaults()
    openings = {text.split("{")[0] for text in library if text.split("{")[0]}
    left = []
    for cls in schema_classes():
        for where, text in messages_of_schema(cls(), set()):
            if text in library or any(text.startswith(opening) for opening in openings):
                left.append((where, text))
    assert left == []


def test_the_house_words_each_kind_of_validator():
    class Sample(Schema):
        text = fields.String(validate=validate.Length(2, 5))
        items = fields.List(fields.Integer(validate=validate.Range(min=0, min_inclusive=False)),
                            validate=validate.Length(max=1))
        exact = fields.String(validate=validate.Length(equal=3))
        kind = fields.String(validate=validate.OneOf(["a", "b"]))
        own = fields.Integer(validate=validate.Range(1, 2, error="one or two, please"))
        flags = fields.Dict(keys=fields.String(), values=fields.Boolean())

    with pytest.raises(marshmallow.ValidationError) as raised:
        Sample().load({"text": "x", "items": [0], "exact": "abcd", "kind": "c", "own": 3,
                       "flags": {"x": "maybe"}})
    assert raised.value.messages == {
        "text": ["must be 2-5 characters long"],
        "items": {0: ["must be more than 0"]},
        "exact": ["must be exactly 3 characters long"],
        "kind": ["must be one of: a, b"],
        "own": ["one or two, please"],  # a message the field sets itself is its own
        "flags": {"x": {"value": ["must be true or false"]}},
    }
    with pytest.raises(marshmallow.ValidationError) as raised:
        Sample().load({"items": [1, 2]})
    assert raised.value.messages == {"items": ["must have at most 1 items"]}


def test_a_sample_of_every_field_kind_through_the_api(client, catalog, issue):
    pull = issue("pull")
    response = client.post(f"{API}/availability/search", headers=bearer(pull.token), json={
        "hotel_code": ["ACME-LIS"],          # unknown, close to hotel_codes
        "zzz": 1,                            # unknown, close to nothing
        "check_out": 20270103,               # a date sent as a number
        "rooms": 2.5,                        # an integer
        "occupancy": [{"adults": 0, "childs": 1}, 5],
        "nationality": None,                 # null where a value is wanted
        "currency": 7,                       # a string
    })
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert error["details"]["fields"] == {
        "hotel_code": ["is not a field of this request; did you mean `hotel_codes`?"],
        "zzz": ["is not a field of this request"],
        "hotel_codes": ["is required"],
        "check_in": ["is required"],
        "check_out": ["must be a date written YYYY-MM-DD"],
        "rooms": ["must be an integer"],
        "occupancy.0.adults": ["must be between 1 and 20"],
        "occupancy.0.childs": ["is not a field of this request; did you mean `child_ages`?"],
        "occupancy.1": ["must be an object"],
        "nationality": ["must not be null"],
        "currency": ["must be a string"],
    }
    lists = client.post(f"{API}/availability/search", headers=bearer(pull.token), json={
        "hotel_codes": [], "check_in": "2030-01-01", "check_out": "2030-01-02", "rooms": 1,
        "occupancy": "two adults"})
    assert assert_envelope_failure(lists, 422, "validation_failed")["details"]["fields"] == {
        "hotel_codes": ["must have 1-200 items"], "occupancy": ["must be a list"]}
    for limit, said in (("abc", "must be an integer"), ("0", "must be between 1 and 1000")):
        query = client.get(f"{API}/availability/changes?limit={limit}",
                           headers=bearer(pull.token))
        assert assert_envelope_failure(query, 422, "validation_failed")["details"]["fields"] \
            == {"limit": [said]}


def test_text_choices_and_flags_in_a_pushed_reservation():
    with pytest.raises(marshmallow.ValidationError) as raised:
        ReservationRequestSchema().load({
            "status": "booked", "is_non_refundable": "yes", "guest_confirmation": "x" * 121,
            "special_request": "late arrival"})
    messages = raised.value.messages
    assert messages["status"][0].startswith("must be one of: ")
    assert messages["is_non_refundable"] == ["must be true or false"]
    assert messages["guest_confirmation"] == ["must be 1-120 characters long"]
    assert messages["special_request"] == [
        "is not a field of this request; did you mean `special_requests`?"]


@pytest.mark.parametrize("name, known, said", [
    ("hotel_code", ["hotel_codes", "check_in"], "did you mean `hotel_codes`?"),
    ("checkin", ["hotel_codes", "check_in", "check_out"], "did you mean `check_in`?"),
    ("adult", ["adults", "children"], "did you mean `adults`?"),
])
def test_did_you_mean_names_the_closest_known_field(name, known, said):
    assert did_you_mean(name, known) == f"is not a field of this request; {said}"


def test_did_you_mean_stays_quiet_when_nothing_is_close():
    assert did_you_mean("price", ["hotel_codes", "check_in"]) == "is not a field of this request"
