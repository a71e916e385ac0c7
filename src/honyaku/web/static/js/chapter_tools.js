// The chapter page's tools: search the book (plain or regex), replace in its translations
// with a preview, retranslate ticked or flagged paragraphs as one job over exactly those.
// The chapter's paragraphs may be drawn a page at a time: ticks are added to each
// paragraph as it appears.

import { api, element } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

const tools = document.querySelector(".chapter-tools");
const { book, chapter, sourceLang, targetLang } = tools.dataset;
const searchForm = tools.querySelector(".search-form");
const results = tools.querySelector(".search-results");
const retranslateForm = tools.querySelector(".retranslate-form");
const chosen = new Set();

// -- search and replace ---------------------------------------------------------------------

function query() {
  const values = fields(searchForm);
  const box = (name) => searchForm.elements[name].checked;
  return {
    q: searchForm.elements.q.value,
    regex: box("regex"),
    case_sensitive: box("case_sensitive"),
    source: box("source"),
    translation: box("translation"),
    chapters: values.scope === "chapter" ? chapter : null,
    replacement: searchForm.elements.replacement.value,
  };
}

searchForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const asked = query();
  const params = new URLSearchParams({
    q: asked.q,
    regex: asked.regex,
    case_sensitive: asked.case_sensitive,
    source: asked.source,
    translation: asked.translation,
  });
  if (asked.chapters) params.set("chapters", asked.chapters);
  const found = await working(searchForm, () => api("GET", `/api/books/${book}/search?${params}`), "");
  if (!found) return;
  searchForm.querySelector("[data-status]").textContent =
    found.total > found.hits.length
      ? t("{total} paragraphs match; the first {shown} are shown.", { total: found.total, shown: found.hits.length })
      : t("{total} paragraphs match.", { total: found.total });
  results.replaceChildren(element("ol", { className: "hits" }, ...found.hits.map(hit)));
});

function hit(found) {
  return element(
    "li",
    {},
    place(found),
    marked(found.text, found.source_spans, sourceLang),
    found.translation === null ? null : marked(found.translation, found.translation_spans, targetLang),
  );
}

function place(found) {
  const link = element("a", { href: `/books/${book}/chapters/${found.chapter_number}?at=${found.paragraph_id}` });
  link.textContent = t("Chapter {chapter}, paragraph {paragraph}", { chapter: found.chapter_number, paragraph: found.index + 1 });
  return element("div", { className: "where" }, link);
}

// The text with its matches in <mark>: text nodes only, nothing a model wrote is markup.
function marked(text, spans, lang) {
  const line = element("p", { lang });
  let at = 0;
  for (const [start, end] of spans) {
    line.append(text.slice(at, start), element("mark", {}, text.slice(start, end)));
    at = end;
  }
  line.append(text.slice(at));
  return line;
}

searchForm.querySelector("[data-action=preview]").addEventListener("click", async () => {
  const asked = query();
  const body = { q: asked.q, replacement: asked.replacement, regex: asked.regex, case_sensitive: asked.case_sensitive, chapters: asked.chapters };
  const preview = await working(searchForm, () => api("POST", `/api/books/${book}/replace`, body), "");
  if (!preview) return;
  searchForm.querySelector("[data-status]").textContent = t("{count} translations would change.", { count: preview.length });
  const list = element("ol", { className: "hits replacements" }, ...preview.map(change));
  const apply = element("button", { type: "button", className: "apply" }, t("Replace in the ticked paragraphs"));
  apply.addEventListener("click", () => replace(body, list));
  results.replaceChildren(list, preview.length ? apply : t("Nothing to replace."));
});

function change(replacement) {
  const tick = element("input", { type: "checkbox", checked: true, value: replacement.paragraph_id });
  const label = element("label", { className: "choose" }, tick, element("span", { className: "visually-hidden" }, t("Replace here")));
  return element(
    "li",
    {},
    label,
    place(replacement),
    element("p", { className: "before", lang: targetLang }, replacement.before),
    element("p", { className: "after", lang: targetLang }, replacement.after),
  );
}

async function replace(body, list) {
  const paragraphs = [...list.querySelectorAll("input:checked")].map((box) => box.value);
  const done = await working(searchForm, () => api("POST", `/api/books/${book}/replace`, { ...body, paragraphs, apply: true }), "");
  if (!done) return;
  const status = t("{count} replaced, each as a new version: select the previous version to undo one.", { count: done.length });
  sessionStorage.setItem("replaced", status);
  location.reload();
}

const replaced = sessionStorage.getItem("replaced");
if (replaced) {
  sessionStorage.removeItem("replaced");
  tools.querySelector("#search-tool").open = true;
  searchForm.querySelector("[data-status]").textContent = replaced;
}

// -- retranslate ------------------------------------------------------------------------------

function addTick(paragraph) {
  if (paragraph.querySelector(".retranslate-tick")) return;
  const id = paragraph.dataset.paragraph;
  const tick = element("input", { type: "checkbox", className: "retranslate-tick", checked: chosen.has(id) });
  tick.setAttribute("aria-label", t("Retranslate this paragraph"));
  tick.addEventListener("change", () => {
    if (tick.checked) chosen.add(id);
    else chosen.delete(id);
    retranslateForm.querySelector("[data-chosen]").textContent = chosen.size;
  });
  paragraph.prepend(tick);
}

function addTicks(root) {
  for (const paragraph of root.querySelectorAll(".paragraph[data-paragraph]")) addTick(paragraph);
}

tools.querySelector("#retranslate-tool").addEventListener("toggle", (event) => {
  document.body.classList.toggle("choosing-paragraphs", event.target.open);
  if (event.target.open) addTicks(document);
});

new MutationObserver((changes) => {
  if (!document.body.classList.contains("choosing-paragraphs")) return;
  for (const added of changes.flatMap((c) => [...c.addedNodes])) {
    if (added.nodeType !== Node.ELEMENT_NODE) continue;
    if (added.matches(".paragraph[data-paragraph]")) addTick(added);
    else addTicks(added);
  }
}).observe(document.querySelector("main"), { childList: true, subtree: true });

async function retranslate(paragraphs) {
  if (!paragraphs.length) throw new Error(t("Tick at least one paragraph."));
  const body = { kind: "translation", model: fields(retranslateForm).model, paragraphs, retranslate: true };
  return api("POST", `/api/books/${book}/jobs`, body);
}

retranslateForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const started = await working(retranslateForm, () => retranslate([...chosen]), "");
  if (started) location.href = `/jobs/${started.id}`;
});

retranslateForm.querySelector("[data-action=flagged]").addEventListener("click", async () => {
  const started = await working(retranslateForm, async () => {
    const flagged = await api("GET", `/api/books/${book}/flagged?chapters=${chapter}`);
    if (!flagged.length) throw new Error(t("No paragraph of this chapter is flagged."));
    return retranslate(flagged.map((item) => item.paragraph_id));
  }, "");
  if (started) location.href = `/jobs/${started.id}`;
});
