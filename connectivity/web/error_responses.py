"""OpenAPI documentation of the failure responses each operation can give, so the published
description lists every status a client must handle."""

from __future__ import annotations

from connectivity.adapters.smorest_apidoc import document_without_wrapping
from connectivity.web.envelope import ErrorEnvelopeSchema

ERROR_DESCRIPTIONS = {
    400: "`malformed_json`: the body is not well-formed JSON",
    401: "`missing_credentials`, `invalid_credentials`, `key_revoked`, `key_expired`, "
         "`signature_required`, `stale_request` (`details.server_time`, and "
         "`details.skew_seconds`: server time minus `X-Timestamp`), `invalid_signature`, "
         "`replayed_request`",
    403: "`insufficient_scope` (`details.required`, `details.held`), `no_mapped_properties`, or "
         "`sandbox_only` (`X-Sandbox-Scenario` sent with a production key)",
    404: "`not_found`",
    409: "a business conflict; `error.code` says which (`sold_out`, `not_sellable` with "
         "`details.reasons`, `price_mismatch` with the service's `total_amount` and `currency`, "
         "`quote_expired`, `quote_mismatch`, `penalty_exceeds_expectation`)",
    413: "`payload_too_large`: the body is over 8 MiB",
    415: "`unsupported_media_type`: the body is not `application/json`",
    422: "`validation_failed` (`details.fields`: every failing field path), "
         "`currency_not_supported` (no FX rate into the requested currency), "
         "`invalid_quote_token` (a quote token this service did not sign, or altered)",
    429: "`rate_limited`: retry after `Retry-After` seconds",
    503: "`service_unavailable`: a backing service is unreachable (the database; for a "
         "signed request also the replay check, which fails closed); retry after "
         "`Retry-After` seconds, a signed request with a fresh nonce",
}

GUARDED = (401, 403, 429, 503)
WITH_BODY = (400, 413, 415, 422)


def error_responses(blp, *statuses: int):
    def document(view):
        for status in sorted(set(statuses)):
            documented = blp.alt_response(status, schema=ErrorEnvelopeSchema,
                                          description=ERROR_DESCRIPTIONS[status])(view)
            # The view takes the description and stays unwrapped, which spares every request
            # one call layer per documented status (three or four per guarded route; each
            # looks up `current_app` and `ensure_sync`: about 4.5 us a layer, measured on the
            # shared 2-core machine). flask-smorest's private `_apidoc` is touched only in the
            # adapter.
            view = document_without_wrapping(view, documented)
        return view
    return document
