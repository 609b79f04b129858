// The batches section: one ARI batch's outcome (GET /ari/batches/{batchId}), its counts and
// every rejected item with its reason. A batch still queued or processing is read again every
// second, for up to a minute, until it has finished.

import { call, onKeyChange } from "./api.js";
import { dataTable, el, pause, say, shown, when } from "./dom.js";
import { tell } from "./problems.js";

const UNFINISHED = new Set(["queued", "processing"]);
const WATCH_SECONDS = 60;

let section = null;

function outcome(batch) {
  const facts = [["Batch", batch.batch_id], ["Kind", batch.kind], ["Hotel", batch.hotel_code],
                 ["Status", batch.status], ["Items", batch.item_count],
                 ["Applied", batch.applied_count], ["Rejected", batch.rejected_count]];
  return [
    el("dl", { class: "facts" },
      facts.map(([name, value]) => [el("dt", {}, name), el("dd", {}, shown(value))]),
      el("dt", {}, "Received"), el("dd", {}, when(batch.received_at)),
      el("dt", {}, "Applied at"), el("dd", {}, when(batch.applied_at))),
    dataTable({
      caption: "Rejected items (index: the item's 0-based position in the push's items)",
      columns: [{ label: "Index", value: (item) => String(item.index) },
                { label: "Code", value: (item) => el("code", {}, item.code) },
                { label: "Reason", value: (item) => item.message }],
      rows: batch.rejected || [], empty: "No item was rejected." }),
  ];
}

async function show(batchId) {
  const { status, box } = section;
  const watching = new AbortController();
  section.watching?.abort();
  section.watching = watching;
  const deadline = Date.now() + WATCH_SECONDS * 1000;
  say(status, `Reading batch ${batchId}…`);
  for (;;) {
    let batch;
    try {
      batch = await call("GET", `/ari/batches/${encodeURIComponent(batchId)}`);
    } catch (problem) {
      box.replaceChildren();
      tell(status, problem);
      return;
    }
    if (watching.signal.aborted) {
      return;
    }
    box.replaceChildren(...outcome(batch));
    const waiting = UNFINISHED.has(batch.status) && Date.now() < deadline;
    say(status, `Batch ${batch.status}${waiting ? ": reading it again every second…" : "."}`);
    if (!waiting) {
      return;
    }
    await pause(1000, watching.signal);
    if (watching.signal.aborted) {
      return;
    }
  }
}

// Shows a batch from elsewhere in the page (an ari_batch.finished event).
export function openBatch(batchId) {
  section.form.elements.batch_id.value = batchId;
  window.location.hash = "#batches";
  show(batchId);
}

export function setupBatches() {
  const form = document.getElementById("batches-form");
  section = { form, status: document.getElementById("batches-status"),
              box: document.getElementById("batches-outcome"), watching: null };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    show(form.elements.batch_id.value.trim());
  });
  onKeyChange(() => {
    section.watching?.abort();
    section.box.replaceChildren();
    say(section.status);
  });
}
