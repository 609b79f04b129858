// How a failed call reads in a section: a sentence a person can act on, built from the
// envelope's code, message and details, never the raw answer. A key without the section's
// scope (403 insufficient_scope) is told which scope the section needs and which it holds.

import { ApiProblem } from "./api.js";
import { el, say } from "./dom.js";

function joined(names, last) {
  const codes = names.map((name) => el("code", {}, name));
  return codes.flatMap((code, i) => [
    code, i < codes.length - 2 ? ", " : i === codes.length - 2 ? ` ${last} ` : ""]);
}

function missingScope(problem) {
  const required = problem.details.required || [];
  const held = problem.details.held || [];
  const needs = required.length === 1 ? ["the scope ", ...joined(required, "and")]
    : problem.details.any_of ? ["one of the scopes ", ...joined(required, "or")]
      : ["the scopes ", ...joined(required, "and")];
  return [
    el("strong", {}, "This key cannot use this section. "),
    "It needs ", ...needs, "; the key holds ",
    ...(held.length ? joined(held, "and") : ["no scope"]), ". ",
    "Paste a key that holds it, or ask your operator for one (",
    el("code", {}, "keys issue --scope …"), ").",
  ];
}

const PLAIN = {
  insufficient_scope: missingScope,
  no_mapped_properties: () => [
    el("strong", {}, "No hotel is mapped for this key. "),
    "Its partner has no mapped property in the key's environment, so there is nothing to ",
    "show; your operator maps hotels."],
  // each field the service refused, with its reasons (details.fields)
  validation_failed: (problem) => [
    el("strong", {}, "The service refused the request. "),
    ...Object.entries(problem.details.fields || {}).flatMap(([field, reasons]) => [
      el("code", {}, field), `: ${[].concat(reasons).join("; ")}. `])],
  rate_limited: (problem) => [
    el("strong", {}, "Too many requests for this key. "),
    `Try again in ${problem.retryAfter || 1} s.`],
};

// The request's identity, for a support ticket, and the code's documentation.
function reference(problem) {
  const parts = [];
  if (problem.status) {
    const request = problem.requestId ? `, request ${problem.requestId}` : "";
    parts.push(` (HTTP ${problem.status}${request})`);
  }
  if (problem.docUrl) {
    parts.push(" ", el("a", { href: problem.docUrl }, `What ${problem.code} means`));
  }
  return parts;
}

export function explanation(problem) {
  if (!(problem instanceof ApiProblem)) {
    return [el("strong", {}, "The page failed: "), String(problem && problem.message || problem)];
  }
  const plain = PLAIN[problem.code];
  if (plain) {
    return [...plain(problem), ...reference(problem)];
  }
  if (problem.status === 0) {
    return [problem.message];
  }
  return [el("strong", {}, problem.code), `: ${problem.message}`, ...reference(problem)];
}

// Puts the explanation in a section's status line (role="status"), marked as a failure.
export function tell(status, problem) {
  say(status, ...explanation(problem));
  status.classList.add("failed");
}
