"""POST /reservations and its cancel and modify: reservations already confirmed with a guest,
pushed by a channel manager. Never refused for inventory; disagreements are reconciled."""

import inspect

from flask import g, request

from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.clock import utc_now
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.services import services
from connectivity.reservations.record import read_reservation
from connectivity.reservations.responses import (DeliveryResultSchema,
                                                 ReservationCancelResultSchema,
                                                 ReservationRecordSchema)
from connectivity.reservations.schemas import (ModifyRequestSchema,
                                               ReservationCancelRequestSchema,
                                               ReservationRequestSchema)
from connectivity.reservations.service import cancel_reservation as cancel_use_case
from connectivity.reservations.service import modify_reservation as modify_use_case
from connectivity.reservations.service import push_reservation as push_use_case

blp = ApiBlueprint("reservations", __name__, url_prefix=API_PREFIX,
                description="Push reservations: deliver reservations already confirmed.")

RECONCILIATION_DOC = """
`reconciliation` lists what this delivery disagrees on (empty when clean), by `code`:
`inventory_shortfall` (fewer rooms left than the reservation holds on some nights),
`unmapped_room_type`, `unmapped_rate_plan` (codes kept as sent), `nightly_rates_missing`
(some room has no rate for some night: the total is unverified), `nightly_rates_mismatch`
(nightly rates x quantity, over all rooms, differ from `sell_amount`, else `net_amount`),
`orphan_cancellation`, `unknown_modification`, `modification_after_cancellation`,
`penalty_claim_differs`. The operator reconciles them; the delivery itself stands."""


def _documented(view):
    # Under @blp.route, which reads the docstring into the OpenAPI description.
    view.__doc__ = inspect.cleandoc(view.__doc__) + "\n\n" + RECONCILIATION_DOC.strip()
    return view


def _payload() -> str:
    # Kept exactly as received (as jsonb); a cancel may come with no body at all.
    raw = request.get_data(cache=True, as_text=True)
    return raw if raw.strip() else "{}"


@blp.route("/reservations", methods=["POST"])
@_documented
@blp.arguments(ReservationRequestSchema)
@blp.response(201, enveloped(DeliveryResultSchema))
@blp.alt_response(200, schema=enveloped(DeliveryResultSchema),
                  description="a redelivery: the original acknowledgement, "
                              "`idempotent_replay: true`")
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("reservation.write")
def push_reservation(reservation):
    """Deliver an already-confirmed reservation (scope reservation.write)

    Accepted whatever the inventory: for each room type, quantity and night the service takes
    what is left, up to what the reservation holds, and records any shortfall. 201 for the
    first delivery of a `partner_reference` (per partner and environment); a redelivery is 200
    with the original `acknowledgement` and `idempotent_replay: true` (`request_differs: true`
    when its body differs; the original stands) and changes nothing. Every body received is
    kept.

    `status` on a first delivery: `confirmed` and `modified` take inventory alike (the
    reservation is stored with that status); `cancelled` is stored cancelled and takes nothing.
    When a cancel of this reference arrived first, the reservation is stored cancelled and takes
    nothing; when a modify arrived first, its stay and rooms replace the ones delivered here and
    the status is `modified`.

    A hotel code not mapped for the caller in the key's environment is 404 `not_found`
    (nothing is kept: deliver it again once mapped); a paused mapping still accepts
    reservations. Room type and rate plan codes not mapped are accepted and kept.
    `nightly_rates` are per room unit, in `sell_currency` when `sell_amount` is sent, else in
    `net_currency`.
    """
    result = push_use_case(services().db, current_caller(), reservation, _payload(),
                           g.request_id)
    return result, 200 if result["idempotent_replay"] else 201


@blp.route("/reservations/<reference:reference>", methods=["GET"])
@_documented
@blp.response(200, enveloped(ReservationRecordSchema))
@error_responses(blp, *GUARDED, 404)
@requires("reservation.write", "reservation.cancel", any_of=True)
def get_reservation(reference):
    """A pushed reservation with its versions (scope reservation.write or reservation.cancel)

    The caller's reservation of `reference` in the key's environment, as the delivery answers
    show it, with `orphan` (true when a cancellation arrived before the reservation itself; it
    then shows `status: "cancelled"`). `versions`, oldest first: `version` counts from 1, and the
    first delivery, each modify and the cancel each add one (a redelivery does not), with the
    `status` it made and its acknowledgement. `reconciliation`: every item its deliveries raised,
    with `created_at` and `resolved_at` (null while open). Unknown or another partner's
    reference: 404 `not_found`.
    """
    return read_reservation(services().db, current_caller(), reference)


@blp.route("/reservations/<reference:reference>/cancel", methods=["POST"])
@_documented
@blp.arguments(ReservationCancelRequestSchema, required=False)
@blp.response(200, enveloped(ReservationCancelResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("reservation.cancel")
def cancel_reservation(cancel, reference):
    """Deliver a cancellation (scope reservation.cancel)

    Releases exactly the inventory the reservation took (never its shortfall). The service
    computes its own `penalty.amount` in `net_currency`: 100% of `net_amount` when the
    reservation is non-refundable or is cancelled after its `cancellation_deadline`
    (`cancelled_at`, else the day the cancellation arrived at the hotel), else 0.
    `penalty_amount` is kept as `penalty.partner_claim` (in `penalty_currency`, default
    `net_currency`), never applied; a different claim raises `penalty_claim_differs`.

    Accepted even when the reservation was never received (`orphan: true`, `penalty.amount`
    null, `orphan_cancellation` recorded); if the reservation arrives later it is stored as
    cancelled, takes no inventory and the penalty is computed then. A redelivered cancel is 200
    with the original acknowledgement and `idempotent_replay: true`, and releases nothing
    again.
    """
    return cancel_use_case(services().db, current_caller(), reference, cancel, _payload(),
                           g.request_id, utc_now())


@blp.route("/reservations/<reference:reference>/modify", methods=["POST"])
@_documented
@blp.arguments(ModifyRequestSchema)
@blp.response(200, enveloped(DeliveryResultSchema))
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("reservation.write")
def modify_reservation(modification, reference):
    """Deliver the complete new state of a reservation (scope reservation.write)

    The body replaces the stay, rooms and net amount (never a diff); the status becomes
    `modified`. In one transaction the inventory the old state took is released and the new
    state's is taken as far as it goes (shortfall recorded). Every body received is kept as a
    version. A body identical to the latest modify is a redelivery: the original
    acknowledgement, `idempotent_replay: true`, nothing changes. The modify body has no
    nightly rates, so the new `net_amount` is recorded as sent.

    A modify of a reservation never received is accepted and kept (`unknown_modification`);
    it is applied when the reservation arrives. A modify of a cancelled reservation is kept,
    not applied (`modification_after_cancellation`).
    """
    return modify_use_case(services().db, current_caller(), reference, modification,
                           _payload(), g.request_id)
