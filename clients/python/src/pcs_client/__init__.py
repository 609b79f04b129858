"""Python client of the Partner Connectivity Service API v1 (`pip install ./clients/python`)."""

from .client import API_PREFIX, Client
from .errors import ApiError, ClockSkewError, InvalidRequest, PcsError, UnknownOption
from .models import (Batch, BatchAccepted, Booking, BookingResult, CancelResult, Change, Event,
                     Hotel, HotelAvailability, HotelBooking, Night, Ping, Quote, RatePlanOffer,
                     RatesResult, RejectedItem, ReservationRecord, ReservationVersion,
                     SearchResult, Whoami)
from .signing import signed_headers, string_to_sign
from .webhooks import WebhookVerificationError, verify_webhook

__all__ = ["API_PREFIX", "ApiError", "Batch", "BatchAccepted", "Booking", "BookingResult",
           "CancelResult", "Change", "Client", "Event", "Hotel", "ClockSkewError",
           "HotelAvailability", "HotelBooking", "InvalidRequest", "Night", "PcsError", "Ping",
           "Quote", "RatePlanOffer", "RatesResult", "RejectedItem", "ReservationRecord",
           "ReservationVersion", "SearchResult", "UnknownOption", "WebhookVerificationError",
           "Whoami", "signed_headers", "string_to_sign", "verify_webhook"]
