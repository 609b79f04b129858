"""Field validators shared by request schemas and the operator's catalogue."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pycountry
from email_validator import EmailNotValidError, validate_email
from marshmallow import ValidationError

CODE_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}\Z")

# A key's and a property's environment (contract section 4).
ENVIRONMENTS = ("sandbox", "production")
# A rate plan's board: room only, bed and breakfast, half board, full board, all inclusive.
BOARD_TYPES = ("RO", "BB", "HB", "FB", "AI")
# A room's occupancy, each bound inclusive (the specification's limits table), in every request
# that states one. The operator's catalogue is held to the same bounds (a rate plan's adults and
# children, a property's max_child_age): a plan offers only what a request can ask for.
ADULTS = (1, 20)
CHILDREN = (0, 10)
CHILD_AGE = (0, 17)
# The rooms of one stay, and of one pushed reservation's room line.
ROOMS = (1, 30)

# The one rule for a partner's own code (hotel, room type, rate plan), the database's CHECK
# `^[^/[:cntrl:]]{1,120}$`: 1-120 characters, no '/' (a code is a path segment) and no control
# character (C0, DEL and C1, which [:cntrl:] holds under the UTF-8 locales). Each rule here comes
# in Python's dialect (`*_RE`) and in the description's, ECMA 262 (`*_PATTERN`), from one source.
PARTNER_CODE_CHARACTER = r"[^/\x00-\x1f\x7f-\x9f]"
PARTNER_CODE_MAX_LENGTH = 120
PARTNER_CODE = rf"{PARTNER_CODE_CHARACTER}{{1,{PARTNER_CODE_MAX_LENGTH}}}"
PARTNER_CODE_RE = re.compile(rf"^{PARTNER_CODE}\Z")
PARTNER_CODE_PATTERN = rf"^{PARTNER_CODE}$"
# A partner_reference of a booking or pushed reservation (contract 10): readable through its path.
REFERENCE_CHARACTER = r"[A-Za-z0-9._-]"
REFERENCE_MAX_LENGTH = 120
REFERENCE = rf"{REFERENCE_CHARACTER}{{1,{REFERENCE_MAX_LENGTH}}}"
REFERENCE_RE = re.compile(rf"^{REFERENCE}\Z")
REFERENCE_PATTERN = rf"^{REFERENCE}$"
# The codes the validators below accept, for the description's `enum`: a pattern such as
# ^[A-Z]{2}$ would let a generated client send "ZZ", which is refused.
COUNTRY_CODES = sorted(country.alpha_2 for country in pycountry.countries)
CURRENCY_CODES = sorted(currency.alpha_3 for currency in pycountry.currencies)


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
        raise ValidationError(f"must be 1-{PARTNER_CODE_MAX_LENGTH} characters, without '/' or "
                              "control characters")


def reference(value: str) -> None:
    if not REFERENCE_RE.match(value):
        raise ValidationError(f"must be 1-{REFERENCE_MAX_LENGTH} characters of letters, digits, "
                              "'.', '_' or '-'")


def email_address(value: str) -> None:
    """An e-mail address by a standard validator (no network), at most 255 characters."""
    if len(value) > 255:
        raise ValidationError("must be at most 255 characters")
    try:
        validate_email(value, check_deliverability=False)
    except EmailNotValidError as exc:
        raise ValidationError(f"must be a valid e-mail address ({exc})") from None
