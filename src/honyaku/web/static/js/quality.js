// The flagged paragraphs: dismiss a warning, retranslate the chosen paragraphs as one job.

import { api } from "./api.js";
import { offerParagraphJob, working } from "./forms.js";

const list = document.querySelector(".flagged");
const form = document.getElementById("retranslate-form");

list?.addEventListener("click", async (event) => {
  const button = event.target.closest(".dismiss-warning");
  if (!button) return;
  const item = button.closest("[data-paragraph]");
  const warning = button.closest("[data-code]");
  const path = `/api/books/${form.dataset.book}/paragraphs/${item.dataset.paragraph}/warnings/dismiss`;
  if (!(await working(item, () => api("POST", path, { codes: [warning.dataset.code] }), ""))) return;
  warning.remove();
  if (!item.querySelector("[data-code]")) item.remove();
});

if (form) offerParagraphJob(form, list);
