// Building the page from API answers. Values always go in as text (never as HTML), so nothing a
// partner, a guest or a hotel typed can become markup.

// el("td", {class: "x", "aria-label": "..."}, child, "text", ...): attributes by name; `on*`
// functions become listeners; false, null and undefined attributes or children are left out.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) {
      continue;
    }
    if (typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.className = value;
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  node.append(...children.flat(Infinity).filter(
    (child) => child !== null && child !== undefined && child !== false));
  return node;
}

// A value as shown: null and absent read as an em dash, booleans as yes / no.
export function shown(value) {
  if (value === null || value === undefined || value === "") {
    return "—";
  }
  if (typeof value === "boolean") {
    return value ? "yes" : "no";
  }
  return String(value);
}

// An ISO 8601 timestamp, shortened to the second in UTC, the exact value kept in <time>.
export function when(timestamp) {
  if (!timestamp) {
    return "—";
  }
  const parsed = new Date(timestamp);
  const text = Number.isNaN(parsed.getTime()) ? timestamp
    : `${parsed.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return el("time", { datetime: timestamp }, text);
}

export function money(amount, currency) {
  return amount === null || amount === undefined ? "—" : `${amount} ${currency || ""}`.trim();
}

// A table of `rows`; columns: [{label, value: (row) => text or node}]; `empty` when none.
export function dataTable({ caption, columns, rows, empty }) {
  if (rows.length === 0) {
    return el("p", { class: "empty" }, empty);
  }
  return el("table", { class: "data" },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {},
      columns.map((column) => el("th", { scope: "col" }, column.label)))),
    el("tbody", {}, rows.map((row) => el("tr", {},
      columns.map((column) => el("td", {}, column.value(row)))))));
}

// A status line (each has role="status"): what is being done, or what was done.
export function say(status, ...content) {
  status.classList.remove("failed");
  status.replaceChildren(...content);
}

// Resolves after `ms`, or at once when `signal` is aborted.
export function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
