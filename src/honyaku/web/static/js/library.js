// The library page: import a book by upload, delete one after asking.

import { api, attempt, showErrorAt } from "./api.js";
import { t } from "./i18n.js";

const form = document.getElementById("import-form");
const importButton = form.querySelector("button[type=submit]");
const again = form.querySelector(".again");

form.addEventListener("submit", (event) => {
  event.preventDefault();
  upload(false);
});
again.addEventListener("click", () => upload(true));
form.elements.file.addEventListener("change", () => (again.hidden = true));

// A book the library already holds is imported again only when the person says so.
async function upload(twice) {
  const error = form.querySelector(".form-error");
  const body = new FormData(form);
  if (twice) body.set("again", "true");
  error.hidden = true;
  again.hidden = true;
  importButton.disabled = true;
  importButton.textContent = t("Importing…");
  try {
    const created = await api("POST", "/api/books", body);
    location.href = `/books/${created.id}`;
  } catch (failure) {
    showErrorAt(error, failure);
    again.hidden = failure.status !== 409;
    importButton.disabled = false;
    importButton.textContent = t("Import");
  }
}

for (const button of document.querySelectorAll(".delete-book")) {
  button.addEventListener("click", async () => {
    const { book, title } = button.dataset;
    if (!confirm(t("Delete “{title}” with all its translations and jobs? This cannot be undone.", { title }))) return;
    if ((await attempt(() => api("DELETE", `/api/books/${book}`))) !== undefined) location.reload();
  });
}
