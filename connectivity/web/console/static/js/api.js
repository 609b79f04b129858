// Calls to the public API, signed in the page as contract section 2 says, by the docs page's
// signing script (sign-requests.js, loaded before this module: window.pcsSigning). Every
// request is signed, whatever the key: any key may sign, and a signed key must.
//
// The key lives in this module's variable and nowhere else: not in storage, a cookie or the
// URL. Only its id leaves the page (X-Api-Key-Id); forgetKey() or a reload drops it.

export const API = "/api/connectivity/v1";

let token = null;
const keyListeners = new Set();

export class ApiProblem extends Error {
  constructor({ status, code, message, details = {}, requestId = null, docUrl = null,
                retryAfter = null }) {
    super(message);
    Object.assign(this, { status, code, details, requestId, docUrl, retryAfter });
  }
}

// A token is `<key_id>.<secret>`; anything else is refused here, before it could be sent.
export function useKey(value) {
  const candidate = value.trim();
  const dot = candidate.indexOf(".");
  if (dot < 1 || dot === candidate.length - 1 || /\s/.test(candidate)) {
    throw new ApiProblem({ status: 0, code: "not_a_token",
      message: "That is not a whole token: paste <key_id>.<secret>, as the key was issued." });
  }
  token = candidate;
  keyListeners.forEach((listener) => listener());
}

export function forgetKey() {
  token = null;
  keyListeners.forEach((listener) => listener());
}

export function hasKey() {
  return token !== null;
}

// Sections start over when the key changes: what one partner saw is not shown to the next.
export function onKeyChange(listener) {
  keyListeners.add(listener);
}

function queryString(query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") {
      params.append(name, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

// One API call: resolves with the envelope's `data`, rejects with an ApiProblem carrying the
// envelope's error (code, message, details), or a code of the page's own when the service
// could not be reached or did not answer in the envelope.
export async function call(method, path, { query, body } = {}) {
  if (token === null) {
    throw new ApiProblem({ status: 0, code: "no_key", message: "Paste a key above first." });
  }
  if (!(window.crypto && window.crypto.subtle)) {
    throw new ApiProblem({ status: 0, code: "no_web_crypto", message: "Signing needs the "
      + "browser's Web Crypto API, which it offers only to secure pages: open the console over "
      + "https, or on localhost." });
  }
  const target = API + path + queryString(query);
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers = { Accept: "application/json",
    ...(await window.pcsSigning.signedHeaders(token, method, target, text)) };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(target, { method, headers, body: body === undefined ? undefined : text,
                                     credentials: "omit", cache: "no-store" });
  } catch (failure) {
    throw new ApiProblem({ status: 0, code: "unreachable",
      message: `The service could not be reached (${failure.message}).` });
  }
  let envelope = null;
  try {
    envelope = await response.json();
  } catch {
    // not JSON: told below as an unexpected answer
  }
  if (response.ok && envelope && envelope.success === true) {
    return envelope.data;
  }
  const error = (envelope && envelope.error) || {};
  throw new ApiProblem({
    status: response.status,
    code: error.code || "unexpected_answer",
    message: error.message || `The service answered HTTP ${response.status}.`,
    details: error.details || {},
    requestId: (envelope && envelope.request_id) || response.headers.get("X-Request-Id"),
    docUrl: error.doc_url || null,
    retryAfter: Number(response.headers.get("Retry-After")) || null,
  });
}

// The published API description (public, unsigned), read once: the console takes the event
// types from it rather than keeping a list of its own.
let description = null;

export function apiDescription() {
  if (description === null) {
    description = fetch(`${API}/openapi.json`, { credentials: "omit" }).then((response) => {
      if (!response.ok) {
        throw new Error(`the API description answered HTTP ${response.status}`);
      }
      return response.json();
    });
    description.catch(() => { description = null; });  // a later call tries again
  }
  return description;
}
