// A book's cast: proposals accepted or rejected, characters edited, forms of address added
// and removed. Every change goes through the API; the page is read again after it.

import { api } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

const section = document.querySelector(".cast[data-book]");
const book = section.dataset.book;
const base = `/api/books/${book}`;
const waitingCharacters = JSON.parse(section.dataset.waitingCharacters || "[]");
const characterForm = document.getElementById("character-form");
const formForm = document.getElementById("form-form");

section.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-action]");
  if (!button) return;
  const row = button.closest("[data-character]");
  const form = button.closest("[data-key]");
  const place = form ?? row?.querySelector(".row-actions") ?? button.parentElement;
  const name = row?.dataset.character;
  const key = form?.dataset.key;
  const actions = {
    "accept-all": async () => {
      if (waitingCharacters.length) await api("POST", `${base}/glossary/accept`, { sources: waitingCharacters });
      return api("POST", `${base}/cast/forms/accept`, { keys: [] });
    },
    "reject-all": async () => {
      if (!confirm(t("Reject every proposal?"))) return undefined;
      if (waitingCharacters.length) await api("POST", `${base}/glossary/reject`, { sources: waitingCharacters });
      return api("POST", `${base}/cast/forms/reject`, { keys: [] });
    },
    "accept-character": () => api("POST", `${base}/glossary/accept`, { sources: [name] }),
    "reject-character": () => api("POST", `${base}/glossary/reject`, { sources: [name] }),
    "edit-character": () => edit(row),
    "accept-form": () => api("POST", `${base}/cast/forms/accept`, { keys: [key] }),
    "reject-form": () => api("POST", `${base}/cast/forms/reject`, { keys: [key] }),
    "remove-form": () => confirm(t("Remove this form of address? Its history keeps it.")) && api("POST", `${base}/cast/forms/remove`, { key }),
  };
  const done = await working(place, actions[button.dataset.action], "");
  if (done && button.dataset.action !== "edit-character") location.reload();
});

function edit(row) {
  if (!characterForm) return false;
  characterForm.elements.name.value = row.dataset.character;
  for (const name of ["gender", "pronoun", "speech"]) characterForm.elements[name].value = row.dataset[name];
  characterForm.elements.pronoun.focus();
  return true;
}

characterForm?.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await working(characterForm, () => api("POST", `${base}/cast/characters`, fields(characterForm)))) location.reload();
});

formForm?.addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = fields(formForm);
  const number = (value) => (value ? Number(value) : null);
  const body = { ...values, since_chapter: number(values.since_chapter), since_paragraph: number(values.since_paragraph) };
  if (await working(formForm, () => api("POST", `${base}/cast/forms`, body))) location.reload();
});
