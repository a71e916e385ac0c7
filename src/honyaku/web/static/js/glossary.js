// A book's glossary: add, edit, remove, accept or reject proposals, history, files, series,
// extraction. Every change goes through the API; the page is read again after it.

import { api, element } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

const section = document.querySelector(".glossary[data-book]");
const book = section.dataset.book;
const series = section.dataset.series || null;
const base = `/api/books/${book}/glossary`;
const form = document.getElementById("entry-form");

section.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-action]");
  if (!button) return;
  const row = button.closest("tr[data-source]");
  const place = row ?? button.parentElement;
  const source = row?.dataset.source;
  const glossary = row && row.dataset.glossary !== "book" ? row.dataset.glossary : series;
  const actions = {
    "accept-all": () => api("POST", `${base}/accept`, { sources: [], series }),
    "reject-all": () => confirm(t("Reject every proposal?")) && api("POST", `${base}/reject`, { sources: [], series }),
    accept: () => api("POST", `${base}/accept`, { sources: [source], series: glossary }),
    reject: () => api("POST", `${base}/reject`, { sources: [source], series: glossary }),
    remove: () => confirm(t("Remove “{source}”? Its history keeps it.", { source })) && api("POST", `${base}/remove`, { source, series: glossary }),
    edit: () => edit(JSON.parse(row.dataset.entry)),
    history: () => history(source, glossary),
  };
  const done = await working(place, actions[button.dataset.action], "");
  if (done && !["edit", "history"].includes(button.dataset.action)) location.reload();
});

function edit(entry) {
  for (const name of ["source", "target", "kind", "reading", "gender", "pronoun", "speech", "note"]) form.elements[name].value = entry[name];
  form.elements.aliases.value = entry.aliases.join(" | ");
  form.elements.replaces.value = entry.source;
  form.dataset.series = entry.glossary === "book" ? "" : entry.glossary;
  document.getElementById("entry-title").textContent = t("Edit “{source}”", { source: entry.source });
  form.querySelector(".cancel-edit").hidden = false;
  form.elements.target.focus();
  return true;
}

form.querySelector(".cancel-edit").addEventListener("click", () => {
  form.reset();
  form.elements.replaces.value = "";
  location.reload();
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = fields(form);
  const entry = { ...values, aliases: values.aliases.split("|").map((a) => a.trim()).filter(Boolean) };
  delete entry.replaces;
  const body = { entry, replaces: values.replaces || null, series: form.dataset.series || series };
  if (await working(form, () => api("POST", base, body))) location.reload();
});

async function history(source, glossary) {
  const query = new URLSearchParams({ source, ...(glossary ? { series: glossary } : {}) });
  const versions = await api("GET", `${base}/history?${query}`);
  const dialog = document.getElementById("history-dialog");
  dialog.querySelector(".history").replaceChildren(...versions.map(describe));
  dialog.querySelector(".close").onclick = () => dialog.close();
  dialog.showModal();
  return true;
}

function describe(version) {
  const when = new Date(version.created_at).toLocaleString();
  const what = version.removed ? t("removed") : version.status === "proposed" ? t("proposed") : t("accepted");
  const who = version.origin === "manual" ? t("by you") : version.origin === "import" ? t("imported") : version.origin;
  return element(
    "li",
    {},
    element("span", { className: "meta" }, `${when} · ${what} · ${who}`),
    element("span", { lang: section.dataset.sourceLang }, version.source),
    " → ",
    element("span", { lang: section.dataset.targetLang }, version.target),
    version.note ? ` (${version.note})` : "",
  );
}

const importForm = document.getElementById("import-form");
importForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const upload = new FormData(importForm);
  if (series) upload.set("series", series);
  const summary = await working(importForm, () => api("POST", `${base}/import`, upload), "");
  if (!summary) return;
  importForm.querySelector("[data-status]").textContent = t("{added} added, {changed} changed, {unchanged} unchanged.", summary);
  setTimeout(() => location.reload(), 1200);
});

const seriesForm = document.getElementById("series-form");
seriesForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await working(seriesForm, () => api("POST", `${base}/series`, fields(seriesForm)))) location.reload();
});

for (const button of document.querySelectorAll("[data-detach]")) {
  button.addEventListener("click", async () => {
    const done = await working(seriesForm, () => api("POST", `${base}/series/detach`, { name: button.dataset.detach }));
    if (done) location.reload();
  });
}

const extractForm = document.getElementById("extract-form");
extractForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = fields(extractForm);
  const body = { kind: "extraction", model: values.model, chapters: values.chapters || null };
  const started = await working(extractForm, () => api("POST", `/api/books/${book}/jobs`, body), "");
  if (started) location.href = `/jobs/${started.id}`;
});
