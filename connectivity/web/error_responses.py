"""OpenAPI documentation of the failure responses each operation can give, so the published
description lists every status a client must handle. The texts come from the error catalogue."""

from __future__ import annotations

from connectivity.adapters.smorest_apidoc import document_without_wrapping
from connectivity.web.catalogue import CATALOGUE, status_description
from connectivity.web.envelope import ErrorEnvelopeSchema

# 413's text names the body limit, the app's setting, known only once the app exists
# (register_error_responses, from init_api): the operations refer to that one response.
BODY_LIMIT_STATUS = 413
BODY_LIMIT_RESPONSE = "PayloadTooLarge"

ERROR_DESCRIPTIONS = {
    status: status_description(status)
    for status in sorted({entry.status for entry in CATALOGUE}) if status != BODY_LIMIT_STATUS
}

GUARDED = (401, 403, 429, 503)
WITH_BODY = (400, 413, 415, 422)


def register_error_responses(spec, max_body_bytes: int) -> None:
    spec.components.response(BODY_LIMIT_RESPONSE, {
        "description": status_description(BODY_LIMIT_STATUS, max_body_bytes),
        "content": {"application/json": {"schema": ErrorEnvelopeSchema}}})


def error_responses(blp, *statuses: int):
    def document(view):
        for status in sorted(set(statuses)):
            if status == BODY_LIMIT_STATUS:
                documented = blp.alt_response(status, response=BODY_LIMIT_RESPONSE)(view)
            else:
                documented = blp.alt_response(status, schema=ErrorEnvelopeSchema,
                                              description=ERROR_DESCRIPTIONS[status])(view)
            # The view takes the description and stays unwrapped: every request is spared one
            # call layer per documented status (each would look up `current_app` and
            # `ensure_sync`). flask-smorest's private `_apidoc` is touched only in the adapter.
            view = document_without_wrapping(view, documented)
        return view
    return document
