// The console's entry: the key form (who the key is, by GET /whoami), the navigation between
// sections (the URL's #fragment names the one shown), and each section's module.

import { call, forgetKey, useKey } from "./api.js";
import { setupBatches } from "./batches.js";
import { setupBookings } from "./bookings.js";
import { setupCalendar } from "./calendar.js";
import { el, say } from "./dom.js";
import { setupEvents } from "./events.js";
import { tell } from "./problems.js";
import { setupWebhooks } from "./webhooks.js";

const SECTIONS = ["calendar", "bookings", "events", "webhooks", "batches"];
// What a section does when it is shown, for those that wait until then.
const onShow = {};

function setupKey() {
  const form = document.getElementById("key-form");
  const input = document.getElementById("key-token");
  const status = document.getElementById("key-status");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      useKey(input.value);
    } catch (problem) {
      tell(status, problem);
      return;
    }
    input.value = "";  // held by api.js only, not left in the field
    say(status, "Checking the key…");
    try {
      const who = await call("GET", "/whoami");
      say(status, el("strong", {}, `${who.partner.name} (${who.partner.code})`),
          ` · key ${who.key.name} (${who.key.key_id}) · ${who.key.environment} · scopes: `,
          who.scopes.length ? who.scopes.join(", ") : "none",
          ` · ${who.mapped_properties} mapped propert${who.mapped_properties === 1 ? "y" : "ies"}`);
    } catch (problem) {
      tell(status, problem);
    }
  });
  document.getElementById("key-forget").addEventListener("click", () => {
    forgetKey();
    input.value = "";
    say(status, "Key forgotten: paste one to go on.");
  });
}

// Shows the section the #fragment names (the calendar when none does). `moved`: the reader
// followed a link, so the focus goes to the section's heading.
function showSection(moved) {
  const wanted = window.location.hash.slice(1);
  const current = SECTIONS.includes(wanted) ? wanted : SECTIONS[0];
  for (const id of SECTIONS) {
    document.getElementById(id).hidden = id !== current;
  }
  document.querySelectorAll("nav.sections a").forEach((link) => {
    if (link.getAttribute("href") === `#${current}`) {
      link.setAttribute("aria-current", "page");
    } else {
      link.removeAttribute("aria-current");
    }
  });
  onShow[current]?.();
  if (moved) {
    document.getElementById(`${current}-title`).focus();
  }
}

setupKey();
setupCalendar();
setupBookings();
onShow.events = setupEvents();
setupWebhooks();
setupBatches();
showSection(false);
window.addEventListener("hashchange", () => showSection(true));
