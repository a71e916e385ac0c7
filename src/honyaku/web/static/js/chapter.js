// A chapter's page: select a paragraph's version, or write one by hand.

import { api, attempt } from "./api.js";

const book = document.querySelector("[data-book]").dataset.book;

for (const paragraph of document.querySelectorAll(".paragraph[data-paragraph]")) {
  const id = paragraph.dataset.paragraph;
  const versions = `/api/books/${book}/paragraphs/${id}/versions`;

  paragraph.addEventListener("click", async (event) => {
    const button = event.target.closest(".select-version");
    if (!button) return;
    const version = button.closest("[data-version]").dataset.version;
    if (await attempt(() => api("POST", `${versions}/${version}/select`))) reload(id);
  });

  paragraph.querySelector(".manual-version").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = new FormData(event.target).get("text");
    if (await attempt(() => api("POST", versions, { text }))) reload(id);
  });
}

// The page again, at the paragraph, with its versions open.
function reload(id) {
  sessionStorage.setItem("open-versions", id);
  location.reload();
}

const open = sessionStorage.getItem("open-versions");
if (open) {
  sessionStorage.removeItem("open-versions");
  const paragraph = document.getElementById(`p-${open}`);
  paragraph?.querySelector("details")?.setAttribute("open", "");
  paragraph?.scrollIntoView({ block: "center" });
}
