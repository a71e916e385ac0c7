// A trial's page: its figures refreshed while its models or its judge run, a judge started,
// one model's versions taken into the book.

import { api } from "./api.js";
import { fields, ready, working } from "./forms.js";
import { t } from "./i18n.js";

const POLL_MS = 2000;
const section = document.querySelector("[data-trial]");
const trial = section.dataset.trial;
let seen = null;

if (section.dataset.running === "true") setTimeout(poll, POLL_MS);

// While something runs, the figures' table as the server draws it now, whenever they changed;
// once nothing runs, the whole page again, with what can be done then.
async function poll() {
  try {
    const found = await api("GET", `/api/trials/${trial}`);
    if (!found.running && !found.judging) {
      location.reload();
      return;
    }
    const figures = JSON.stringify(found.results);
    if (figures !== seen) {
      seen = figures;
      const drawn = await (await fetch(location.href)).text();
      const fresh = new DOMParser().parseFromString(drawn, "text/html").getElementById("figures");
      if (fresh) document.getElementById("figures").replaceWith(fresh);
    }
  } catch {
    // The next poll asks again.
  }
  setTimeout(poll, POLL_MS);
}

for (const button of section.querySelectorAll(".use-model")) {
  button.addEventListener("click", () => use(button.dataset.model));
}
ready(section);

async function use(model) {
  const others = [...section.querySelectorAll(".use-model")].map((button) => button.dataset.model);
  const fallbacks = section.querySelector("input[name=fallbacks]")?.checked
    ? others.filter((name) => name !== model)
    : [];
  const body = { model, fallbacks };
  const used = await working(section, () => api("POST", `/api/trials/${trial}/use`, body), "");
  if (!used) return;
  section.querySelector("[data-status]").textContent = t("Taken into the book: {count} paragraphs", {
    count: used.paragraphs,
  });
  for (const badge of section.querySelectorAll(".used-badge")) {
    badge.hidden = badge.closest("th").dataset.model !== model;
  }
}

const judgeForm = document.getElementById("judge-form");
if (judgeForm) {
  judgeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { model: fields(judgeForm).model };
    const started = await working(judgeForm, () => api("POST", `/api/trials/${trial}/judge`, body), "");
    if (started) location.reload();
  });
  ready(judgeForm);
}
