// The webhooks section: the partner's endpoints (GET /webhook-endpoints), with ping and enable
// buttons, and one endpoint's deliveries (status, attempts, last answer or error), each with a
// retry button (POST .../deliveries/{eventId}/retry: sent again now, one more attempt).

import { call, onKeyChange } from "./api.js";
import { dataTable, el, pause, say, shown, when } from "./dom.js";
import { showPages } from "./pages.js";
import { tell } from "./problems.js";

// A retry or a ping is sent within about a second (contract 12.3's target): the deliveries are
// read again after this long, to show its attempt.
const RELOAD_AFTER_MS = 1500;

function button(text, label, onclick) {
  return el("button", { type: "button", "aria-label": label, onclick }, text);
}

export function setupWebhooks() {
  const status = document.getElementById("webhooks-status");
  const list = document.getElementById("webhooks-list");
  const panel = document.getElementById("deliveries");
  const panelTitle = document.getElementById("deliveries-title");
  const deliveriesForm = document.getElementById("deliveries-form");
  const deliveriesStatus = document.getElementById("deliveries-status");
  const deliveriesList = document.getElementById("deliveries-list");
  let shownEndpoint = null;  // whose deliveries the panel shows

  const path = (endpoint, rest = "") =>
    `/webhook-endpoints/${encodeURIComponent(endpoint.endpoint_id)}${rest}`;

  async function loadEndpoints() {
    say(status, "Reading the endpoints…");
    try {
      const { endpoints } = await call("GET", "/webhook-endpoints");
      list.replaceChildren(dataTable({
        caption: "Webhook endpoints", rows: endpoints, columns: endpointColumns,
        empty: "No endpoint yet: POST /webhook-endpoints creates one." }));
      say(status, `${endpoints.length} endpoint${endpoints.length === 1 ? "" : "s"}.`);
    } catch (problem) {
      list.replaceChildren();
      tell(status, problem);
    }
  }

  function loadDeliveries() {
    const endpoint = shownEndpoint;
    const query = Object.fromEntries(new FormData(deliveriesForm).entries());
    return showPages(deliveriesList, deliveriesStatus, {
      what: "deliveries", itemsOf: (page) => page.deliveries,
      fetchPage: (cursor) => call("GET", path(endpoint, "/deliveries"),
                                  { query: { ...query, cursor } }),
      table: (deliveries) => dataTable({
        caption: `Deliveries to ${endpoint.url}, newest first`, rows: deliveries,
        columns: deliveryColumns, empty: "No delivery matches." }),
    });
  }

  function openDeliveries(endpoint) {
    shownEndpoint = endpoint;
    panel.hidden = false;
    panelTitle.textContent = `Deliveries to ${endpoint.url}`;
    panelTitle.focus();
    loadDeliveries();
  }

  // Does `action`, then reads the deliveries again (when they are shown) to show its effect.
  async function thenReload(endpoint, target, action, done) {
    try {
      const answer = await action();
      say(target, done(answer));
      if (shownEndpoint && shownEndpoint.endpoint_id === endpoint.endpoint_id) {
        await pause(RELOAD_AFTER_MS);
        await loadDeliveries();
        say(target, done(answer));
      }
    } catch (problem) {
      tell(target, problem);
    }
  }

  const endpointColumns = [
    { label: "URL", value: (e) => e.url },
    { label: "Event types", value: (e) => e.event_types.join(", ") },
    { label: "Description", value: (e) => shown(e.description) },
    { label: "Status", value: (e) => e.status },
    { label: "Created", value: (e) => when(e.created_at) },
    { label: "Actions", value: (e) => el("div", { class: "actions" },
      button("Deliveries", `Deliveries to ${e.url}`, () => openDeliveries(e)),
      button("Ping", `Ping ${e.url}`, () => thenReload(
        e, status, () => call("POST", path(e, "/ping")),
        (ping) => `Ping ${ping.event_id} sent to ${e.url}.`)),
      e.status === "enabled" ? null : button("Enable", `Enable ${e.url}`, async () => {
        try {
          await call("POST", path(e, "/enable"));
          await loadEndpoints();
          say(status, `${e.url} enabled.`);
        } catch (problem) {
          tell(status, problem);
        }
      })) },
  ];

  const deliveryColumns = [
    { label: "Event id", value: (d) => el("code", {}, d.event_id) },
    { label: "Type", value: (d) => d.type },
    { label: "Status", value: (d) => d.status },
    { label: "Attempts", value: (d) => String(d.attempts) },
    { label: "Last attempt", value: (d) => when(d.last_attempt_at) },
    { label: "Last status code", value: (d) => shown(d.last_status_code) },
    { label: "Last error", value: (d) => shown(d.last_error) },
    { label: "Next attempt", value: (d) => when(d.next_attempt_at) },
    { label: "Retry", value: (d) => button("Retry", `Retry ${d.event_id}`, () => thenReload(
      shownEndpoint, deliveriesStatus,
      () => call("POST",
                 path(shownEndpoint, `/deliveries/${encodeURIComponent(d.event_id)}/retry`)),
      () => `${d.event_id} sent again.`)) },
  ];

  document.getElementById("webhooks-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadEndpoints();
  });
  deliveriesForm.addEventListener("submit", (event) => {
    event.preventDefault();
    loadDeliveries();
  });
  onKeyChange(() => {
    shownEndpoint = null;
    panel.hidden = true;
    list.replaceChildren();
    deliveriesList.replaceChildren();
    say(status);
    say(deliveriesStatus);
  });
}
