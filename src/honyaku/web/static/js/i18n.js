// The page's words in the translator's language: `t("English text", {name: value})`.
// Until the catalogs come, the English text itself, with its {name} fields filled in.

export function t(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
