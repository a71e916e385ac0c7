// A book's page: import a new edition of the book, after a preview of what it changes.

import { api, element } from "./api.js";
import { working } from "./forms.js";
import { t } from "./i18n.js";

const form = document.getElementById("edition-form");
const output = form.querySelector(".edition-summary");

function tally(counts) {
  return t("{unchanged} unchanged, {changed} changed, {new} new, {gone} gone", counts);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const body = new FormData(form);
  body.set("dry_run", event.submitter.value);
  output.replaceChildren();
  const result = await working(form, () => api("POST", `/api/books/${form.dataset.book}/edition`, body), "");
  if (!result) return;
  const moved = result.moved_chapters ? t(" ({moved} moved)", { moved: result.moved_chapters }) : "";
  const head = result.edition === null ? t("Preview, nothing written:") : t("Edition {edition}:", { edition: result.edition });
  const chapters = tally(result.chapters) + moved;
  const figures = t("chapters {chapters}; paragraphs {paragraphs}.", { chapters, paragraphs: tally(result.paragraphs) });
  output.replaceChildren(
    `${head} ${figures} `,
    result.edition === null ? "" : element("a", { href: location.pathname, textContent: t("Show the chapters") }),
  );
});
