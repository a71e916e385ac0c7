// Figures as a translator reads them: counts, money and durations in the page's language.

import { t } from "./i18n.js";

const language = () => document.documentElement.lang || undefined;

export function count(value) {
  return new Intl.NumberFormat(language()).format(Math.round(value));
}

// Money in whatever currency the model's prices were saved in: four significant digits.
export function money(value) {
  return new Intl.NumberFormat(language(), { maximumSignificantDigits: 4 }).format(value);
}

export function duration(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours) return t("{h} h {m} min", { h: hours, m: minutes });
  if (minutes) return t("{m} min {s} s", { m: minutes, s: rest });
  return t("{s} s", { s: rest });
}
