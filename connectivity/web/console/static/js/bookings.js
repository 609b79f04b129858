// The bookings section. A reseller's own bookings (GET /bookings), with the hotel's
// confirmation code once the hotel has acknowledged them; and, for a hotel's channel manager,
// the hotel bookings it receives (GET /hotel-bookings, contract 13.2), each with an
// acknowledge action (POST /hotel-bookings/{confirmationNumber}/acknowledge).

import { call, onKeyChange } from "./api.js";
import { dataTable, el, money, say, shown, when } from "./dom.js";
import { showPages } from "./pages.js";
import { tell } from "./problems.js";

// A hotel booking's room type or rate plan this partner has no code for is null (`unmapped`).
const unmapped = (code) => code ?? "unmapped";

// Where and when, on two lines: the hotel, room type and rate plan; the dates and rooms.
const STAY = { label: "Stay", value: (b) => [
  el("div", {}, [b.hotel_code, unmapped(b.room_type_code), unmapped(b.rate_plan_code)]
    .join(" · ")),
  el("div", { class: "nowrap" },
     `${b.check_in} → ${b.check_out}, ${b.rooms} room${b.rooms === 1 ? "" : "s"}`)] };
const TOTAL = { label: "Total", value: (b) => money(b.total_amount, b.currency) };
const CREATED = { label: "Created", value: (b) => when(b.created_at) };
const HOTEL_CODE = { label: "Hotel's confirmation code",
                     value: (b) => shown(b.hotel_confirmation_code) };

const OWN_COLUMNS = [
  { label: "Reference", value: (b) => b.partner_reference },
  { label: "Confirmation number", value: (b) => b.confirmation_number },
  { label: "Status", value: (b) => b.status },
  STAY, TOTAL, CREATED, HOTEL_CODE,
  { label: "Hotel acknowledged", value: (b) => when(b.hotel_acknowledged_at) },
];

function hotelColumns(acknowledge) {
  return [
    { label: "Confirmation number", value: (b) => b.confirmation_number },
    { label: "Channel", value: (b) => shown(b.channel_name) },
    { label: "Status", value: (b) => b.status },
    STAY, TOTAL, CREATED,
    { label: "Acknowledged", value: (b) => (b.acknowledged
      ? ["yes, ", when(b.acknowledged_at)] : `no (${b.status} not yet loaded)`) },
    HOTEL_CODE,
    { label: "Acknowledge", value: (b) => acknowledgeForm(b, acknowledge) },
  ];
}

// Per row: the hotel's code (optional) and a button naming the status it acknowledges.
function acknowledgeForm(booking, acknowledge) {
  const id = `ack-${booking.confirmation_number}`;
  const input = el("input", { id, name: "hotel_confirmation_code", size: 10, spellcheck: "false",
                              pattern: "[A-Za-z0-9._\\/\\-]{1,64}" });
  return el("form", { class: "inline", onsubmit: (event) => {
    event.preventDefault();
    acknowledge(booking, input.value.trim());
  } },
  el("label", { for: id, class: "visually-hidden" },
     `Hotel's confirmation code for ${booking.confirmation_number} (optional)`),
  input,
  el("button", { type: "submit" }, `Acknowledge ${booking.status}`));
}

function formQuery(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function setupOwnBookings() {
  const form = document.getElementById("bookings-form");
  const status = document.getElementById("bookings-status");
  const box = document.getElementById("bookings-list");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = formQuery(form);
    showPages(box, status, {
      what: "bookings", itemsOf: (page) => page.bookings,
      fetchPage: (cursor) => call("GET", "/bookings", { query: { ...query, cursor } }),
      table: (bookings) => dataTable({ caption: "Your bookings, oldest first",
        columns: OWN_COLUMNS, rows: bookings, empty: "No booking matches." }),
    });
  });
  return () => { box.replaceChildren(); say(status); };
}

function setupHotelBookings() {
  const form = document.getElementById("hotel-bookings-form");
  const status = document.getElementById("hotel-bookings-status");
  const box = document.getElementById("hotel-bookings-list");

  function load() {
    const query = formQuery(form);
    return showPages(box, status, {
      what: "hotel bookings", itemsOf: (page) => page.hotel_bookings,
      fetchPage: (cursor) => call("GET", "/hotel-bookings", { query: { ...query, cursor } }),
      table: (bookings) => dataTable({ caption: "Hotel bookings received, oldest first",
        columns: hotelColumns(acknowledge), rows: bookings, empty: "No hotel booking matches." }),
    });
  }

  async function acknowledge(booking, hotelCode) {
    const number = booking.confirmation_number;
    const body = { status: booking.status,
                   ...(hotelCode ? { hotel_confirmation_code: hotelCode } : {}) };
    say(status, `Acknowledging ${number}…`);
    try {
      const { hotel_booking: done } = await call(
        "POST", `/hotel-bookings/${encodeURIComponent(number)}/acknowledge`, { body });
      await load();
      say(status, `${number} acknowledged as ${done.status}`,
          done.hotel_confirmation_code ? `, hotel's code ${done.hotel_confirmation_code}.` : ".");
    } catch (problem) {
      // status_changed: the booking moved on (cancelled) since the list was read; the list
      // read again shows its current status, to acknowledge that one.
      await load();
      tell(status, problem);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  return () => { box.replaceChildren(); say(status); };
}

export function setupBookings() {
  const resets = [setupOwnBookings(), setupHotelBookings()];
  onKeyChange(() => resets.forEach((reset) => reset()));
}
