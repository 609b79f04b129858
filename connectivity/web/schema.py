"""The house's marshmallow Schema, the base of every schema of the service: what a partner reads
in `details.fields` is in one voice ("must be an integer", not the library's "Not a valid
integer."), and an unknown field close to a known one says which ("did you mean `hotel_codes`?").

Both through marshmallow's public hooks, on each schema instance, so that a schema gets the
voice by deriving from this one, whatever its fields: `error_messages` (the schema's own
messages), `on_bind_field` (each field as the schema takes it: a message the field left at the
library's default, and a stock validator's default wording, become the house's) and
`handle_error` (the unknown fields of a failed load). A message a field or validator sets
itself is left as it is."""

from __future__ import annotations

import difflib
from typing import Any

import marshmallow
from marshmallow import fields, validate

UNKNOWN_FIELD = "is not a field of this request"
OBJECT = "must be an object"
DATE_TIME = ("must be a date and time written ISO 8601 with a UTC offset, "
             "e.g. 2027-01-01T12:00:00+00:00")

# The library's field messages, by the library class that defines them, in the house voice.
FIELD_MESSAGES: dict[type[fields.Field], dict[str, str]] = {
    fields.Field: {"required": "is required", "null": "must not be null",
                   "validator_failed": "is not valid"},
    fields.String: {"invalid": "must be a string", "invalid_utf8": "must be UTF-8 text"},
    fields.Number: {"invalid": "must be a number", "too_large": "is too large"},
    fields.Integer: {"invalid": "must be an integer"},
    fields.Decimal: {"special": "must be a finite number (not NaN or Infinity)"},
    fields.Float: {"special": "must be a finite number (not NaN or Infinity)"},
    fields.Boolean: {"invalid": "must be true or false"},
    fields.Date: {"invalid": "must be a date written YYYY-MM-DD",
                  "invalid_awareness": "must be a date written YYYY-MM-DD",
                  "format": "cannot be written as a date"},
    fields.DateTime: {"invalid": DATE_TIME, "invalid_awareness": DATE_TIME,
                      "format": "cannot be written as a date and time"},
    fields.Time: {"invalid": "must be a time written HH:MM:SS",
                  "invalid_awareness": "must be a time written HH:MM:SS",
                  "format": "cannot be written as a time"},
    fields.TimeDelta: {"invalid": "must be a period of time"},
    fields.List: {"invalid": "must be a list"},
    fields.Tuple: {"invalid": "must be a list"},
    fields.Mapping: {"invalid": OBJECT},
    fields.Nested: {"type": "must be a list of objects"},
    fields.UUID: {"invalid_uuid": "must be a UUID"},
    fields.Url: {"invalid": "must be a URL"},
    fields.Email: {"invalid": "must be an e-mail address"},
    fields.Enum: {"unknown": "must be one of: {choices}"},
}

# A text field counts characters, any other (a list) items.
_LENGTH = {
    "characters": {"message_min": "must be at least {min} characters long",
                   "message_max": "must be at most {max} characters long",
                   "message_all": "must be {min}-{max} characters long",
                   "message_equal": "must be exactly {equal} characters long"},
    "items": {"message_min": "must have at least {min} items",
              "message_max": "must have at most {max} items",
              "message_all": "must have {min}-{max} items",
              "message_equal": "must have exactly {equal} items"},
}
_DEFAULT_MESSAGES = {validate.OneOf: "must be one of: {choices}",
                     validate.NoneOf: "must not be one of: {values}",
                     validate.ContainsOnly: "each item must be one of: {choices}",
                     validate.Equal: "must be {other}",
                     validate.Regexp: "must match the pattern {regex}",
                     validate.URL: "must be a URL",
                     validate.Email: "must be an e-mail address"}


def _library_classes(cls: type) -> list[type]:
    return [c for c in reversed(cls.__mro__) if c.__module__.startswith("marshmallow.")]


def speak_house_voice(field: fields.Field) -> None:
    """`field`'s messages, and its stock validators', in the house voice where the field left
    the library's; then the same for the fields inside it (a list's items, a mapping's keys and
    values)."""
    library: dict[str, Any] = {}
    house: dict[str, str] = {}
    for cls in _library_classes(type(field)):
        library.update(cls.__dict__.get("default_error_messages", {}))
        house.update(FIELD_MESSAGES.get(cls, {}))
    for key, message in house.items():
        if key in library and field.error_messages.get(key) == library[key]:
            field.error_messages[key] = message
    for validator in field.validators:
        _reword(validator, "characters" if isinstance(field, fields.String) else "items")
    inner = [getattr(field, "inner", None), getattr(field, "key_field", None),
             getattr(field, "value_field", None), *getattr(field, "tuple_fields", ())]
    for each in inner:
        if isinstance(each, fields.Field):
            speak_house_voice(each)


def _reword(validator: Any, counted: str) -> None:
    if isinstance(validator, validate.And):
        for each in validator.validators:
            _reword(each, counted)
    elif isinstance(validator, validate.Range) and validator.error is None:
        low = "at least {min}" if validator.min_inclusive else "more than {min}"
        high = "at most {max}" if validator.max_inclusive else "less than {max}"
        validator.message_min = f"must be {low}"
        validator.message_max = f"must be {high}"
        validator.message_all = ("must be between {min} and {max}"
                                 if validator.min_inclusive and validator.max_inclusive
                                 else f"must be {low} and {high}")
    elif isinstance(validator, validate.Length) and validator.error is None:
        for name, message in _LENGTH[counted].items():
            setattr(validator, name, message)
    else:
        for cls, message in _DEFAULT_MESSAGES.items():
            if type(validator) is cls and getattr(validator, "error", None) == cls.default_message:
                validator.error = message


def did_you_mean(name: str, known: list[str]) -> str:
    """The unknown-field message, naming the known field closest to `name` if one is close."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"{UNKNOWN_FIELD}; did you mean `{close[0]}`?" if close else UNKNOWN_FIELD


class Schema(marshmallow.Schema):
    """Derive every schema from this one (tests/web/test_house_voice.py holds that)."""

    error_messages = {"unknown": UNKNOWN_FIELD, "type": OBJECT}

    def on_bind_field(self, field_name: str, field_obj: fields.Field) -> None:
        speak_house_voice(field_obj)

    def handle_error(self, error: marshmallow.ValidationError, data: Any, *, many: bool,
                     **kwargs) -> None:
        known = [field.data_key or name for name, field in self.load_fields.items()]
        found = error.messages if isinstance(error.messages, dict) else {}
        for messages in (found.values() if many else (found,)):
            if not isinstance(messages, dict):
                continue
            for key, value in messages.items():
                if value == [UNKNOWN_FIELD]:
                    messages[key] = [did_you_mean(str(key), known)]
