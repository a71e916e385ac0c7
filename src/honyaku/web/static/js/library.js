// The library page: import a book by upload, delete one after asking.

import { api, attempt } from "./api.js";

document.getElementById("import-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button");
  button.disabled = true;
  button.textContent = "Importing…";
  const created = await attempt(() => api("POST", "/api/books", new FormData(form)));
  button.disabled = false;
  button.textContent = "Import";
  if (created) location.href = `/books/${created.id}`;
});

for (const button of document.querySelectorAll(".delete-book")) {
  button.addEventListener("click", async () => {
    const { book, title } = button.dataset;
    if (!confirm(`Delete “${title}” with all its translations and jobs? This cannot be undone.`)) return;
    if ((await attempt(() => api("DELETE", `/api/books/${book}`))) !== undefined) location.reload();
  });
}
