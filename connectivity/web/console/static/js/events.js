// The events section: a live tail of GET /events. It reads page after page from `next_cursor`
// while there is more, then polls from it every two seconds; the types ticked narrow it
// (`types`, none ticked: every type the key may see). The newest event is on top; the page keeps
// the last 500. The event types offered are the published description's. setupEvents returns
// what to do when the section is shown.

import { apiDescription, call, onKeyChange } from "./api.js";
import { openBatch } from "./batches.js";
import { el, pause, say, when } from "./dom.js";
import { tell } from "./problems.js";

const POLL_MS = 2000;
const KEPT = 500;
const PAGE = 100;

function stay(b) {
  return `${b.hotel_code} ${b.check_in} → ${b.check_out}`;
}

// One line on what the event says, by type; the data itself is under "data".
const SUMMARIES = {
  "booking.": ({ booking: b }) => [
    `${b.partner_reference} (${b.confirmation_number}) ${b.status}, ${stay(b)}`,
    b.hotel_confirmation_code ? `, hotel's code ${b.hotel_confirmation_code}` : ""],
  "hotel_booking.": ({ booking: b }) => [
    `${b.confirmation_number} ${b.status} from ${b.channel_name}, ${stay(b)}`],
  "ari_batch.": (batch) => [
    `batch ${batch.status}: ${batch.applied_count} of ${batch.item_count} applied, `,
    el("button", { type: "button", onclick: () => openBatch(batch.batch_id) },
       `Show batch ${batch.batch_id}`)],
  "reservation.": (flag) => [`${flag.partner_reference} at ${flag.hotel_code}: ${flag.code}`],
  "mapping.": (mapping) => [mapping.hotel_code],
};

function summary(event) {
  const prefix = Object.keys(SUMMARIES).find((start) => event.type.startsWith(start));
  try {
    return prefix ? SUMMARIES[prefix](event.data) : [];
  } catch {
    return [];  // a shape this page does not know: the data below still shows it
  }
}

function eventRow(event) {
  return el("tr", {},
    el("td", {}, when(event.created_at)),
    el("td", {}, event.type),
    el("td", {}, el("code", {}, event.event_id)),
    el("td", {}, summary(event),
       el("details", {}, el("summary", {}, "data"),
          el("pre", {}, JSON.stringify(event.data, null, 2)))));
}

async function offerTypes(fieldset) {
  try {
    const description = await apiDescription();
    const types = description.components.schemas.Event.properties.type.enum;
    fieldset.append(...types.map((type) => el("label", { class: "check" },
      el("input", { type: "checkbox", name: "types", value: type }), ` ${type}`)));
  } catch (failure) {
    fieldset.append(el("p", {}, `The event types could not be read (${failure.message}): `
                                 + "the tail shows every type."));
  }
}

export function setupEvents() {
  const form = document.getElementById("events-form");
  const stopButton = document.getElementById("events-stop");
  const status = document.getElementById("events-status");
  const polled = document.getElementById("events-polled");
  const box = document.getElementById("events-list");
  let running = null;  // the AbortController of the tail in progress

  function stop(message) {
    if (running) {
      running.abort();
      running = null;
    }
    stopButton.disabled = true;
    if (message) {
      say(status, message);
    }
  }

  async function tail(signal, types, start) {
    const body = el("tbody");
    box.replaceChildren(el("table", { class: "data events" },
      el("caption", {}, `Events${types ? ` of types ${types}` : ""}, newest first`),
      el("thead", {}, el("tr", {}, ["Created", "Type", "Event id", "What"].map(
        (label) => el("th", { scope: "col" }, label)))),
      body));
    let query = start === "latest" ? { start: "latest" } : {};
    let count = null;  // events shown; null until the first page has placed the tail
    let told = false;  // the status line tells a refusal the tail has waited out
    say(status, "Starting the tail…");
    while (!signal.aborted) {
      let page;
      try {
        page = await call("GET", "/events", { query: { ...query, types, limit: PAGE } });
      } catch (problem) {
        if (signal.aborted) {
          return;
        }
        tell(status, problem);
        told = true;
        if (problem.code !== "rate_limited" && problem.code !== "service_unavailable") {
          stop();
          return;
        }
        await pause((problem.retryAfter || 1) * 1000, signal);
        continue;
      }
      if (signal.aborted) {
        return;
      }
      query = { cursor: page.next_cursor };
      body.prepend(...page.events.map(eventRow).reverse());
      while (body.rows.length > KEPT) {
        body.lastElementChild.remove();
      }
      if (count === null || page.events.length || told) {
        told = false;
        count = (count || 0) + page.events.length;
        say(status, count ? `Tailing: ${count} event${count === 1 ? "" : "s"} so far.`
          : "Tailing: no event yet, waiting for the next…");
      }
      polled.replaceChildren("Last polled at ", el("time", {}, new Date().toLocaleTimeString()));
      if (!page.has_more) {
        await pause(POLL_MS, signal);
      }
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    stop();
    running = new AbortController();
    stopButton.disabled = false;
    const types = new FormData(form).getAll("types").join(",");
    tail(running.signal, types || undefined, form.elements.start.value);
  });
  stopButton.addEventListener("click", () => stop("Tail stopped."));
  onKeyChange(() => {
    stop();
    box.replaceChildren();
    polled.replaceChildren();
    say(status);
  });
  // The description is large: read when the section is first shown, not with the page.
  let offered = false;
  return () => {
    if (!offered) {
      offered = true;
      offerTypes(document.getElementById("events-types"));
    }
  };
}
