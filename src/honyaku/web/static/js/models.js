// The models page: add, edit, remove and test model profiles; start one from a preset, keep
// its key in the key store (write-only: only its last characters come back), and show the
// prices the price list knows for its model.

import { api } from "./api.js";
import { fields, working } from "./forms.js";
import { t } from "./i18n.js";

const form = document.getElementById("model-form");
const NUMBERS = ["input_price", "cached_input_price", "output_price", "requests_per_minute", "tokens_per_minute"];
const TEXTS = ["provider", "base_url", "api_key_env", "key_name", "service_tier"];
const PRICED_BY = ["model", "base_url", "provider", "service_tier"];
const keys = JSON.parse(form.dataset.keys);

function profileOf(values) {
  const profile = { name: values.name, model: values.model, protocol: values.protocol };
  profile.replay_reasoning = values.replay_reasoning === "on";
  for (const name of TEXTS) profile[name] = values[name] || null;
  for (const name of NUMBERS) profile[name] = values[name] === "" ? null : Number(values[name]);
  profile.more_endpoints = endpointsOf(values.more_endpoints || "");
  profile.fallbacks = (values.fallbacks || "").split(",").map((name) => name.trim()).filter(Boolean);
  return profile;
}

// "URL", "URL, KEY_VAR" or ", KEY_VAR" a line, as `honyaku models add --endpoint` takes them.
function endpointsOf(text) {
  return text.split("\n").filter((line) => line.trim()).map((line) => {
    const [url, variable = ""] = line.split(",").map((part) => part.trim());
    return { base_url: url || null, api_key_env: variable || null };
  });
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const saved = await working(form, async () => {
    await keepKey(fields(form));
    return api("POST", "/api/models", profileOf(fields(form)));
  });
  if (saved) location.reload();
});

form.querySelector("[data-action=check-form]").addEventListener("click", async () => {
  const kept = await working(form, () => keepKey(fields(form)), "");
  if (kept !== undefined) await check(form, profileOf(fields(form)));
});

// A key typed in goes to the key store under the key's name and leaves the page at once: the
// field is emptied, and from then on only the key's last characters are shown.
async function keepKey(values) {
  if (!values.key || !form.elements.key) return null;
  if (!values.key_name) throw new Error(t("Give the key a name first, e.g. DEEPSEEK_API_KEY."));
  const kept = await api("PUT", `/api/keys/${encodeURIComponent(values.key_name)}`, { key: values.key });
  form.elements.key.value = "";
  keys[kept.name] = kept;
  showKeyStatus();
  return kept;
}

function showKeyStatus() {
  const name = form.elements.key_name.value.trim();
  const kept = keys[name];
  const status = form.querySelector("[data-key-status]");
  if (!name) status.textContent = t("No key's name: for a server that takes no key.");
  else if (kept) status.textContent = t("A key is kept as {name} ({tail}).", { name, tail: kept.tail });
  else status.textContent = t("No key is kept as {name} on this computer yet.", { name });
}

form.elements.key_name.addEventListener("input", showKeyStatus);
showKeyStatus();

// A preset fills in where its model is served, how honyaku talks to it, its key's name and a
// model to try; everything stays editable.
form.elements.preset.addEventListener("change", () => {
  const option = form.elements.preset.selectedOptions[0];
  if (!option.dataset.preset) return;
  const preset = JSON.parse(option.dataset.preset);
  if (!form.elements.name.readOnly) form.elements.name.value = preset.id;
  form.elements.model.value = preset.models[0] ?? "";
  form.elements.provider.value = preset.provider;
  form.elements.base_url.value = preset.base_url ?? "";
  form.elements.protocol.value = preset.protocol;
  form.elements.key_name.value = preset.key_name ?? "";
  form.elements.api_key_env.value = "";
  document.getElementById("model-suggestions").replaceChildren(
    ...preset.models.map((model) => Object.assign(document.createElement("option"), { value: model })),
  );
  showKeyStatus();
  showListedPrices();
});

// The prices the list knows for the model at its server, with their source; they are the
// price fields' placeholders, and prices typed there replace them.
let asked = 0;
async function showListedPrices() {
  const values = fields(form);
  const place = form.querySelector("[data-listed-prices]");
  const query = new URLSearchParams(PRICED_BY.filter((name) => values[name]).map((name) => [name, values[name]]));
  const ask = ++asked;
  const listed = values.model ? await api("GET", `/api/models/prices?${query}`).catch(() => null) : null;
  if (ask !== asked) return; // a later change asked again
  form.elements.input_price.placeholder = listed ? String(listed.input) : "";
  form.elements.output_price.placeholder = listed ? String(listed.output) : "";
  form.elements.cached_input_price.placeholder = listed?.cached_input != null ? String(listed.cached_input) : t("as input");
  if (!listed) return place.replaceChildren();
  const prices = listed.cached_input != null
    ? t("in {input} · cached {cached} · out {output}", { ...listed, cached: listed.cached_input })
    : t("in {input} · out {output}", listed);
  place.textContent = t("Known prices, {currency} per million tokens: {prices} ({source}). Leave the fields empty to use them, or type your own.", {
    prices, currency: listed.currency, source: listed.source,
  });
}

for (const name of PRICED_BY) form.elements[name].addEventListener("change", showListedPrices);

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
  form.elements.more_endpoints.value = profile.more_endpoints
    .map((e) => (e.api_key_env ? `${e.base_url ?? ""}, ${e.api_key_env}` : e.base_url)).join("\n");
  form.elements.replay_reasoning.checked = profile.replay_reasoning;
  form.elements.fallbacks.value = profile.fallbacks.join(", ");
  form.elements.name.readOnly = true;
  showKeyStatus();
  showListedPrices();
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
    lines.push(line(true, !found.key_variable ? t("It works without a key.")
      : found.key_source?.startsWith("$") ? t("The key in ${name} is accepted.", { name: found.key_variable })
      : t("The key {name} is accepted.", { name: found.key_variable })));
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
