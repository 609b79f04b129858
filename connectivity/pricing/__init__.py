"""Pricing: the pure business rules of selling a stay (contract sections 8 and 10).

Plain values in, plain values out: no Flask, no psycopg, no clock and no database here, so every
rule can be tested with a table of cases and with hypothesis. Money is Decimal throughout.

Modules, in the order a request uses them:

- `occupancy`     RoomOccupancy per room from a request's `occupancy` array
                  (`normalise_occupancy`) or a booking's `guests` (`occupancy_from_guests`);
                  over-age children become adults; OccupancyError carries 422 field paths.
- `plan_rules`    RatePlanRules; `occupancy_fits` (plan limits and room type capacity),
                  `nationality_allowed`.
- `restrictions`  NightRestrictions at room-type and rate-plan level; `effective` combines them
                  (the stricter wins).
- `nightly`       NightRates; `room_night_price` (single rate, extra adults, children) and
                  `night_amount` for all the stay's rooms; None means "no_rate".
- `sellability`   `evaluate_stay` -> StayQuote (sellable, reasons in REASONS order, nights,
                  total); `quote_in_currency` converts a quote night by night.
- `money`         `minor_units`, `round_money` (half-up), `convert`, `convert_nights`, FxTable
                  and CurrencyNotSupported.
- `penalties`     CancellationPolicy (contract dict shape), `hours_before_check_in` (to 00:00 of
                  check-in in the property's timezone), `booking_policy_penalty` (a pull booking's
                  cancellation under its copied policy; a pushed reservation's penalty is
                  `reservations.penalty.pushed_reservation_penalty`, a different rule).
- `stay_nights`   `stay_nights`: the nights of a stay, for every area.
"""

from connectivity.pricing.money import (
    ConvertedNights,
    CurrencyNotSupported,
    FxTable,
    convert,
    convert_nights,
    minor_units,
    round_money,
    to_decimal,
)
from connectivity.pricing.nightly import NightRates, night_amount, room_night_price
from connectivity.pricing.occupancy import OccupancyError, RoomOccupancy, normalise_occupancy, occupancy_from_guests
from connectivity.pricing.penalties import (
    PENALTY_TYPES,
    CancellationPolicy,
    PenaltyTier,
    booking_policy_penalty,
    hours_before_check_in,
)
from connectivity.pricing.plan_rules import RatePlanRules, nationality_allowed, occupancy_fits
from connectivity.pricing.restrictions import NightRestrictions, effective
from connectivity.pricing.sellability import (
    REASONS,
    NightInput,
    NightPrice,
    StayQuote,
    evaluate_stay,
    quote_in_currency,
)

__all__ = [
    "PENALTY_TYPES", "REASONS",
    "CancellationPolicy", "ConvertedNights", "CurrencyNotSupported", "FxTable", "NightInput",
    "NightPrice", "NightRates", "NightRestrictions", "OccupancyError", "PenaltyTier",
    "RatePlanRules", "RoomOccupancy", "StayQuote",
    "booking_policy_penalty", "convert", "convert_nights", "effective", "evaluate_stay",
    "hours_before_check_in", "minor_units", "night_amount", "nationality_allowed",
    "normalise_occupancy", "occupancy_fits", "occupancy_from_guests", "quote_in_currency",
    "room_night_price", "round_money", "to_decimal",
]
