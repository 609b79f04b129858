from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.clock import utc_now
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.ready_body import ready_response
from connectivity.web.services import services
from connectivity.bookings.acknowledge import acknowledge_hotel_booking as acknowledge
from connectivity.bookings.hotel_bookings import list_hotel_bookings as listing
from connectivity.bookings.hotel_bookings import read_hotel_booking
from connectivity.bookings.hotel_schemas import (AcknowledgeRequestSchema, HotelBookingDataSchema,
                                                 HotelBookingListQuerySchema,
                                                 HotelBookingListSchema)

blp = ApiBlueprint("hotel_bookings", __name__, url_prefix=API_PREFIX, description=(
    "Hotel bookings: the pull bookings other partners made on the hotels whose bookings the "
    "caller receives, and the hotel's acknowledgement of each."))

HOTEL_BOOKING = "/hotel-bookings/<confirmation_number:confirmationNumber>"


@blp.route("/hotel-bookings", methods=["GET"])
@blp.arguments(HotelBookingListQuerySchema, location="query")
@blp.response(200, enveloped(HotelBookingListSchema))
@error_responses(blp, *GUARDED, 422)
@requires("reservation.write")
def list_hotel_bookings(query):
    """The bookings made on your hotels, oldest first, filtered and in pages (scope reservation.write)

    For the partner whose mapping of a hotel has `receives_bookings` (GET
    /mapping/hotels/{hotelCode} shows it): the pull bookings other partners made on those
    hotels, in the key's environment, oldest `created_at` first, in your codes exactly as the
    `hotel_booking.*` events give them (a room type or rate plan you map none of is null and
    named in `unmapped`), plus the hotel's acknowledgement: `acknowledged`, `acknowledged_at`,
    `hotel_confirmation_code`. Filters, all optional: `hotel_code` (your code; one you do not
    receive bookings for gives an empty list), `status` (`confirmed`, `cancelled`),
    `acknowledged` (`false`: what the hotel's system still has to load, the cancellations of
    bookings it loaded included). `limit` 1-200 (default 50). `next_cursor` is null exactly
    when `has_more` is false; send it back with the same filters: a cursor is only valid with
    the filters it was issued for (otherwise 422 naming `cursor`).

    A channel manager that missed webhooks catches up by paging `?acknowledged=false` and
    acknowledging what it loads."""
    # Written without a dump of the page through HotelBookingListSchema, which describes it
    # (web/ready_body.py: the dump was a third of the request's CPU);
    # tests/bookings/test_hotel_bookings.py holds the two equal.
    return ready_response(listing(services().db, services().hotel_booking_cursors,
                                  current_caller(), query))


@blp.route(HOTEL_BOOKING, methods=["GET"])
@blp.response(200, enveloped(HotelBookingDataSchema))
@error_responses(blp, *GUARDED, 404)
@requires("reservation.write")
def get_hotel_booking(confirmationNumber):  # noqa: N803 - the contract's parameter name
    """A booking made on one of your hotels, by its confirmation number (scope reservation.write)

    As GET /hotel-bookings lists it. A confirmation number that is not a booking another
    partner made on a hotel whose bookings you receive, in the key's environment (unknown,
    another hotel's, your own pull booking's) is 404 `not_found`."""
    return read_hotel_booking(services().db, current_caller(), confirmationNumber)


@blp.route(f"{HOTEL_BOOKING}/acknowledge", methods=["POST"])
@blp.arguments(AcknowledgeRequestSchema, example={
    "status": "confirmed", "hotel_confirmation_code": "LIS-88213"})
@blp.response(200, enveloped(HotelBookingDataSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404, 409)
@requires("reservation.write")
def acknowledge_hotel_booking(request, confirmationNumber):  # noqa: N803
    """Say the hotel's system has loaded a booking, with the hotel's own code (scope reservation.write)

    `status` is the status the hotel's system loaded, and must be the booking's current one:
    otherwise 409 `status_changed` with the current one in `details.status`, and nothing is
    stored (load the newer state first, then acknowledge it: a cancellation needs its own
    acknowledgement). Answers 200 with the hotel booking, `acknowledged: true`.
    `hotel_confirmation_code` (optional, 1-64 of `A-Za-z0-9._/-`) is the hotel's own code: it
    replaces the stored one; left out, the stored one stays. Repeating an acknowledgement
    changes nothing and answers the same; two at once store one.

    The booking partner sees the hotel's answer on its booking (`hotel_confirmation_code`,
    `hotel_acknowledged_at`) and hears of it by a `booking.hotel_confirmed` event when the
    confirmed booking is first acknowledged and whenever the code changes. A booking nobody
    acknowledges is reported to the operators after a while."""
    return acknowledge(services().db, current_caller(), confirmationNumber, request, utc_now())
