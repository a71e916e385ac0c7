// A book's page: start a job or a trial of models, change the translation settings.

import { api, showErrorAt } from "./api.js";
import { fallbacksOf, fields, ready, working } from "./forms.js";
import { t } from "./i18n.js";

const book = document.querySelector("[data-book]").dataset.book;

const jobForm = document.getElementById("job-form");
jobForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const error = event.target.querySelector(".form-error");
  error.hidden = true;
  try {
    const started = await api("POST", `/api/books/${book}/jobs`, {
      kind: form.get("kind"),
      chapters: form.get("chapters").trim() || null,
      model: form.get("model"),
      fallbacks: fallbacksOf(fields(event.target)),
      max_cost: form.get("max_cost") ? Number(form.get("max_cost")) : null,
      batch: form.get("batch") === "on",
    });
    location.href = `/jobs/${started.id}`;
  } catch (failure) {
    showErrorAt(error, failure);
  }
});
ready(jobForm);

const dialog = document.getElementById("settings-dialog");
const opener = document.getElementById("open-settings");
opener.addEventListener("click", () => dialog.showModal());
opener.disabled = false;
dialog.querySelector(".cancel").addEventListener("click", () => dialog.close());

for (const tab of dialog.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => {
    for (const other of dialog.querySelectorAll("[role=tab]")) {
      other.setAttribute("aria-selected", String(other === tab));
    }
    for (const panel of dialog.querySelectorAll(".tab")) {
      panel.hidden = panel.dataset.tab !== tab.dataset.tab;
    }
  });
}

// A tool is asked about first or always allowed, never both.
dialog.addEventListener("change", (event) => {
  const box = event.target;
  if (!box.checked || !["approve_tools", "always_allow"].includes(box.name)) return;
  const other = box.name === "approve_tools" ? "always_allow" : "approve_tools";
  dialog.querySelector(`input[name=${other}][value="${box.value}"]`).checked = false;
});

document.getElementById("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const formElement = event.target;
  const form = new FormData(formElement);
  const error = formElement.querySelector(".form-error");
  const saved = formElement.querySelector(".saved");
  error.hidden = true;
  saved.textContent = "";
  try {
    await api("PATCH", `/api/books/${book}/settings`, {
      skip_ask_user: form.get("skip_ask_user") === "on",
      chunk_chars: Number(form.get("chunk_chars")),
      approve_tools: form.getAll("approve_tools"),
      always_allow: form.getAll("always_allow"),
      max_cost: form.get("max_cost") ? Number(form.get("max_cost")) : null,
      ruby: form.get("ruby"),
      lost_markup: form.get("lost_markup"),
      write_from_memory: form.get("write_from_memory") === "on",
    });
    saved.textContent = t("Saved.");
  } catch (failure) {
    showErrorAt(error, failure);
  }
});

// Models tried on the same sample: the trial started, then its page.
const trialForm = document.getElementById("trial-form");
trialForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const models = new FormData(trialForm).getAll("models");
  const body = { models, chapters: fields(trialForm).chapters || null };
  const started = await working(trialForm, () => {
    if (!models.length) throw new Error(t("Choose at least one model."));
    return api("POST", `/api/books/${book}/trials`, body);
  }, "");
  if (started) location.href = `/trials/${started.id}`;
});
ready(trialForm);
