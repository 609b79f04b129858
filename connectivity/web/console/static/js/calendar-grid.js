// The calendar's grid, drawn from a GET /ari answer: a row per room type (its availability),
// under it a row per rate plan (its rate), a column per day. A cell's colour is its state and
// its text says the same: the value (– when nothing is set), then a letter per restriction.
// The grid is one tab stop; arrow keys, Home and End move inside it. Hovering over or focusing
// a cell shows, in one shared tooltip, every value GET /ari gave for that day and the batch
// that set each one (set_by); Escape hides it.

import { el, shown } from "./dom.js";

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"];
// A restriction's letter in a cell, in this order (the legend says them).
const FLAGS = [["closed", "C"], ["min_stay", "m"], ["max_stay", "M"],
               ["closed_to_arrival", "A"], ["closed_to_departure", "D"]];

export function addDays(isoDate, count) {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);
}

function weekday(isoDate) {
  return WEEKDAYS[new Date(`${isoDate}T00:00:00Z`).getUTCDay()];
}

function isSet(value) {
  return value !== null && value !== undefined && value !== false;
}

// What one day of a row shows: `field` is availability (room type) or rate (rate plan). The
// state, in order of precedence: closed, sold out (no rooms left), unset (no value), restricted,
// open.
export function cellView(day, field) {
  if (!day) {
    return { text: "–", letters: "", state: "unset" };
  }
  const value = day[field];
  const letters = FLAGS.filter(([name]) => isSet(day[name])).map(([, letter]) => letter).join("");
  let state = "open";
  if (day.closed === true) {
    state = "closed";
  } else if (field === "availability" && value === 0) {
    state = "sold-out";
  } else if (value === null || value === undefined) {
    state = "unset";
  } else if (letters) {
    state = "restricted";
  }
  return { text: value === null || value === undefined ? "–" : String(value), letters, state };
}

function rowsOf(ari) {
  const byDate = (days) => new Map(days.map((day) => [day.date, day]));
  return ari.room_types.flatMap((roomType) => [
    { roomType: roomType.room_type_code, ratePlan: null, field: "availability",
      days: byDate(roomType.days) },
    ...roomType.rate_plans.map((plan) => ({
      roomType: roomType.room_type_code, ratePlan: plan.rate_plan_code, currency: plan.currency,
      field: "rate", days: byDate(plan.days) })),
  ]);
}

function headRows(dates) {
  const months = [];
  for (const date of dates) {
    const name = `${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
    if (months.length && months[months.length - 1].name === name) {
      months[months.length - 1].span += 1;
    } else {
      months.push({ name, span: 1 });
    }
  }
  return [
    el("tr", {}, el("td", { class: "corner" }),
      months.map((month) => el("th", { scope: "colgroup", colspan: month.span, class: "month" },
                               month.name))),
    el("tr", {}, el("th", { scope: "col", class: "corner" }, "Room type / rate plan"),
      dates.map((date) => el("th", { scope: "col", class: "day", title: date,
                                     "aria-label": `${weekday(date)} ${date}` },
                             date.slice(8), el("small", {}, weekday(date))))),
  ];
}

function rowHeader(row) {
  return row.ratePlan === null
    ? el("th", { scope: "row", class: "room-type" }, row.roomType, el("small", {}, " rooms left"))
    : el("th", { scope: "row", class: "rate-plan" }, row.ratePlan,
         el("small", {}, ` rate, ${row.currency}`));
}

// The hot loop of the drawing: plain DOM calls, a cell per row and day.
function bodyRow(row, r, dates, cells) {
  const tr = document.createElement("tr");
  tr.className = row.ratePlan === null ? "room-type" : "rate-plan";
  tr.append(rowHeader(row));
  const rowCells = [];
  for (let c = 0; c < dates.length; c++) {
    const view = cellView(row.days.get(dates[c]), row.field);
    const td = document.createElement("td");
    td.className = `cell ${view.state}`;
    td.tabIndex = r === 0 && c === 0 ? 0 : -1;
    td.dataset.r = r;
    td.dataset.c = c;
    td.append(view.text);
    if (view.letters) {
      const flags = document.createElement("small");
      flags.textContent = ` ${view.letters}`;
      td.append(flags);
    }
    rowCells.push(td);
  }
  tr.append(...rowCells);
  cells.push(rowCells);
  return tr;
}

// The tooltip's content: the day's fields as GET /ari gave them, each with its set_by.
function describe(row, date, day) {
  const title = [row.roomType, row.ratePlan, `${weekday(date)} ${date}`].filter(Boolean)
    .join(" · ");
  if (!day) {
    return [el("strong", {}, title), el("p", {}, "Not in the answer.")];
  }
  const setBy = day.set_by || {};
  const fields = Object.entries(day).filter(([name]) => name !== "date" && name !== "set_by");
  return [
    el("strong", {}, title),
    el("p", {}, row.currency ? `Rates in ${row.currency}` : "Rooms of the room type"),
    el("dl", {}, fields.map(([name, value]) => [
      el("dt", {}, name),
      el("dd", {}, value === null ? "not set" : shown(value),
         setBy[name] ? el("span", { class: "set-by" }, ` set by ${setBy[name]}`) : null)])),
  ];
}

// Draws `ari` into `box` and wires the grid's keyboard and tooltip; returns the row count.
export function drawCalendar(ari, box, tip) {
  const dates = [];
  for (let date = ari.from_date; date <= ari.to_date; date = addDays(date, 1)) {
    dates.push(date);
  }
  const rows = rowsOf(ari);
  const cells = [];
  const label = `ARI of ${ari.hotel_code}, ${ari.from_date} to ${ari.to_date}`;
  const table = el("table", { class: "calendar", role: "grid", "aria-label": label },
    el("thead", {}, headRows(dates)),
    el("tbody", {}, rows.map((row, r) => bodyRow(row, r, dates, cells))));

  function cellAt(target) {
    const cell = target instanceof Element ? target.closest("td.cell") : null;
    return cell && table.contains(cell) ? cell : null;
  }

  function showTip(cell) {
    const row = rows[Number(cell.dataset.r)];
    const date = dates[Number(cell.dataset.c)];
    tip.replaceChildren(...describe(row, date, row.days.get(date)));
    tip.hidden = false;
    const place = cell.getBoundingClientRect();
    const left = Math.min(place.left, window.innerWidth - tip.offsetWidth - 8);
    const below = place.bottom + 6 + tip.offsetHeight < window.innerHeight;
    tip.style.left = `${Math.max(8, left)}px`;
    tip.style.top = `${below ? place.bottom + 6 : Math.max(8, place.top - tip.offsetHeight - 6)}px`;
    cell.setAttribute("aria-describedby", tip.id);
  }

  function hideTip() {
    tip.hidden = true;
  }

  function moveTo(r, c) {
    const next = cells[Math.max(0, Math.min(cells.length - 1, r))];
    const cell = next && next[Math.max(0, Math.min(next.length - 1, c))];
    if (!cell) {
      return;
    }
    table.querySelectorAll("td.cell[tabindex='0']").forEach((old) => { old.tabIndex = -1; });
    cell.tabIndex = 0;
    cell.focus();
  }

  const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  table.addEventListener("keydown", (event) => {
    const cell = cellAt(event.target);
    if (!cell) {
      return;
    }
    const r = Number(cell.dataset.r), c = Number(cell.dataset.c);
    if (event.key in moves) {
      moveTo(r + moves[event.key][0], c + moves[event.key][1]);
    } else if (event.key === "Home" || event.key === "End") {
      moveTo(r, event.key === "Home" ? 0 : dates.length - 1);
    } else if (event.key === "Escape") {
      hideTip();
    } else {
      return;
    }
    event.preventDefault();
  });
  const showTipOf = (event) => {
    const cell = cellAt(event.target);
    if (cell) {
      showTip(cell);
    }
  };
  table.addEventListener("focusin", showTipOf);
  table.addEventListener("mouseover", showTipOf);
  table.addEventListener("focusout", hideTip);
  table.addEventListener("mouseleave", hideTip);

  hideTip();
  box.replaceChildren(table);
  return rows.length;
}
