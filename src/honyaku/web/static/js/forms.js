// A form's work, said next to it: its button busy while it runs, "saved" or the error after.

import { api } from "./api.js";
import { t } from "./i18n.js";

// Runs `action` for the form (or the element holding `[data-error]`): the error, if any,
// is shown in that element's [data-error], and `done` in its [data-status]. The result, or
// undefined after an error.
export async function working(place, action, done = t("Saved.")) {
  const error = place.querySelector("[data-error]");
  const status = place.querySelector("[data-status]");
  const buttons = [...place.querySelectorAll("button")];
  if (error) error.textContent = "";
  if (status) status.textContent = "";
  buttons.forEach((button) => (button.disabled = true));
  try {
    const result = await action();
    if (status && done) status.textContent = done;
    return result;
  } catch (failure) {
    if (error) error.textContent = failure.message ?? String(failure);
    else throw failure;
    return undefined;
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
}

// The form's fields as an object of trimmed strings.
export function fields(form) {
  const values = {};
  for (const [name, value] of new FormData(form)) {
    if (typeof value === "string") values[name] = value.trim();
  }
  return values;
}

// What a form's "if it fails" select asks a job for: null keeps the profile's own fallbacks.
export function fallbacksOf(values) {
  if (!values.fallback) return null;
  return values.fallback === "-" ? [] : [values.fallback];
}

// `form` starts a job over the paragraphs checked in `list` (all of them, or those chosen),
// with the model it chooses, and goes to the job's page.
export function offerParagraphJob(form, list) {
  form.querySelector(".choose-all").addEventListener("change", (event) => {
    for (const box of list.querySelectorAll("input[name=paragraph]")) box.checked = event.target.checked;
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    startParagraphJob(form, list, event.submitter?.value || "translation");
  });
  ready(form);
}

// The form's buttons that only this script can serve, enabled once it listens: clicked
// earlier, the browser would submit the form itself, as a plain request for the same page.
export function ready(form) {
  for (const button of form.querySelectorAll("[data-needs-script]")) button.disabled = false;
}

// A polish of rated paragraphs reads the judge's comments on them (the engine passes them on).
async function startParagraphJob(form, list, kind) {
  const paragraphs = [...list.querySelectorAll("input[name=paragraph]:checked")].map((box) => box.value);
  const values = fields(form);
  const body = {
    kind,
    model: values.model,
    fallbacks: fallbacksOf(values),
    paragraphs,
    retranslate: kind === "translation",
  };
  const started = await working(form, () => {
    if (!paragraphs.length) throw new Error(t("Choose at least one paragraph."));
    return api("POST", `/api/books/${form.dataset.book}/jobs`, body);
  }, "");
  if (started) location.href = `/jobs/${started.id}`;
}
