// What a job left: run the chosen paragraphs again, as one job, with the model chosen; or
// leave them as they are on purpose, and undo that, each in one click.

import { api } from "./api.js";
import { offerParagraphJob, ready, working } from "./forms.js";

const list = document.querySelector(".left-list");
const form = document.getElementById("run-again-form");
const kept = document.querySelector(".kept-list");

// Leaves the paragraphs (`left`), or no longer, then shows the page as it now stands.
async function leaveAsIs(place, book, paragraphIds, left) {
  const body = { paragraph_ids: paragraphIds, left };
  const done = await working(place, () => api("POST", `/api/books/${book}/left/as-is`, body), "");
  if (done) location.reload();
}

if (form) {
  offerParagraphJob(form, list);
  form.querySelector(".leave-as-is")?.addEventListener("click", () => {
    const chosen = [...list.querySelectorAll("input[name=paragraph]:checked")].map((box) => box.value);
    if (chosen.length) leaveAsIs(form, form.dataset.book, chosen, true);
  });
}

for (const item of kept?.querySelectorAll(".kept-item") ?? []) {
  const button = item.querySelector(".translate-after-all");
  button.addEventListener("click", () => leaveAsIs(item, kept.dataset.book, [item.dataset.paragraph], false));
  ready(item);
}
