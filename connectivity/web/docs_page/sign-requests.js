// Signs the docs page's "Try it out" requests in the browser, as contract section 2 says:
// X-Signature = lowercase hex HMAC-SHA256(secret, METHOD \n path?query \n timestamp \n nonce \n
// hex(sha256(body))), with the Web Crypto API. "Authorize" takes the signed key's whole token
// (<key_id>.<secret>) in the `signed` scheme; only the key id leaves the page, in X-Api-Key-Id.
(function (global) {
  "use strict";
  const encoder = new TextEncoder();

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function newNonce() {
    const bytes = new Uint8Array(16);
    global.crypto.getRandomValues(bytes);
    return hex(bytes);  // 32 characters of [0-9a-f]
  }

  async function sha256Hex(text) {
    return hex(await global.crypto.subtle.digest("SHA-256", encoder.encode(text)));
  }

  async function stringToSign(method, pathAndQuery, timestamp, nonce, body) {
    return [method.toUpperCase(), pathAndQuery, String(timestamp), nonce,
            await sha256Hex(body)].join("\n");
  }

  async function signature(secret, message) {
    const key = await global.crypto.subtle.importKey(
      "raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return hex(await global.crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  }

  async function signedHeaders(token, method, pathAndQuery, body, timestamp, nonce) {
    const dot = token.indexOf(".");
    const keyId = token.slice(0, dot), secret = token.slice(dot + 1);
    const ts = String(timestamp === undefined ? Math.floor(Date.now() / 1000) : timestamp);
    nonce = nonce || newNonce();
    const message = await stringToSign(method, pathAndQuery, ts, nonce, body);
    return { "X-Api-Key-Id": keyId, "X-Timestamp": ts, "X-Nonce": nonce,
             "X-Signature": await signature(secret, message) };
  }

  function headerNamed(headers, wanted) {
    return Object.keys(headers).find((name) => name.toLowerCase() === wanted);
  }

  // Swagger UI's requestInterceptor: a request that carries a whole token in X-Api-Key-Id is
  // signed; any other request goes as it is.
  async function signRequest(request) {
    const headers = request.headers || {};
    const name = headerNamed(headers, "x-api-key-id");
    const token = name && headers[name];
    if (!token || token.indexOf(".") < 1) {
      return request;
    }
    if (!(global.crypto && global.crypto.subtle)) {
      throw new Error("signing needs the Web Crypto API: open this page over https or on " +
                      "localhost");
    }
    let body = request.body;
    if (body === undefined || body === null) {
      body = "";
    } else if (typeof body !== "string") {
      body = JSON.stringify(body);
      request.body = body;  // what is hashed is exactly what is sent
    }
    const url = new URL(request.url, global.location ? global.location.href : undefined);
    const signed = await signedHeaders(token, request.method || "GET", url.pathname + url.search,
                                       body);
    delete headers[name];
    request.headers = Object.assign(headers, signed);
    return request;
  }

  // The note beside a curl the page shows: that curl repeats a signed request's headers, whose
  // nonce the page has just used, so run as it is the service refuses it as a replay.
  const CURL_NOTE = "This curl repeats the signed headers the page just sent: their nonce is " +
    "used, so run as it is it gets 401 replayed_request. Sign it again with a fresh " +
    "X-Timestamp, X-Nonce and X-Signature (the integration guide's sign shell function does) " +
    "before running it.";

  function signedRequestShown(request) {
    const headers = request && request.get && request.get("headers");
    return Boolean(headers && headers.keySeq &&
                   headers.keySeq().some((name) => name.toLowerCase() === "x-signature"));
  }

  // A Swagger UI plugin: the `curl` and `RequestSnippets` components, with the note under them.
  function curlNotePlugin() {
    const withNote = (Original, system) => (props) => {
      const React = system.React;
      const original = React.createElement(Original, props);
      if (!signedRequestShown(props.request)) {
        return original;
      }
      return React.createElement("div", null, original,
        React.createElement("p", { className: "pcs-curl-note" }, CURL_NOTE));
    };
    return { wrapComponents: { curl: withNote, RequestSnippets: withNote } };
  }

  global.pcsSigning = { stringToSign, signedHeaders, signRequest, curlNotePlugin, CURL_NOTE };
})(typeof window !== "undefined" ? window : globalThis);
