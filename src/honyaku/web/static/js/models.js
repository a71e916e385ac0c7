// The models page: add, edit, remove and test model profiles.

import { api } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

const form = document.getElementById("model-form");
const NUMBERS = ["input_price", "cached_input_price", "output_price", "requests_per_minute", "tokens_per_minute"];
const TEXTS = ["provider", "base_url", "api_key_env", "service_tier"];

function profileOf(values) {
  const profile = { name: values.name, model: values.model, protocol: values.protocol };
  profile.replay_reasoning = values.replay_reasoning === "on";
  for (const name of TEXTS) profile[name] = values[name] || null;
  for (const name of NUMBERS) profile[name] = values[name] === "" ? null : Number(values[name]);
  return profile;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await working(form, () => api("POST", "/api/models", profileOf(fields(form))))) location.reload();
});

form.querySelector("[data-action=check-form]").addEventListener("click", () => check(form, profileOf(fields(form))));

form.querySelector(".cancel-edit").addEventListener("click", () => location.reload());

document.querySelector("table.models")?.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-action]");
  if (!button) return;
  const row = button.closest("tr");
  const profile = JSON.parse(row.dataset.profile);
  if (button.dataset.action === "check") await check(row, profile);
  if (button.dataset.action === "edit") edit(profile);
  if (button.dataset.action === "remove") {
    if (!confirm(t("Remove the model {name}?", { name: profile.name }))) return;
    const removed = await working(row, () => api("DELETE", `/api/models/${encodeURIComponent(profile.name)}`), "");
    if (removed !== undefined) location.reload();
  }
});

function edit(profile) {
  for (const [name, value] of Object.entries(profile)) {
    if (form.elements[name]) form.elements[name].value = value ?? "";
  }
  form.elements.replay_reasoning.checked = profile.replay_reasoning;
  form.elements.name.readOnly = true;
  document.getElementById("model-form-title").textContent = t("Edit {name}", { name: profile.name });
  form.querySelector(".cancel-edit").hidden = false;
  form.elements.model.focus();
}

// One cheap request; what works, said in plain words next to what was tested.
async function check(place, profile) {
  const list = place.querySelector(".check-result");
  list.replaceChildren(line(null, t("Asking the model once…")));
  const found = await working(place, () => api("POST", "/api/models/check", profile), "");
  if (!found) return list.replaceChildren();
  list.replaceChildren(...describe(found));
}

function describe(found) {
  const lines = [];
  if (found.reachable === true) lines.push(line(true, t("The server answers.")));
  if (found.reachable === false) lines.push(line(false, t("No server answers at this address.")));
  if (found.key_accepted === true) {
    lines.push(line(true, found.key_variable ? t("The key in ${name} is accepted.", { name: found.key_variable }) : t("It works without a key.")));
  }
  if (found.key_accepted === false) lines.push(line(false, t("The key is refused or missing.")));
  if (found.native_tools === true) lines.push(line(true, t("The model calls tools natively.")));
  if (found.native_tools === false) {
    lines.push(line(true, t("The model does not call tools natively: honyaku will speak its XML tool protocol with it.")));
  }
  if (found.problem) lines.push(line(false, found.problem));
  return lines;
}

function line(ok, text) {
  const item = document.createElement("li");
  item.className = ok === null ? "muted" : ok ? "ok" : "bad";
  item.textContent = `${ok === null ? "" : ok ? "✓ " : "✗ "}${text}`;
  return item;
}
