// The library page: import a book by upload, delete one after asking.

import { api, attempt, showErrorAt } from "./api.js";
import { t } from "./i18n.js";

document.getElementById("import-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button");
  const error = form.querySelector(".form-error");
  error.hidden = true;
  button.disabled = true;
  button.textContent = t("Importing…");
  try {
    const created = await api("POST", "/api/books", new FormData(form));
    location.href = `/books/${created.id}`;
  } catch (failure) {
    showErrorAt(error, failure);
    button.disabled = false;
    button.textContent = t("Import");
  }
});

for (const button of document.querySelectorAll(".delete-book")) {
  button.addEventListener("click", async () => {
    const { book, title } = button.dataset;
    if (!confirm(t("Delete “{title}” with all its translations and jobs? This cannot be undone.", { title }))) return;
    if ((await attempt(() => api("DELETE", `/api/books/${book}`))) !== undefined) location.reload();
  });
}
