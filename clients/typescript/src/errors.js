// What the client throws. Branch on `ApiError.code` (the contract's catalogue), never on the
// message.

export class PcsError extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
}

// Refused before sending: only what the description says cannot be sent, such as a booking
// reference that would not fit in its path.
export class InvalidRequest extends PcsError {}

// An option the call does not take (contract of the client, not of the API): `option` is the
// key given, `suggestion` the known name nearest to it, `known` every name the call takes.
export class UnknownOption extends InvalidRequest {
  constructor(call, option, known, suggestion) {
    super(`${call}: unknown option '${option}'; did you mean '${suggestion}'? ` +
          `(it takes ${known.join(", ")})`);
    this.option = option;
    this.suggestion = suggestion;
    this.known = [...known];
  }
}

// The service answered with its failure envelope (or, behind a proxy, something else: then
// `code` is "unexpected_response").
export class ApiError extends PcsError {
  constructor(status, code, message, details, requestId, retryAfter = null) {
    super(`${status} ${code}: ${message} (request_id ${requestId})`);
    this.status = status;
    this.code = code;
    this.details = details ?? {};
    this.requestId = requestId ?? null;
    this.retryAfter = retryAfter;
    // As the Python client's: `message` is the service's text; String(error) has it all.
    this.summary = this.message;
    this.message = message;
  }

  toString() {
    return `${this.name}: ${this.summary}`;
  }

  // 429 and 503: nothing was done, the same request may be sent again later.
  get retryable() {
    return this.status === 429 || this.status === 503;
  }
}

// This machine's clock is too far from the service's for signed requests to be accepted.
export class ClockSkewError extends PcsError {
  constructor(skewSeconds, tolerance) {
    super(`this clock is ${skewSeconds >= 0 ? "+" : ""}${Math.round(skewSeconds)} s off the ` +
          `service's (server minus local); signed requests allow ${tolerance} s: fix the clock (NTP)`);
    this.skewSeconds = skewSeconds;
  }
}

// A webhook delivery that is not the service's (no signature matches: another secret, or a
// changed body) or not a recent one: answer 400 and drop it.
export class WebhookVerificationError extends PcsError {}
