from flask import request as http_request

from connectivity import API_PREFIX
from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import current_caller, requires
from connectivity.web.error_responses import GUARDED, WITH_BODY, error_responses
from connectivity.web.envelope import enveloped
from connectivity.web.forced_outcomes import forced_outcome
from connectivity.web.ready_body import ready_json_response
from connectivity.web.services import services
from connectivity.ari.batches import accept_batch, batch_outcome
from connectivity.ari.idempotency import REPLAYED_HEADER, IdempotentRequest
from connectivity.ari.dry_run import dry_run_batch
from connectivity.ari.readback import read_back
from connectivity.ari.schemas import (MAX_ARI_ITEMS, MAX_READBACK_CODES, MAX_READBACK_DAYS,
                      MAX_RESTRICTION_ITEMS, AriRequestSchema, BatchAcceptedSchema,
                      BatchOutcomeSchema, DryRunQuerySchema, DryRunResultSchema,
                      IdempotencyHeaderSchema, ReadBackQuerySchema, ReadBackSchema,
                      RestrictionsRequestSchema)

blp = ApiBlueprint("ari", __name__, url_prefix=API_PREFIX,
                description="ARI push: rates, inventory and restrictions, applied asynchronously.")

def described(text: str):
    """Give a view its OpenAPI description when the text is built, not literal."""
    def describe(view):
        view.__doc__ = text
        return view
    return describe


_ACCEPTANCE = """

The whole request is checked against the field rules first: any violation is 422
`validation_failed` with every failing path, and nothing is stored. 404 `not_found` when the
hotel code is not mapped for the caller (a paused distribution still accepts ARI). Otherwise the
batch is stored durably and answered 202 with its `batch_id`; a worker applies it shortly after
(GET /ari/batches/{batchId} tells the outcome). Items that pass the rules but cannot apply are
rejected rows with a code, while the rest applies: `unknown_room_type`, `unknown_rate_plan`,
`rate_plan_not_for_room_type`, `price_without_rate_plan`, `currency_mismatch`,
`min_stay_above_max_stay`, `date_in_past` (before yesterday in the hotel's timezone),
`date_too_far` (more than 2 years ahead), `sandbox_scenario` (item 0 of a sandbox batch pushed
with `X-Sandbox-Scenario: partially_applied`, which needs at least 2 items).

With `dry_run=true` the request gets the same authentication, scope, rate limit, field rules
(422) and 404, then answers 200 synchronously with what the push would do if applied now:
the exact `rejected` rows the batch outcome would report, and every stored field it would
change (`from`, `to`), compared with the values applied at the time of the call (batches still
queued are not taken into account). Nothing is stored: no batch, no job, no value. `dry_run`
takes `true` or `false`; anything else is 422.

Semantics: a per-date, per-field upsert. Fields sent overwrite, fields absent stay as they were;
sending the same batch again changes nothing. Batches take effect in the order they were
accepted, field by field, even if applied out of order: a value is never overwritten by an older
batch's. Within one batch, a later item for the same date wins."""


_DRY_RUN_ANSWER = ("dry_run=true: what the push would do if applied now (the rows it would "
                   "reject, every stored value it would change, compared with the values "
                   "applied when called: batches still queued are not counted); nothing is "
                   "stored")
_DRY_RUN_EXAMPLE = {"success": True, "request_id": "5f0c1d2e3a4b4c5d", "data": {
    "dry_run": True, "item_count": 2, "applied_count": 1, "rejected_count": 1,
    "rejected": [{"index": 1, "code": "unknown_rate_plan",
                  "message": "rate plan 'ACME-XYZ' is not mapped for this hotel"}],
    "changes": [{"index": 0, "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                 "date": "2027-01-01", "field": "rate", "from": 110, "to": 120}]}}


_REPLAYED = {REPLAYED_HEADER: {
    "description": "`true` when this answer repeats the first one for the same Idempotency-Key "
                   "(nothing was stored this time); absent otherwise",
    "schema": {"type": "string", "enum": ["true"]}}}


_PUT_ARI = f"""Upsert rates and inventory per date (scope ari.write)

Up to {MAX_ARI_ITEMS} items per request. Inventory (`availability`) belongs to the room type;
prices (`rate`, `single_rate`, `extra_adult_rate`, `extra_child_rate`, per night and room, in the
rate plan's currency) need a `rate_plan_code`; restrictions are the rate plan's when
`rate_plan_code` is sent, else the room type's.""" + _ACCEPTANCE


@blp.route("/ari", methods=["PUT"])
@blp.arguments(AriRequestSchema)
@blp.arguments(DryRunQuerySchema, location="query")
@blp.arguments(IdempotencyHeaderSchema, location="headers")
@blp.response(202, enveloped(BatchAcceptedSchema), headers=_REPLAYED)
@blp.alt_response(200, schema=enveloped(DryRunResultSchema), success=True,
                  description=_DRY_RUN_ANSWER, example=_DRY_RUN_EXAMPLE)
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("ari.write")
@described(_PUT_ARI)
def put_ari(request, query, headers):
    return _accept("ari", request, query["dry_run"], headers["idempotency_key"])


_PUT_RESTRICTIONS = f"""Upsert restrictions over date ranges (scope restriction.write)

Up to {MAX_RESTRICTION_ITEMS} items, each a range `from_date`..`to_date` (inclusive), narrowed
to `days_of_week` (0 = Monday ... 6 = Sunday) when sent. A range that starts before yesterday
(hotel time) applies from yesterday on.""" + _ACCEPTANCE


@blp.route("/ari/restrictions", methods=["PUT"])
@blp.arguments(RestrictionsRequestSchema)
@blp.arguments(DryRunQuerySchema, location="query")
@blp.arguments(IdempotencyHeaderSchema, location="headers")
@blp.response(202, enveloped(BatchAcceptedSchema), headers=_REPLAYED)
@blp.alt_response(200, schema=enveloped(DryRunResultSchema), success=True,
                  description=_DRY_RUN_ANSWER, example=_DRY_RUN_EXAMPLE)
@error_responses(blp, *GUARDED, *WITH_BODY, 404)
@requires("restriction.write")
@described(_PUT_RESTRICTIONS)
def put_restrictions(request, query, headers):
    return _accept("restrictions", request, query["dry_run"], headers["idempotency_key"])


@blp.route("/ari/batches/<batch_id:batchId>", methods=["GET"])
@blp.response(200, enveloped(BatchOutcomeSchema))
@error_responses(blp, *GUARDED, 404)
@requires("ari.write", "restriction.write", any_of=True)
def get_batch(batchId):  # noqa: N803 - the specification's parameter name
    """Outcome of an accepted batch (scope ari.write or restriction.write)

    Read from the service's database, so it stays available after the queue forgets the job.
    `status`: `queued`, `processing`, then `applied` (every item applied), `partially_applied`
    (some rejected, with `rejected[].index` their 0-based position in `items`, a `code` and a
    `message`), `rejected` (none applied) or `failed` (processing itself failed after retries).
    Visible to every key of the partner holding `ari.write` or `restriction.write`; another
    partner's batch id is 404 `not_found`, as is one that does not exist."""
    return batch_outcome(services().db, current_caller(), batchId, services().read_fence)


_GET_ARI = f"""Read back the stored ARI of one hotel (scope ari.write or restriction.write)

Every date of `from_date`..`to_date` (inclusive, at most {MAX_READBACK_DAYS} days apart) for
every room type the caller maps for the hotel, and under each every mapped rate plan that sells
it (narrowed by `room_type_codes` / `rate_plan_codes`, comma-separated, at most
{MAX_READBACK_CODES} each). Values are the stored ones at each level, not the effective
combination, `null` where nothing was ever set. `availability` is what remains to sell;
`rooms_sold` counts the rooms of the night held by confirmed pull bookings and live pushed
reservations of every partner (cancelled ones released; a pushed reservation counts all its
rooms, also a shortfall inventory could not cover).

`set_by` names, for each field that has a value, the batch whose value is in force (the newest
accepted batch that set it, recorded by the apply as it writes the value): its `batch_id`,
readable through GET /ari/batches/{{batchId}}, or `other_partner` for another partner's batch.
Bookings and reservations change `availability` without a batch, so `set_by.availability`
stays the last batch that set it. A paused distribution is still readable. 404 `not_found` when
the hotel is not mapped for the caller; 422 `validation_failed` for any other rule.

Example: `GET /ari?hotel_code=ACME-LIS&from_date=2027-01-01&to_date=2027-01-31&room_type_codes=ACME-DBL`"""


@blp.route("/ari", methods=["GET"])
@blp.arguments(ReadBackQuerySchema, location="query")
@blp.response(200, enveloped(ReadBackSchema))
@error_responses(blp, *GUARDED, 404, 422)
@requires("ari.write", "restriction.write", any_of=True)
@described(_GET_ARI)
def read_ari(query):
    return ready_json_response(read_back(services().db, current_caller(), query))


def _accept(kind: str, request: dict, dry_run: bool, idempotency_key: str | None):
    if dry_run:
        # A dry run neither uses nor reads keys (contract 12.4).
        return ready_json_response(dry_run_batch(services().db, current_caller(), kind,
                                                 request))
    idempotent = None
    if idempotency_key is not None:
        # The request a key stands for: method, path and the body bytes as sent.
        idempotent = IdempotentRequest.of(idempotency_key, http_request.method,
                                          http_request.path, http_request.get_data(cache=True))
    # A sandbox scenario the push honours itself (partially_applied, delayed_apply) is stored
    # with the batch.
    accepted, replayed = accept_batch(services().db, services().ari_queue, current_caller(),
                                      kind, request, forced_outcome(), idempotent)
    if replayed:
        return accepted, {REPLAYED_HEADER: "true"}
    return accepted
