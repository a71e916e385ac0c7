// A book's page: start a job, change the translation settings.

import { api, attempt } from "./api.js";

const book = document.querySelector("[data-book]").dataset.book;

document.getElementById("job-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const started = await attempt(() =>
    api("POST", `/api/books/${book}/jobs`, {
      kind: form.get("kind"),
      chapters: form.get("chapters").trim() || null,
      model: form.get("model"),
      max_cost: form.get("max_cost") ? Number(form.get("max_cost")) : null,
    }),
  );
  if (started) location.href = `/jobs/${started.id}`;
});

const dialog = document.getElementById("settings-dialog");
document.getElementById("open-settings").addEventListener("click", () => dialog.showModal());
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

document.getElementById("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const saved = await attempt(() =>
    api("PATCH", `/api/books/${book}/settings`, {
      skip_ask_user: form.get("skip_ask_user") === "on",
      chunk_chars: Number(form.get("chunk_chars")),
      approve_tools: form.getAll("approve_tools"),
      always_allow: form.getAll("always_allow"),
      max_cost: form.get("max_cost") ? Number(form.get("max_cost")) : null,
    }),
  );
  if (saved) dialog.close();
});
