// A job's page: its progress live over server-sent events, stop and resume, its log.

import { api, element, showErrorAt } from "./api.js";
import { duration, money } from "./figures.js";
import { t } from "./i18n.js";

const STATUS = {
  queued: t("queued"),
  running: t("running"),
  waiting: t("waiting for you"),
  finished: t("finished"),
  failed: t("failed"),
  interrupted: t("stopped"),
};
// A job run here, or by workers anywhere (honyaku worker): followed until it ends.
const ACTIVE = ["queued", "running", "waiting"];

const section = document.querySelector("[data-job]");
const job = section.dataset.job;
// Why a part failed, by its class (honyaku.domain.failures), in the page's language; the
// model's own words follow.
const FAILURE = JSON.parse(section.dataset.failureWords);
const why = (failure) => {
  const words = FAILURE[failure.failure];
  if (!words) return failure.reason;
  return failure.said ? `${words}: ${failure.said}` : words;
};
const field = (name) => section.querySelector(`[data-field=${name}]`);
const log = document.getElementById("job-log");
const emptyLog = document.querySelector(".empty-log");
const showReasoning = document.getElementById("show-reasoning");
const actionError = section.querySelector(".job-actions .form-error");

let events = null;
let waiting = null; // the request with the model longest: when it went, and its expected time
if (section.dataset.running === "true") follow();
setInterval(showWaiting, 1000);

function follow() {
  events = new EventSource(`/api/jobs/${job}/events`);
  events.addEventListener("progress", (event) => draw(JSON.parse(event.data)));
  events.addEventListener("log", refreshLog);
  // The stream ends with the job: read its last figures at once, never waiting for a reconnect.
  events.addEventListener("error", settle);
}

async function settle() {
  events?.close();
  events = null;
  try {
    draw(await api("GET", `/api/jobs/${job}`));
    refreshLog();
  } catch (failure) {
    showErrorAt(actionError, failure);
  }
}

// The engine's summary of a failure is for the terminal: here each part is listed in words.
function errorText(progress) {
  if (progress.status === "failed" && progress.failures.length) {
    return t("Some parts of the text failed, each listed below with its reason. Resume tries them again.");
  }
  return progress.error ?? "";
}

function stoppedText(error) {
  const why = error === "stopped" ? t("Stopped as you asked.") : error ? `${error}.` : "";
  const resumable = t("Resume goes on where it stopped; nothing accepted is lost.");
  return why ? `${why} ${resumable}` : resumable;
}

function draw(progress) {
  const total = progress.paragraphs_total;
  field("status").textContent = STATUS[progress.status] ?? progress.status;
  field("status").className = `status status-${progress.status}`;
  field("bar").max = total || 1;
  field("bar").value = total ? progress.paragraphs_done : 1;
  field("paragraphs").textContent = `${progress.paragraphs_done}/${total}`;
  field("percent").textContent = total ? Math.floor((100 * progress.paragraphs_done) / total) : 100;
  for (const name of ["requests", "tokens", "retries"]) field(name).textContent = progress[name];
  field("failures").textContent = progress.failures.length;
  drawSpending(progress);
  field("failure-list").replaceChildren(...progress.failures.map((failure) => element("li", {}, t("Chapter {chapter}, part {part}: {reason}", { ...failure, reason: why(failure) }))));
  const interrupted = progress.status === "interrupted";
  field("error").textContent = errorText(progress);
  field("error").hidden = !progress.error || interrupted;
  field("stopped").hidden = !interrupted;
  if (interrupted) field("stopped").textContent = stoppedText(progress.error);
  waiting = progress.waiting_s == null ? null : { since: Date.now() - 1000 * progress.waiting_s, expected: progress.waiting_expected_s };
  showWaiting();
  field("workers").textContent = progress.workers.join(", ");
  field("workers-line").hidden = progress.workers.length === 0;
  const active = progress.running_here || ACTIVE.includes(progress.status);
  document.getElementById("stop-job").hidden = !active;
  document.getElementById("resume-job").hidden = active || progress.status === "finished";
  if (!active) {
    events?.close();
    events = null;
  }
}

function drawSpending(progress) {
  field("spent").textContent = progress.spent === null ? t("no prices") : money(progress.spent);
  drawModels(progress.models);
  field("elapsed").textContent = progress.elapsed_s === null ? "—" : duration(progress.elapsed_s);
  field("eta").textContent = progress.eta_s === null ? "—" : duration(progress.eta_s);
}

// What each model of the chain spent, a line each, where more than one worked on the job.
function drawModels(models) {
  const list = field("models");
  list.hidden = models.length < 2;
  list.replaceChildren(
    ...models.map((spent) => {
      const line = t("{model}: {requests} requests, {tokens} tokens", {
        model: spent.model,
        requests: spent.requests,
        tokens: spent.input_tokens + spent.output_tokens,
      });
      return element("li", {}, spent.spent === null ? line : `${line}, ${money(spent.spent)}`);
    }),
  );
}

// A slow local model is seen working: "Waiting for the model: 2 min 10 s, about 4 min 5 s expected".
function showWaiting() {
  const line = field("waiting");
  line.hidden = !waiting;
  if (!waiting) return;
  const waited = duration((Date.now() - waiting.since) / 1000);
  line.textContent = waiting.expected
    ? t("Waiting for the model: {waited}, about {expected} expected", { waited, expected: duration(waiting.expected) })
    : t("Waiting for the model: {waited}", { waited });
}

async function refreshLog() {
  let lines;
  try {
    lines = await api("GET", `/api/jobs/${job}/actions?reasoning=${showReasoning.checked}`);
  } catch (failure) {
    showErrorAt(actionError, failure);
    return;
  }
  log.replaceChildren(
    ...lines.map((line) =>
      element(
        "li",
        { className: line.reasoning ? "reasoning" : "" },
        element("span", { className: "meta" }, `${new Date(line.created_at).toLocaleTimeString()} ${line.where}`),
        ` ${line.text}`,
      ),
    ),
  );
  emptyLog.hidden = lines.length > 0;
}

showReasoning.addEventListener("change", refreshLog);

// The stop is asked for; the stream (or, with none, one reading) shows when it is done.
document.getElementById("stop-job").addEventListener("click", async (event) => {
  event.target.disabled = true;
  actionError.hidden = true;
  try {
    await api("POST", `/api/jobs/${job}/stop`);
    if (!events) await settle();
  } catch (failure) {
    showErrorAt(actionError, failure);
  } finally {
    event.target.disabled = false;
  }
});

document.getElementById("resume-job").addEventListener("click", async () => {
  actionError.hidden = true;
  try {
    await api("POST", `/api/jobs/${job}/resume`, {});
    location.reload();
  } catch (failure) {
    showErrorAt(actionError, failure);
  }
});
