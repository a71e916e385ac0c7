// A chapter's page: move between paragraphs with the keyboard, write a version by hand,
// select another, compare two. What goes wrong is said next to the paragraph it concerns.

import { api, element } from "./api.js";
import { t } from "./i18n.js";

const root = document.querySelector(".side-by-side");
const book = root.dataset.book;
const paragraphs = () => [...root.querySelectorAll(".paragraph[data-paragraph]")];
const versionsOf = (id) => `/api/books/${book}/paragraphs/${id}/versions`;

root.addEventListener("click", (event) => {
  const writing = event.target.closest(".write-by-hand");
  if (writing) edit(writing.closest("[data-paragraph]"));
});

root.addEventListener("click", async (event) => {
  const button = event.target.closest(".select-version");
  if (!button) return;
  const paragraph = button.closest("[data-paragraph]");
  const version = button.closest("[data-version]").dataset.version;
  await change(paragraph, () => api("POST", `${versionsOf(paragraph.dataset.paragraph)}/${version}/select`));
});

root.addEventListener("submit", async (event) => {
  const form = event.target;
  const paragraph = form.closest("[data-paragraph]");
  event.preventDefault();
  if (form.matches(".manual-version")) {
    const text = new FormData(form).get("text");
    if (await change(paragraph, () => api("POST", versionsOf(paragraph.dataset.paragraph), { text }))) {
      said(form.querySelector(".saved"), t("Saved."));
    }
  } else if (form.matches(".compare")) {
    await compare(paragraph, form);
  }
});

// Runs a change of the paragraph's versions; then draws them again, or says why not.
async function change(paragraph, action) {
  const error = paragraph.querySelector(".paragraph-error");
  error.hidden = true;
  let versions;
  try {
    versions = await action();
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
    return false;
  }
  const selected = versions.find((v) => v.selected);
  if (selected) paragraph.querySelector(".needs-you")?.remove();
  const list = await fetch(`/books/${book}/paragraphs/${paragraph.dataset.paragraph}/versions`);
  const drawn = paragraph.querySelector(".version-list");
  drawn.innerHTML = await list.text(); // our own escaped page
  // The selected version as the list draws it (its markup as our own elements), and its
  // text as a person edits it (its placeholders written plainly).
  const chosen = drawn.querySelector(".version.selected");
  const shown = chosen?.querySelector(".text");
  paragraph.querySelector(".translation").replaceChildren(...(shown ? [...shown.cloneNode(true).childNodes] : []));
  if (chosen) paragraph.querySelector(".manual-version textarea").value = chosen.dataset.editable ?? selected.text;
  paragraph.querySelector("summary").textContent = versions.length === 1 ? t("1 version") : t("{count} versions", { count: versions.length });
  fillCompare(paragraph);
  return true;
}

function said(where, text) {
  where.textContent = text;
  setTimeout(() => (where.textContent = ""), 4000);
}

// The two lists of versions to compare: by default the one before the selected, and it.
function fillCompare(paragraph) {
  const form = paragraph.querySelector(".compare");
  const versions = [...paragraph.querySelectorAll(".version")];
  form.hidden = versions.length < 2;
  const selected = Math.max(versions.findIndex((v) => v.classList.contains("selected")), 1);
  for (const [name, chosen] of [["old", selected - 1], ["new", selected]]) {
    form.elements[name].replaceChildren(
      ...versions.map((v, i) => element("option", { value: v.dataset.version, selected: i === chosen }, v.dataset.label)),
    );
  }
}

async function compare(paragraph, form) {
  const shown = paragraph.querySelector(".diff");
  const query = new URLSearchParams({ old: form.elements.old.value, new: form.elements.new.value });
  try {
    const parts = await api("GET", `/api/books/${book}/paragraphs/${paragraph.dataset.paragraph}/diff?${query}`);
    const tags = { same: "span", added: "ins", removed: "del" };
    shown.replaceChildren(...parts.map((part) => element(tags[part.change], {}, part.text)));
    if (parts.every((part) => part.change === "same")) shown.append(element("span", { className: "muted" }, " " + t("(the same text)")));
    shown.hidden = false;
  } catch (failure) {
    const error = paragraph.querySelector(".paragraph-error");
    error.textContent = failure.message;
    error.hidden = false;
  }
}

// -- the keyboard ---------------------------------------------------------------------------

let current = null;

function focusParagraph(paragraph) {
  if (!paragraph) return;
  current?.classList.remove("current");
  current = paragraph;
  paragraph.classList.add("current");
  paragraph.focus({ preventScroll: true });
  paragraph.scrollIntoView({ block: "nearest" });
}

function step(by) {
  const all = paragraphs();
  const at = current ? all.indexOf(current) : -1;
  focusParagraph(all[Math.min(Math.max(at + by, 0), all.length - 1)]);
}

function edit(paragraph) {
  const details = paragraph.querySelector("details");
  details.open = true;
  const textarea = paragraph.querySelector("textarea");
  textarea.focus();
  textarea.setSelectionRange(textarea.value.length, textarea.value.length);
}

function toggle(details) {
  details.open = !details.open;
}

function page(direction) {
  document.querySelector(`.pager [data-page=${direction}]`)?.click();
}

document.addEventListener("keydown", (event) => {
  const inside = event.target.closest?.("[data-paragraph]");
  if (event.key === "Escape" && inside && event.target !== inside) {
    focusParagraph(inside);
    return;
  }
  const typing = event.target.closest?.("textarea, input, select");
  if (typing) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && typing.form?.matches(".manual-version")) {
      event.preventDefault();
      typing.form.requestSubmit();
    }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || !document.getElementById("person-dialog").hidden) return;
  const actions = {
    j: () => step(1),
    k: () => step(-1),
    e: () => current && edit(current),
    Enter: () => current && event.target === current && edit(current),
    v: () => current && toggle(current.querySelector("details")),
    "[": () => page("previous"),
    "]": () => page("next"),
  };
  if (actions[event.key]) {
    event.preventDefault();
    actions[event.key]();
  }
});

root.addEventListener("focusin", (event) => {
  const paragraph = event.target.closest("[data-paragraph]");
  if (paragraph && paragraph !== current) {
    current?.classList.remove("current");
    current = paragraph;
    paragraph.classList.add("current");
  }
});

for (const paragraph of paragraphs()) fillCompare(paragraph);
const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
if (target?.matches("[data-paragraph]")) focusParagraph(target);
