"""The error catalogue (contract section 6): every code a partner can get, its HTTP status, what
it means and what to do. The ApiError classes take their status from it, and the OpenAPI text
and docs/errors.md are generated from it.

`python -m connectivity.web.catalogue > docs/errors.md` writes the partners' page."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# A meaning may name the body limit, the app's MAX_CONTENT_LENGTH, as this placeholder.
MAX_BODY = "{max_body}"


@dataclass(frozen=True)
class ErrorCode:
    status: int
    code: str
    meaning: str
    action: str
    # The machine-readable facts `error.details` carries, if any, as a phrase ("with ...").
    details: str = ""
    # The message when the framework itself refuses a request with this status (Werkzeug's
    # 404, 405, 413...); None when only the service's own code raises the code.
    framework_message: str | None = None


# In the contract's order; the 401s in the order the checks run (contract section 2).
# Contract section 12's codes (limit_reached, idempotency_key_reused) join with the operations
# that raise them.
CATALOGUE: tuple[ErrorCode, ...] = (
    ErrorCode(400, "malformed_json", "the body is not well-formed JSON",
              "fix the body", framework_message="the body is not well-formed JSON"),
    ErrorCode(401, "missing_credentials", "no credentials were sent",
              "send the token as issued, do not retry"),
    ErrorCode(401, "invalid_credentials", "unknown key or wrong secret",
              "send the token as issued, do not retry"),
    ErrorCode(401, "key_revoked", "the key has been revoked", "ask for a new key"),
    ErrorCode(401, "key_expired", "the key's expiry time has passed", "ask for a new key"),
    ErrorCode(401, "signature_required", "a key that must sign sent a bearer token",
              "sign the request (`X-Api-Key-Id`, `X-Timestamp`, `X-Nonce`, `X-Signature`)"),
    ErrorCode(401, "stale_request", "`X-Timestamp` is further from the server clock than allowed",
              "fix the clock, meanwhile adding `details.skew_seconds` to the timestamps",
              details="with `details.server_time` and `details.skew_seconds` (server time "
                      "minus `X-Timestamp`)"),
    ErrorCode(401, "invalid_signature",
              "`X-Signature` does not match the request, or a signature header is malformed",
              "check the string to sign: the exact path and query and body bytes"),
    ErrorCode(401, "replayed_request", "the key sent this nonce before, within the replay window",
              "sign every attempt anew, with a fresh nonce"),
    ErrorCode(403, "insufficient_scope", "the key does not hold the operation's scope",
              "ask for the scope", details="with `details.required` and `details.held`"),
    ErrorCode(403, "no_mapped_properties",
              "nothing is mapped for the partner in the key's environment",
              "ask for a mapping (`GET /whoami` shows `mapped_properties`)"),
    ErrorCode(403, "sandbox_only", "`X-Sandbox-Scenario` sent with a production key",
              "drop the header: it is for sandbox keys"),
    ErrorCode(404, "not_found",
              "an unknown path, or a hotel, booking, reservation or batch that is not the "
              "caller's", "check the path and the codes in it",
              framework_message="no such resource"),
    ErrorCode(405, "method_not_allowed", "this method is not allowed on this path",
              "use a method the `Allow` header lists",
              framework_message="this method is not allowed on this path"),
    ErrorCode(409, "limit_reached",
              "the partner already has as many webhook endpoints in this environment as allowed "
              "(10)", "delete an endpoint it no longer needs, then create the new one"),
    ErrorCode(409, "sold_out", "fewer rooms are left on some night of the stay than asked for",
              "search again"),
    ErrorCode(409, "not_sellable",
              "the stay cannot be sold (closed, restrictions, occupancy, nationality or a "
              "missing rate)", "change the stay", details="with `details.reasons`"),
    ErrorCode(409, "price_mismatch", "the price sent is not the service's price now",
              "show the price now, then book at it",
              details="with the service's price in `details.total_amount` and "
                      "`details.currency`"),
    ErrorCode(409, "quote_expired", "the quote token has expired", "quote again"),
    ErrorCode(409, "quote_mismatch", "the quote token was issued for another stay or partner",
              "quote this stay"),
    ErrorCode(409, "penalty_exceeds_expectation",
              "the cancellation penalty is above `expected_penalty_amount`",
              "confirm the penalty with the guest, then cancel expecting it",
              details="with `details.penalty_amount` and `details.currency`"),
    ErrorCode(410, "cursor_expired",
              "the cursor is older than what its log keeps (changes, events), or not one this key "
              "was given",
              "start again without a cursor"),
    ErrorCode(413, "payload_too_large", f"the body is over {MAX_BODY}", "split the request",
              framework_message="the body is larger than the service accepts"),
    ErrorCode(415, "unsupported_media_type", "the body is not sent as `application/json`",
              "send `Content-Type: application/json`",
              framework_message="request bodies must be sent as application/json"),
    ErrorCode(422, "validation_failed", "the request breaks a field rule",
              "fix every field `details.fields` names",
              details="with every failing field path in `details.fields`",
              framework_message="the request is invalid"),
    ErrorCode(422, "invalid_quote_token",
              "a quote token this service did not sign, or one altered since",
              "send the token exactly as the quote returned it"),
    ErrorCode(422, "currency_not_supported",
              "no FX rate converts the prices into the requested currency",
              "ask without `currency`, or in another one"),
    ErrorCode(422, "idempotency_key_reused",
              "the `Idempotency-Key` was used before for another request (another path or body) "
              "of the partner and environment; nothing was stored",
              "send a new key for a new request; a retry sends the same key with the same body",
              details="with the first request's `details.batch_id`"),
    ErrorCode(429, "rate_limited", "the key sent more than its `rate_limit_per_minute` in 60 s",
              "retry after `Retry-After` seconds"),
    ErrorCode(501, "not_implemented", "the operation is not implemented",
              "do not retry, report it", framework_message="not implemented yet"),
    ErrorCode(503, "service_unavailable",
              "a backing service is unreachable (the database; for a signed request also the "
              "replay check, which fails closed)",
              "retry after `Retry-After` seconds, a signed request with a fresh nonce"),
    ErrorCode(500, "internal_error", "the service failed to handle the request",
              "retry later, quoting the `request_id` to support",
              framework_message="internal error"),
)

BY_CODE: dict[str, ErrorCode] = {entry.code: entry for entry in CATALOGUE}


def status_of(code: str) -> int:
    return BY_CODE[code].status


def entries_of(status: int) -> tuple[ErrorCode, ...]:
    return tuple(entry for entry in CATALOGUE if entry.status == status)


def size_text(n_bytes: int) -> str:
    """8388608 -> "8 MiB"."""
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n_bytes >= size and n_bytes % size == 0:
            return f"{n_bytes // size} {unit}"
    return f"{n_bytes:,} bytes"


def _meaning(entry: ErrorCode, max_body_bytes: int | None) -> str:
    meaning = f"{entry.meaning}, {entry.details}" if entry.details else entry.meaning
    if MAX_BODY not in meaning:
        return meaning
    if max_body_bytes is None:
        raise ValueError(f"the text of {entry.code} names the body limit: pass max_body_bytes")
    return meaning.replace(MAX_BODY, size_text(max_body_bytes))


def _line(entry: ErrorCode, max_body_bytes: int | None) -> str:
    return f"`{entry.code}`: {_meaning(entry, max_body_bytes)}; {entry.action}"


def status_description(status: int, max_body_bytes: int | None = None) -> str:
    """An OpenAPI response's description: each code of the status, what it means, what to do
    (`max_body_bytes`: for the status whose text names the body limit)."""
    entries = entries_of(status)
    if len(entries) == 1:
        return _line(entries[0], max_body_bytes)
    return "\n".join(f"- {_line(entry, max_body_bytes)}" for entry in entries)


def table(max_body_bytes: int) -> Iterator[str]:
    """The catalogue as the lines of a Markdown table."""
    yield "| status | code | meaning | what to do |"
    yield "|---|---|---|---|"
    for entry in CATALOGUE:
        yield (f"| {entry.status} | `{entry.code}` | {_meaning(entry, max_body_bytes)} "
               f"| {entry.action} |")


def api_section(max_body_bytes: int) -> str:
    """The catalogue as a section of the API's OpenAPI description."""
    return "\n".join(["**Error codes.**", "", *table(max_body_bytes)]) + "\n"


def partners_page(max_body_bytes: int) -> str:
    """docs/errors.md."""
    return "\n".join([
        "# Error codes",
        "",
        "Every failure is answered in one envelope:",
        "`{\"success\": false, \"error\": {\"code\", \"message\", \"details\"}, \"request_id\"}`.",
        "Branch on `error.code`, never on `error.message`; quote `request_id` (also the",
        "`X-Request-Id` header) to support. New codes may be added; none is renamed or reused for",
        "another cause.",
        "",
        *table(max_body_bytes),
        "",
        "Generated from `connectivity/web/catalogue.py`: "
        "`python -m connectivity.web.catalogue > docs/errors.md`.",
    ]) + "\n"


if __name__ == "__main__":
    from connectivity.settings import Settings

    print(partners_page(Settings.max_body_bytes), end="")
