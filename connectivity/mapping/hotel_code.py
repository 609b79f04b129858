"""The caller's hotel by its hotel code: the one lookup, and its 404s, that every area uses.

A hotel code names one mapping of the calling partner in its key's environment
(sql/queries/mapping/find_hotel.sql). Selling (mapping detail, rates, quote, booking) needs the
mapping active, and answers a paused one exactly as an unmapped one; pushing ARI or
reservations, and reading ARI back, take a paused mapping too (a pause stops selling, not
pushing: contract 8)."""

from __future__ import annotations

from connectivity.auth.authenticate import Caller
from connectivity.store.queries import queries
from connectivity.web.errors import NotFound


def find_hotel(conn, caller: Caller, hotel_code: str) -> dict | None:
    """The caller's mapping of `hotel_code`, active or paused, with its property (mapping_id,
    property_id, hotel_code, distribution_active, name, country, currency, timezone,
    max_child_age); None when the code is not mapped for the caller."""
    return queries().mapping.find_hotel(conn, partner_id=caller.partner_id,
                                        environment=caller.environment, hotel_code=hotel_code)


def not_mapped(hotel_code: str) -> NotFound:
    return NotFound(f"hotel {hotel_code!r} is not mapped for this partner")


def not_selling(hotel_code: str) -> NotFound:
    """Not mapped, or paused: the same answer, a paused hotel is absent from selling."""
    return NotFound(f"hotel {hotel_code!r} is not mapped and active for this partner")


def mapped_hotel(conn, caller: Caller, hotel_code: str) -> dict:
    """The caller's mapping of `hotel_code`, active or paused; 404 when not mapped."""
    hotel = find_hotel(conn, caller, hotel_code)
    if hotel is None:
        raise not_mapped(hotel_code)
    return hotel


def selling_hotel(conn, caller: Caller, hotel_code: str) -> dict:
    """The caller's mapping of `hotel_code` when it is active; 404 when not mapped or paused."""
    hotel = find_hotel(conn, caller, hotel_code)
    if hotel is None or not hotel["distribution_active"]:
        raise not_selling(hotel_code)
    return hotel
