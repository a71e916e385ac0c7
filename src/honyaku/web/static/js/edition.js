// A book's page: import a new edition of the book, after a preview of what it changes.

import { api, attempt, element } from "./api.js";

const form = document.getElementById("edition-form");
const output = form.querySelector(".edition-summary");

function tally(counts) {
  return `${counts.unchanged} unchanged, ${counts.changed} changed, ${counts.new} new, ${counts.gone} gone`;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = new FormData(form);
  body.set("dry_run", event.submitter.value);
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  const result = await attempt(() => api("POST", `/api/books/${form.dataset.book}/edition`, body));
  for (const button of form.querySelectorAll("button")) button.disabled = false;
  if (!result) return;
  const moved = result.moved_chapters ? ` (${result.moved_chapters} moved)` : "";
  const head = result.edition === null ? "Preview, nothing written:" : `Edition ${result.edition}:`;
  output.replaceChildren(
    `${head} chapters ${tally(result.chapters)}${moved}; paragraphs ${tally(result.paragraphs)}. `,
    result.edition === null ? "" : element("a", { href: location.pathname, textContent: "Show the chapters" }),
  );
});
