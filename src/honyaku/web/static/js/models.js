// The models page: save a model profile, remove one.

import { api, attempt } from "./api.js";

document.getElementById("model-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const optional = (name) => form.get(name).trim() || null;
  const saved = await attempt(() =>
    api("POST", "/api/models", {
      name: form.get("name").trim(),
      model: form.get("model").trim(),
      provider: optional("provider"),
      base_url: optional("base_url"),
      protocol: form.get("protocol"),
      api_key_env: optional("api_key_env"),
    }),
  );
  if (saved) location.reload();
});

for (const button of document.querySelectorAll(".remove-model")) {
  button.addEventListener("click", async () => {
    if (!confirm(`Remove the model ${button.dataset.name}?`)) return;
    if ((await attempt(() => api("DELETE", `/api/models/${button.dataset.name}`))) !== undefined) location.reload();
  });
}
