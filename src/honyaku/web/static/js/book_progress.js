// A book's page while its jobs run: each job's figures live (paragraphs, elapsed, ETA,
// spend), and the chapters' rows filling in as batches are accepted.

import { api } from "./api.js";
import { count, duration, money } from "./figures.js";
import { t } from "./i18n.js";

const REFRESH_MS = 1000;
const book = document.querySelector("[data-book]").dataset.book;
const panel = document.querySelector(".live-jobs");
let refreshing = null;

for (const item of document.querySelectorAll("[data-live-job]")) follow(item);

function follow(item) {
  const events = new EventSource(`/api/jobs/${item.dataset.liveJob}/events`);
  let done = null;
  let latest = null;
  // Updates come as batches do: the clock goes on between them.
  const clock = setInterval(() => latest && draw(item, latest), REFRESH_MS);
  events.addEventListener("progress", (event) => {
    const progress = JSON.parse(event.data);
    latest = { ...progress, received: performance.now() };
    draw(item, latest);
    if (progress.paragraphs_done !== done) {
      done = progress.paragraphs_done;
      refreshChapters();
    }
    if (!progress.running_here) {
      clearInterval(clock);
      events.close();
      ended(item, progress);
    }
  });
}

function draw(item, progress) {
  const bar = item.querySelector("progress");
  bar.max = progress.paragraphs_total || 1;
  bar.value = progress.paragraphs_done;
  item.querySelector("[data-live=paragraphs]").textContent = `${count(progress.paragraphs_done)}/${count(progress.paragraphs_total)}`;
  const since = (performance.now() - progress.received) / 1000;
  const times = [];
  if (progress.elapsed_s !== null) times.push(t("{elapsed} so far", { elapsed: duration(progress.elapsed_s + since) }));
  if (progress.eta_s !== null) times.push(t("about {left} left", { left: duration(Math.max(progress.eta_s - since, 0)) }));
  item.querySelector("[data-live=times]").textContent = times.join(" · ");
  item.querySelector("[data-live=spent]").textContent =
    progress.spent === null ? "" : t("{spent} spent", { spent: money(progress.spent) });
}

function ended(item, progress) {
  const row = document.querySelector(`tr[data-job="${item.dataset.liveJob}"] .status`);
  if (row) {
    row.textContent = progress.status;
    row.className = `status status-${progress.status}`;
  }
  item.remove();
  panel.hidden = !panel.querySelector("[data-live-job]");
  refreshChapters();
}

// The chapters' translated counts again, at most once a second however fast batches come.
function refreshChapters() {
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    try {
      const found = await api("GET", `/api/books/${book}`);
      for (const chapter of found.chapter_list) {
        const cell = document.querySelector(`tr[data-chapter="${chapter.number}"] .progress`);
        if (!cell) continue;
        const bar = cell.querySelector("progress");
        bar.max = chapter.work_paragraphs || 1;
        bar.value = chapter.work_paragraphs ? chapter.translated : 1;
        cell.lastChild.textContent = ` ${chapter.translated}/${chapter.work_paragraphs}`;
      }
    } catch {
      // The next batch asks again.
    } finally {
      refreshing = null;
    }
  }, REFRESH_MS);
}
