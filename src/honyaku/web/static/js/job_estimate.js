// The start form's estimate: chunks, requests, tokens and money, asked again whenever the
// job, its chapters or its model change. Nothing is sent to the model.

import { api } from "./api.js";
import { count, money } from "./figures.js";
import { t } from "./i18n.js";

const form = document.getElementById("job-form");
const shown = document.getElementById("job-estimate");
const book = document.querySelector("[data-book]").dataset.book;
let asked = 0;

async function estimate() {
  const values = new FormData(form);
  const query = new URLSearchParams({ kind: values.get("kind"), model: values.get("model") });
  const chapters = values.get("chapters").trim();
  if (chapters) query.set("chapters", chapters);
  const mine = ++asked;
  shown.classList.add("busy");
  try {
    const found = await api("GET", `/api/books/${book}/estimate?${query}`);
    if (mine === asked) shown.replaceChildren(...describe(found, cap()));
  } catch (error) {
    if (mine === asked) shown.textContent = error.message;
  } finally {
    if (mine === asked) shown.classList.remove("busy");
  }
}

function cap() {
  const typed = form.elements.max_cost.value;
  const capped = typed !== "" ? Number(typed) : shown.dataset.bookCap;
  return capped === "" || capped === undefined ? null : Number(capped);
}

function describe(found, capped) {
  if (!found.chunks) return [t("Nothing to do: every paragraph of these chapters is done.")];
  const lines = [
    t("Chunks {chunks} · paragraphs {paragraphs} · requests ≈{requests} · tokens ≈{tokens} ({cached} cached)", {
      chunks: count(found.chunks),
      paragraphs: count(found.paragraphs),
      requests: count(found.requests),
      tokens: count(found.input_tokens + found.output_tokens),
      cached: count(found.cached_tokens),
    }),
  ];
  const tokenizer = found.counted_with === "per-script ratio" ? t("a ratio per script") : found.counted_with;
  const counted = t("Tokens counted with {tokenizer}.", { tokenizer });
  lines.push(found.spread > 1.01 ? `${counted} ${unseen(found.spread)}` : counted);
  if (found.cost === null) lines.push(t("This model has no prices: add them on the Models page to see what it costs."));
  else if (found.cost === 0) lines.push(t("Free: this model costs nothing."));
  else lines.push(t("About {cost} at the model's prices.", { cost: money(found.cost) }));
  if (found.batch_cost !== null && found.batch_cost !== undefined && found.cost) {
    lines.push(
      t("With the Batch API: about {cost}, in about {rounds} batch rounds, each answered within 24 hours (usually minutes to an hour).", {
        cost: money(found.batch_cost),
        rounds: count(found.batch_rounds),
      }),
    );
  }
  if (capped !== null && found.cost === null) {
    lines.push(t("A run with a cap needs the model's prices: this one would be refused."));
  } else if (capped !== null) {
    lines.push(
      found.cost !== null && found.cost > capped
        ? t("The run stops before it spends more than {cap}: resume it to go on.", { cap: money(capped) })
        : t("The run stops before it spends more than {cap}.", { cap: money(capped) }),
    );
  }
  return lines.map((line) => Object.assign(document.createElement("span"), { textContent: line }));
}

// A model never seen here may do a chunk in one reply, or a few paragraphs a reply.
function unseen(spread) {
  return t("This model has not worked here yet: the bill may be up to {times} times less or more, as it works.", { times: spread.toFixed(1) });
}

form.addEventListener("change", estimate);
estimate();
