// The scripts' words in the page's language. Mark every text a person reads with t():
//   t("Saved.")                      → "已保存。" on a Chinese page
//   t("Delete “{title}”?", { title }) → placeholders in braces, filled after translating
// The catalog is the page's <script id="messages"> (from locales/*/LC_MESSAGES/js.po);
// English is the text itself.

const catalog = JSON.parse(document.getElementById("messages")?.textContent || "{}");

export function t(text, values = {}) {
  const translated = catalog[text] || text;
  return translated.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
