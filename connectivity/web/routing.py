"""Path segment patterns of the specification. A segment outside its pattern matches no route,
so it is answered 404 `not_found` before any credential is looked at (contract 10)."""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import BaseConverter

from connectivity.web.validators import (
    PARTNER_CODE,
    PARTNER_CODE_PATTERN,
    REFERENCE,
    REFERENCE_PATTERN,
)


class ReferenceConverter(BaseConverter):
    """A booking's or reservation's partner_reference (validators.REFERENCE)."""
    regex = REFERENCE
    pattern = REFERENCE_PATTERN


class BatchIdConverter(BaseConverter):
    regex = r"[A-Za-z0-9-]{1,64}"
    pattern = "^[A-Za-z0-9-]{1,64}$"


class HotelCodeConverter(BaseConverter):
    """A partner's hotel code, by the one partner-code rule (validators.py): the catalogue maps
    no other."""
    regex = PARTNER_CODE
    pattern = PARTNER_CODE_PATTERN


class EndpointIdConverter(BaseConverter):
    """A webhook endpoint's id (contract 12.3), as the service makes them."""
    regex = r"we_[A-Za-z0-9]{24}"
    pattern = "^we_[A-Za-z0-9]{24}$"


class EventIdConverter(BaseConverter):
    """An event's id (contract 12.2), or a ping's."""
    regex = r"evt_[0-9a-f]{32}"
    pattern = "^evt_[0-9a-f]{32}$"


class ConfirmationNumberConverter(BaseConverter):
    """A pull booking's confirmation number, as the service makes them
    (bookings/confirmation.py)."""
    regex = r"PCS-[A-Z0-9]{12}"
    pattern = "^PCS-[A-Z0-9]{12}$"


CONVERTERS = {"reference": ReferenceConverter, "batch_id": BatchIdConverter,
              "hotel_code": HotelCodeConverter, "endpoint_id": EndpointIdConverter,
              "event_id": EventIdConverter, "confirmation_number": ConfirmationNumberConverter}


def register_converters(app: Flask, api) -> None:
    for name, converter in CONVERTERS.items():
        app.url_map.converters[name] = converter
        api.register_converter(
            converter, lambda c: {"type": "string", "pattern": type(c).pattern})
