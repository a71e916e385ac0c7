// The flagged paragraphs: dismiss a warning, retranslate the chosen paragraphs as one job.

import { api } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

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

form?.querySelector(".choose-all").addEventListener("change", (event) => {
  for (const box of list.querySelectorAll("input[name=paragraph]")) box.checked = event.target.checked;
});

form?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const paragraphs = [...list.querySelectorAll("input[name=paragraph]:checked")].map((box) => box.value);
  const body = { kind: "translation", model: fields(form).model, paragraphs, retranslate: true };
  const started = await working(form, () => {
    if (!paragraphs.length) throw new Error(t("Choose at least one paragraph."));
    return api("POST", `/api/books/${form.dataset.book}/jobs`, body);
  }, "");
  if (started) location.href = `/jobs/${started.id}`;
});
