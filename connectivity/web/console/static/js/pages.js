// A list read page by page (the API's `next_cursor` and `has_more`): the first page shown at
// once, a "Show more" button for each next one, the items so far in one table.

import { el, say } from "./dom.js";
import { tell } from "./problems.js";

// fetchPage(cursor) -> the page's data; itemsOf(data) -> its items; table(items) -> a node;
// `what` names the items ("bookings"). Resolves once the first page is shown (or told failed).
export async function showPages(box, status, { fetchPage, itemsOf, table, what }) {
  const items = [];
  let cursor;
  async function more() {
    say(status, `Reading ${what}…`);
    let page;
    try {
      page = await fetchPage(cursor);
    } catch (problem) {
      if (items.length === 0) {
        box.replaceChildren();
      }
      tell(status, problem);
      return;
    }
    items.push(...itemsOf(page));
    cursor = page.next_cursor;
    box.replaceChildren(table(items), page.has_more
      ? el("button", { type: "button", class: "more", onclick: more }, `Show more ${what}`) : "");
    say(status, `Shown ${what}: ${items.length}${page.has_more ? ", and more to show" : ""}.`);
  }
  await more();
}
