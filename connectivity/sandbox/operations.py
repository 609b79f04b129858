"""Which scenarios each operation honours beyond the faults, keyed by endpoint, and how each is
answered (contract 11.4). An answer takes the view's arguments and gets what the view would from
the app; the pull answers themselves are in pull.py and store nothing."""

from __future__ import annotations

from connectivity.auth.access import current_caller
from connectivity.sandbox import pull
from connectivity.web.clock import utc_now
from connectivity.web.ready_body import ready_response
from connectivity.web.services import services


def _search_sold_out(request):
    return ready_response(pull.search_sold_out(services().reads, current_caller(), request,
                                               utc_now()))


def _rates_sold_out(request):
    return ready_response(pull.rates_sold_out(services().reads, current_caller(), request,
                                              utc_now()))


def _quote_sold_out(request):
    return pull.quote_sold_out(services().db, current_caller(), request, utc_now())


def _quote_price_changed(request):
    return pull.quote_price_changed(services().db, services().quote_tokens, current_caller(),
                                    request, utc_now())


def _booking(answer):
    def forced(request):
        return answer(services().db, services().quote_tokens, current_caller(), request,
                      utc_now())
    return forced


def _cancel_penalty_exceeds(request, reference):
    return pull.cancel_penalty_exceeds(services().db, current_caller(), reference, request,
                                       utc_now())


# Stored with the batch and honoured by the push views themselves (ari/batches.py).
_BATCH = {"partially_applied": None, "delayed_apply": None}

OPERATIONS = {
    "availability.search": {"sold_out": _search_sold_out},
    "availability.rates": {"sold_out": _rates_sold_out},
    "bookings.quote": {"sold_out": _quote_sold_out, "price_changed": _quote_price_changed},
    "bookings.create_booking": {"sold_out": _booking(pull.booking_sold_out),
                                "price_changed": _booking(pull.booking_price_changed),
                                "quote_expired": _booking(pull.booking_quote_expired)},
    "bookings.cancel_booking": {"penalty_exceeds_expectation": _cancel_penalty_exceeds},
    "ari.put_ari": _BATCH,
    "ari.put_restrictions": _BATCH,
}
