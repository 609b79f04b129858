"""Field validators shared by request schemas and the operator's catalogue."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pycountry
from email_validator import EmailNotValidError, validate_email
from marshmallow import ValidationError

CODE_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}\Z")
PARTNER_CODE_RE = re.compile(r"^[^/\x00-\x1f\x7f-\x9f]{1,120}\Z")


def country_code(value: str) -> None:
    if not (isinstance(value, str) and len(value) == 2 and value.isupper()
            and pycountry.countries.get(alpha_2=value)):
        raise ValidationError("must be an ISO 3166-1 alpha-2 country code, e.g. PT")


def currency_code(value: str) -> None:
    if not (isinstance(value, str) and len(value) == 3 and value.isupper()
            and pycountry.currencies.get(alpha_3=value)):
        raise ValidationError("must be an ISO 4217 currency code, e.g. EUR")


def timezone_name(value: str) -> None:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError("must be an IANA time zone, e.g. Europe/Lisbon") from None


def internal_code(value: str) -> None:
    if not CODE_RE.match(value):
        raise ValidationError("must be 1-64 characters of letters, digits, '.', '_' or '-'")


def partner_code(value: str) -> None:
    """A partner's own code for a hotel, room type or rate plan: any printable text but '/'."""
    if not PARTNER_CODE_RE.match(value):
        raise ValidationError("must be 1-120 characters, without '/' or control characters")


def email_address(value: str) -> None:
    """An e-mail address by a standard validator (no network), at most 255 characters."""
    if len(value) > 255:
        raise ValidationError("must be at most 255 characters")
    try:
        validate_email(value, check_deliverability=False)
    except EmailNotValidError as exc:
        raise ValidationError(f"must be a valid e-mail address ({exc})") from None
