// The calendar section: the form (hotel, first day, number of days), GET /ari, the grid.
// Marks `pcs:calendar:data` when the answer has arrived and `pcs:calendar:drawn` once the grid
// is painted (bench/console.py reads them).

import { call, hasKey, onKeyChange } from "./api.js";
import { addDays, drawCalendar } from "./calendar-grid.js";
import { el, say } from "./dom.js";
import { tell } from "./problems.js";

export const MAX_DAYS = 90;

function today() {
  const now = new Date();
  return [now.getFullYear(), now.getMonth() + 1, now.getDate()]
    .map((part) => String(part).padStart(2, "0")).join("-");
}

// After the next paint: a frame is drawn between the animation frame and the task it queues.
function afterPaint(then) {
  requestAnimationFrame(() => setTimeout(then, 0));
}

// The hotel codes offered while typing, when the key may list its hotels (content.read); a key
// that may not simply gets no suggestions, the field takes any code.
async function offerHotelCodes(list) {
  list.replaceChildren();
  if (!hasKey()) {
    return;
  }
  try {
    const { hotels } = await call("GET", "/mapping/hotels");
    list.replaceChildren(...hotels.map((hotel) => el("option", { value: hotel.hotel_code },
                                                     hotel.name)));
  } catch {
    // no content.read: no suggestions
  }
}

export function setupCalendar() {
  const form = document.getElementById("calendar-form");
  const status = document.getElementById("calendar-status");
  const box = document.getElementById("calendar-grid");
  const tip = document.getElementById("calendar-tip");
  const fields = form.elements;
  fields.from_date.value = today();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const days = Math.max(1, Math.min(MAX_DAYS, Number(fields.days.value) || 1));
    const query = { hotel_code: fields.hotel_code.value.trim(), from_date: fields.from_date.value,
                    to_date: addDays(fields.from_date.value, days - 1) };
    say(status, `Reading ${query.hotel_code} from ${query.from_date} to ${query.to_date}…`);
    let ari;
    try {
      ari = await call("GET", "/ari", { query });
    } catch (problem) {
      box.replaceChildren();
      tip.hidden = true;
      tell(status, problem);
      return;
    }
    performance.clearMarks("pcs:calendar:drawn");
    performance.mark("pcs:calendar:data");
    const rows = drawCalendar(ari, box, tip);
    say(status, `${ari.hotel_code}: ${rows} rows from ${ari.from_date} to ${ari.to_date}, read at `,
        el("time", {}, new Date().toLocaleTimeString()), ".");
    afterPaint(() => performance.mark("pcs:calendar:drawn"));
  });

  // A tooltip shown by hovering is dismissed with Escape wherever the focus is.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      tip.hidden = true;
    }
  });

  onKeyChange(() => {
    box.replaceChildren();
    tip.hidden = true;
    say(status);
    offerHotelCodes(document.getElementById("hotel-codes"));
  });
}
