"""The error catalogue (contract section 6): every code a partner can get, its HTTP status, what
it means and what to do. The ApiError classes take their status from it, and the OpenAPI text
and docs/errors.md are generated from it.

`python -m connectivity.web.catalogue > docs/errors.md` writes the partners' page."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from connectivity import API_PREFIX
from connectivity.web.request_limits import HEADER_FIELD_BYTES, HEADER_FIELDS, REQUEST_LINE_BYTES

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
    # The docs page's section of the code (error.doc_url links to it): how a request usually
    # comes to get it, and how to put it right, beyond `meaning` and `action`.
    cause: str = ""
    fix: str = ""


# In the contract's order; the 401s in the order the checks run (contract section 2).
# Contract sections 12 and 13's codes (limit_reached, idempotency_key_reused, status_changed)
# join with the operations that raise them.
CATALOGUE: tuple[ErrorCode, ...] = (
    ErrorCode(400, "malformed_json", "the body is not well-formed JSON",
              "fix the body", framework_message="the body is not well-formed JSON",
              cause=(
                  "The body was cut short, built by string concatenation, or carries a trailing "
                  "comma, single quotes, a comment, NaN or Infinity: none of those is JSON. Also "
                  "refused, though a parser may take them: arrays and objects nested deeper than "
                  "64 levels, a key twice in one object, a number beyond a 64-bit float's range "
                  "(`1e400`) or of more than 4,300 digits, and bytes that are not UTF-8."),
              fix=(
                  "Serialise the body with a JSON library and send the bytes it produced; `message`"
                  " names where the parser stopped, or what it refused.")),
    ErrorCode(401, "missing_credentials", "no credentials were sent",
              "send the token as issued, do not retry",
              cause=(
                  "The request carries neither `Authorization` nor `X-Api-Key-Id`: the header was "
                  "left out, or a proxy or HTTP client dropped it (some drop `Authorization` on a "
                  "redirect)."),
              fix=(
                  "An unsigned key sends `Authorization: Bearer <key_id>.<secret>`, the whole token"
                  " as issued. A signed key sends `X-Api-Key-Id` (the part of the token before the "
                  "first `.`), `X-Timestamp`, `X-Nonce` and `X-Signature`. On the docs page, "
                  "Authorize with the whole token.")),
    ErrorCode(401, "multiple_credentials",
              "both a bearer token and signed-request headers were sent",
              "send one credential, do not retry",
              cause=(
                  "The request carries a bearer token (`Authorization`) and signed-request headers "
                  "(`X-Api-Key-Id`) at once: it names two keys, or one key two ways, and the "
                  "service will not guess which one is meant. On the docs page this happens when "
                  "both `bearer` and `signed` are authorized."),
              fix=(
                  "The bearer token for an unsigned key, or the four signed headers for a signed "
                  "key. On the docs page, log out of the scheme you do not mean before trying an "
                  "operation.")),
    ErrorCode(401, "invalid_credentials", "unknown key or wrong secret",
              "send the token as issued, do not retry",
              cause=(
                  "The token was mistyped or cut short, or belongs to another deployment, or the "
                  "`Authorization` header is not `Bearer <key_id>.<secret>`; for a signed request, "
                  "`X-Api-Key-Id` names no key, or carries the whole token instead of the key id."),
              fix=(
                  "Copy the token exactly as it was printed when the key was issued: it cannot be "
                  "shown again, so ask the operator for a new key if it is lost. Retrying the same "
                  "request cannot succeed.")),
    ErrorCode(401, "key_revoked", "the key has been revoked", "ask for a new key",
              cause="An operator revoked the key, for example after a rotation or a leak.",
              fix="Use the key that replaced it, or ask the operator for a new one."),
    ErrorCode(401, "key_expired", "the key's expiry time has passed", "ask for a new key",
              cause="The key was issued with an expiry time, and that time has passed.",
              fix=(
                  "Ask the operator for a new key before the old one expires; `GET /whoami` shows "
                  "`expires_at`.")),
    ErrorCode(401, "signature_required", "a key that must sign sent a bearer token",
              "sign the request (`X-Api-Key-Id`, `X-Timestamp`, `X-Nonce`, `X-Signature`)",
              cause=(
                  "A key issued to sign (push keys are, by default) sent `Authorization: Bearer "
                  "...`: signing proves that the request was not altered and is not a replay, so "
                  "such a key must sign every request."),
              fix=(
                  "Sign each request: `X-Api-Key-Id`, `X-Timestamp`, `X-Nonce` and `X-Signature` "
                  "(lowercase hex HMAC-SHA256 keyed with the secret over the method, the path and "
                  "query as sent, the timestamp, the nonce and the hex SHA-256 of the body, joined "
                  "by newlines). On the docs page, authorize `signed` with the whole token "
                  "`<key_id>.<secret>`: the page signs for you.")),
    ErrorCode(401, "stale_request", "`X-Timestamp` is further from the server clock than allowed",
              "fix the clock, meanwhile adding `details.skew_seconds` to the timestamps",
              details="with `details.server_time` and `details.skew_seconds` (server time "
                      "minus `X-Timestamp`)",
              cause=(
                  "`X-Timestamp` is more than 300 s from the server clock: the client's clock is "
                  "wrong, the timestamp is in milliseconds, or the request was signed long before "
                  "it was sent (a queued retry)."),
              fix=(
                  "Synchronise the clock (NTP), send whole unix seconds, and sign each attempt just"
                  " before sending it. `GET /ping` answers the server time.")),
    ErrorCode(401, "invalid_signature",
              "`X-Signature` does not match the request, or a signature header is malformed",
              "check the string to sign: the exact path and query and body bytes",
              cause=(
                  "A signing header is missing (the message names it) or malformed, or the "
                  "signature was computed over something other than what was sent: another path or "
                  "query (re-encoded, reordered, without its `?`), a body serialised again after "
                  "signing, or the wrong secret (the signing key is the part of the token after the"
                  " first `.`)."),
              fix=(
                  "Sign exactly what you send: the method, the path and query as sent, the "
                  "timestamp, the nonce and the hex SHA-256 of the body bytes (of the empty string "
                  "when there is no body), joined by newlines, keyed with the secret's UTF-8 bytes."
                  " The integration guide has signing code in Python, Node and shell.")),
    ErrorCode(401, "replayed_request", "the key sent this nonce before, within the replay window",
              "sign every attempt anew, with a fresh nonce",
              cause=(
                  "The same nonce was sent twice with this key within 600 s: a retry that reused "
                  "the signed headers, or a curl copied from the docs page, whose nonce the page "
                  "already used."),
              fix=(
                  "Make a fresh nonce and signature for every attempt, retries included; never send"
                  " the signed headers of an earlier request again.")),
    ErrorCode(403, "insufficient_scope", "the key does not hold the operation's scope",
              "ask for the scope", details="with `details.required` and `details.held`",
              cause=(
                  "The key was issued without the scope the operation needs: a pull key calling a "
                  "push operation, or the other way round."),
              fix=(
                  "Use the key whose scopes hold `details.required`, or ask the operator for one; "
                  "`GET /whoami` lists a key's scopes.")),
    ErrorCode(403, "no_mapped_properties",
              "nothing is mapped for the partner in the key's environment",
              "ask for a mapping (`GET /whoami` shows `mapped_properties`)",
              cause=(
                  "The partner has no hotel mapped in the key's environment: a sandbox key while "
                  "only production hotels are mapped, or mappings not loaded yet."),
              fix=(
                  "Ask the operator to map your hotels in this environment, or use the key of the "
                  "environment they are mapped in.")),
    ErrorCode(403, "sandbox_only", "`X-Sandbox-Scenario` sent with a production key",
              "drop the header: it is for sandbox keys",
              cause="`X-Sandbox-Scenario` forces test outcomes, which production keys may not do.",
              fix=("Remove the header from production traffic; keep it for tests with a "
                   "sandbox key.")),
    ErrorCode(404, "not_found",
              "an unknown path, or a hotel, booking, reservation or batch that is not the "
              "caller's", "check the path and the codes in it",
              framework_message="no such resource",
              cause=(
                  "The path is mistyped or not under `/api/connectivity/v1`, or the hotel code is "
                  "not mapped and active for your partner in the key's environment, or the booking,"
                  " reservation or batch is another partner's or does not exist."),
              fix=("Check the path against this page, and hotel codes against "
                   "`GET /mapping/hotels`.")),
    ErrorCode(405, "method_not_allowed", "this method is not allowed on this path",
              "use a method the `Allow` header lists",
              framework_message="this method is not allowed on this path",
              cause=(
                  "The path exists, but not with this method (a `POST` where a `PUT` is wanted, "
                  "say)."),
              fix="Use one of the methods the `Allow` header lists."),
    ErrorCode(409, "limit_reached",
              "the partner already has as many webhook endpoints in this environment as allowed "
              "(10)", "delete an endpoint it no longer needs, then create the new one",
              cause=(
                  "The partner and environment already have 10 webhook endpoints, the most "
                  "allowed."),
              fix=(
                  "Delete an endpoint no longer needed (`DELETE /webhook-endpoints/{endpointId}`),"
                  " or subscribe an existing one to more event types, then try again.")),
    ErrorCode(409, "sold_out", "fewer rooms are left on some night of the stay than asked for",
              "search again",
              cause=(
                  "Other bookings took the last rooms of some night between your search or quote "
                  "and this request."),
              fix=(
                  "Search again and offer what is still available; the same request will not "
                  "succeed.")),
    ErrorCode(409, "not_sellable",
              "the stay cannot be sold (closed, restrictions, occupancy, nationality or a "
              "missing rate)", "change the stay", details="with `details.reasons`",
              cause=(
                  "A rule of the stay fails: a night closed or without a rate, a minimum or maximum"
                  " stay, closed to arrival or departure, an occupancy the plan does not take, or a"
                  " nationality it does not sell to."),
              fix=(
                  "Read `details.reasons` and change the dates, occupancy or plan; `POST "
                  "/availability/rates` shows every plan's reasons.")),
    ErrorCode(409, "price_mismatch", "the price sent is not the service's price now",
              "show the price now, then book at it",
              details="with the service's price in `details.total_amount` and "
                      "`details.currency`",
              cause=(
                  "The price changed since you read it (new rates were pushed), or the amount sent "
                  "was computed differently from the service's."),
              fix=(
                  "Show the guest the service's price (`details.total_amount`, `details.currency`) "
                  "and book again at that price if they accept it.")),
    ErrorCode(409, "quote_expired", "the quote token has expired", "quote again",
              cause="The quote token is older than its validity (15 minutes by default).",
              fix="Quote the stay again and book with the new token."),
    ErrorCode(409, "quote_mismatch", "the quote token was issued for another stay or partner",
              "quote this stay",
              details=(
                  "with `details.fields`: each field of the stay that differs from the one quoted "
                  "(`hotel_code`, `room_type_code`, `rate_plan_code`, `check_in`, `check_out`, "
                  "`rooms`, `occupancy`), with its `quoted` and `requested` values"),
              cause=(
                  "The booking's stay (hotel, room type, plan, dates, rooms, guests per room) "
                  "differs from the one quoted, or the token was issued to another partner "
                  "(then `details.fields` is empty). `occupancy` is the guests per room as priced, "
                  "rooms in a fixed order; a `quoted` value too long to carry in the token is "
                  "null."),
              fix="Book exactly the stay that was quoted, or quote the stay you mean to book."),
    ErrorCode(409, "penalty_exceeds_expectation",
              "the cancellation penalty is above `expected_penalty_amount`",
              "confirm the penalty with the guest, then cancel expecting it",
              details="with `details.penalty_amount` and `details.currency`",
              cause=(
                  "Cancelling now costs more than the `expected_penalty_amount` sent: a penalty "
                  "tier came into force since the guest was told."),
              fix=(
                  "Tell the guest the penalty (`details.penalty_amount`, `details.currency`), then "
                  "cancel again with that amount as `expected_penalty_amount`.")),
    ErrorCode(409, "status_changed",
              "the booking's status is no longer the one acknowledged; nothing was stored",
              "load the booking's current status into the hotel's system, then acknowledge that",
              details="with the booking's current `details.status`",
              cause=(
                  "`POST /hotel-bookings/{confirmationNumber}/acknowledge` named a status the "
                  "booking no longer has: the booking partner cancelled it after the hotel's "
                  "system read it (or the acknowledgement named `cancelled` for a booking still "
                  "confirmed)."),
              fix=(
                  "Read the booking again (`GET /hotel-bookings/{confirmationNumber}`, or the "
                  "`hotel_booking.cancelled` event), load that state into the hotel's system, "
                  "and acknowledge it with `status` as in `details.status`.")),
    ErrorCode(410, "cursor_expired",
              "the cursor is older than what its log keeps (changes, events), or not one this key "
              "was given",
              "start again without a cursor",
              cause=(
                  "The cursor is older than the history its log keeps (changes, events), or was not issued by this service to "
                  "this partner (edited, or from the other environment)."),
              fix=(
                  "Start again without a cursor, and read what you need afresh (search, rates, "
                  "the bookings list) before following the log again.")),
    ErrorCode(413, "payload_too_large", f"the body is over {MAX_BODY}", "split the request",
              framework_message="the body is larger than the service accepts",
              cause="The body is larger than the service accepts in one request.",
              fix="Send the items in several requests, each under the limit."),
    ErrorCode(414, "uri_too_long",
              f"the request line (method, path and query string) is over {REQUEST_LINE_BYTES:,} "
              "bytes", "shorten the path and query",
              cause=(
                  "A query string grew with a long list or a repeated parameter, or a path "
                  "carries a value that belongs in a body. The server refuses the request before "
                  "reading its headers, so the answer carries a new `X-Request-Id`."),
              fix=(
                  "Send long lists in a request body (search takes its hotel codes in one), or "
                  "split the request.")),
    ErrorCode(415, "unsupported_media_type", "the body is not sent as `application/json`",
              "send `Content-Type: application/json`",
              framework_message="request bodies must be sent as application/json",
              cause=(
                  "A body was sent without `Content-Type: application/json` (curl's `-d` sends "
                  "`application/x-www-form-urlencoded` unless told otherwise)."),
              fix="Send the header `Content-Type: application/json` with every body."),
    ErrorCode(422, "validation_failed", "the request breaks a field rule",
              "fix every field `details.fields` names",
              details="with every failing field path in `details.fields`",
              framework_message="the request is invalid",
              cause=(
                  "A field breaks its rule: missing, of the wrong type, out of range, misspelt (an "
                  "unknown field is refused, naming the known field closest to it), or a query "
                  "parameter or header outside its pattern."),
              fix=(
                  "Fix every path `details.fields` names; each message states the rule. Each "
                  "operation's schema on this page lists every field's rule.")),
    ErrorCode(422, "invalid_quote_token",
              "a quote token this service did not sign, or one altered since",
              "send the token exactly as the quote returned it",
              cause=(
                  "The token was changed or cut short, or is not one this service issued (a token "
                  "from another deployment, say)."),
              fix=(
                  "Send `quote_token` exactly as `POST /bookings/quote` returned it, or quote "
                  "again.")),
    ErrorCode(422, "currency_not_supported",
              "no FX rate converts the prices into the requested currency",
              "ask without `currency`, or in another one",
              cause=(
                  "No exchange rate into the requested `currency` is configured for some hotel's "
                  "prices."),
              fix=(
                  "Ask without `currency` to get the hotel's own, or in a currency the operator has"
                  " configured.")),
    ErrorCode(422, "idempotency_key_reused",
              "the `Idempotency-Key` was used before for another request (another path or body) "
              "of the partner and environment; nothing was stored",
              "send a new key for a new request; a retry sends the same key with the same body",
              details="with the first request's `details.batch_id`",
              cause=(
                  "The `Idempotency-Key` was used before for a request with another path or body: a"
                  " key was reused for a new request."),
              fix=(
                  "Use a new key for every new request; a retry repeats both the key and the body, "
                  "byte for byte.")),
    ErrorCode(429, "rate_limited", "the key sent more than its `rate_limit_per_minute` in 60 s",
              "retry after `Retry-After` seconds",
              cause="The key sent more requests than its `rate_limit_per_minute` in the last 60 s.",
              fix=(
                  "Wait `Retry-After` seconds before the next request; spread requests out, and "
                  "push ARI in batches (many items in one request).")),
    ErrorCode(431, "headers_too_large",
              f"a request header is over {HEADER_FIELD_BYTES:,} bytes, or the request has over "
              f"{HEADER_FIELDS} headers", "send fewer and shorter headers",
              cause=(
                  "A client, proxy or SDK piled cookies or tracing headers onto the request, or "
                  "a header carries a value that belongs in a body. The server refuses the "
                  "request before the service reads it, so the answer carries a new "
                  "`X-Request-Id`, not one the request sent."),
              fix=(
                  "Send only the headers the API uses (credentials, signing headers, "
                  "`Content-Type`, `X-Request-Id`, `Idempotency-Key`, `X-Sandbox-Scenario`).")),
    ErrorCode(501, "not_implemented", "the operation is not implemented",
              "do not retry, report it", framework_message="not implemented yet",
              cause="The operation is described but not available in this version of the service.",
              fix="Do not retry; report it, quoting `request_id`."),
    ErrorCode(503, "service_unavailable",
              "a backing service is unreachable (the database; for a signed request also the "
              "replay check, which fails closed)",
              "retry after `Retry-After` seconds, a signed request with a fresh nonce",
              cause=(
                  "The database is unreachable, or, for a signed request, the replay check cannot "
                  "record the nonce (the service refuses rather than risk a replay)."),
              fix=(
                  "Retry after `Retry-After` seconds; sign a signed request again, with a fresh "
                  "nonce and timestamp.")),
    ErrorCode(500, "internal_error", "the service failed to handle the request",
              "retry later, quoting the `request_id` to support",
              framework_message="internal error",
              cause=(
                  "The service failed in a way it did not expect; nothing was half-written (every "
                  "operation is one transaction)."),
              fix=(
                  "Retry later; if it persists, report it quoting `request_id` (also the "
                  "`X-Request-Id` header).")),
)

BY_CODE: dict[str, ErrorCode] = {entry.code: entry for entry in CATALOGUE}


# The docs page (connectivity/web/docs_page) holds a section per code, which `error.doc_url`
# links to: this path, after the origin the partner reached (web/envelope.py public_origin).
DOCS_PAGE_PATH = f"{API_PREFIX}/docs"


def doc_anchor(code: str) -> str:
    return f"error-{code}"


def doc_url(code: str) -> str:
    return f"{DOCS_PAGE_PATH}#{doc_anchor(code)}"


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


@dataclass(frozen=True)
class Section:
    """A code's section on the docs page and in docs/errors.md: what it means and why it
    happens, then what to do."""
    anchor: str
    status: int
    code: str
    cause: str
    fix: str


def sections(max_body_bytes: int) -> tuple[Section, ...]:
    return tuple(
        Section(anchor=doc_anchor(entry.code), status=entry.status, code=entry.code,
                cause=f"{_capitalised(_meaning(entry, max_body_bytes))}. {entry.cause}",
                fix=f"{_capitalised(entry.action)}. {entry.fix}")
        for entry in CATALOGUE)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def api_section(max_body_bytes: int) -> str:
    """The catalogue as a section of the API's OpenAPI description."""
    return "\n".join(["**Error codes.**", "", *table(max_body_bytes)]) + "\n"


def partners_page(max_body_bytes: int) -> str:
    """docs/errors.md."""
    return "\n".join([
        "# Error codes",
        "",
        "Every failure is answered in one envelope:",
        "`{\"success\": false, \"error\": {\"code\", \"message\", \"details\", \"doc_url\"}, "
        "\"request_id\"}`.",
        "`details` is always there: an object of machine-readable facts (the codes below that",
        "have some name them), `{}` when the code has none; more facts may be added to it.",
        "Branch on `error.code`, never on `error.message`; quote `request_id` (also the",
        "`X-Request-Id` header) to support. New codes may be added; none is renamed or reused for",
        "another cause.",
        "",
        *table(max_body_bytes),
        "",
        "Each error body's `error.doc_url` links to the code's section on the docs page",
        f"(`https://<the service's host>{DOCS_PAGE_PATH}#error-<code>`, an absolute URL),",
        "which says what follows here.",
        "",
        *_section_lines(max_body_bytes),
        "Generated from `connectivity/web/catalogue.py`: "
        "`python -m connectivity.web.catalogue > docs/errors.md`.",
    ]) + "\n"


def _section_lines(max_body_bytes: int) -> Iterator[str]:
    for section in sections(max_body_bytes):
        yield f"## `{section.code}` ({section.status})"
        yield ""
        yield f"**Cause.** {section.cause}"
        yield ""
        yield f"**Fix.** {section.fix}"
        yield ""


if __name__ == "__main__":
    from connectivity.settings import Settings

    print(partners_page(Settings.max_body_bytes), end="")
