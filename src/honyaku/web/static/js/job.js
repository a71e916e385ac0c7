// A job's page: its progress live over server-sent events, stop and resume, its log.

import { api, attempt, element } from "./api.js";
import { duration, money } from "./figures.js";
import { t } from "./i18n.js";

const section = document.querySelector("[data-job]");
const job = section.dataset.job;
const field = (name) => section.querySelector(`[data-field=${name}]`);
const log = document.getElementById("job-log");
const showReasoning = document.getElementById("show-reasoning");

const events = new EventSource(`/api/jobs/${job}/events`);
events.addEventListener("progress", (event) => draw(JSON.parse(event.data)));
events.addEventListener("log", refreshLog);

function draw(progress) {
  const total = progress.paragraphs_total;
  field("status").textContent = progress.status;
  field("bar").max = total || 1;
  field("bar").value = total ? progress.paragraphs_done : 1;
  field("paragraphs").textContent = `${progress.paragraphs_done}/${total}`;
  field("percent").textContent = total ? Math.floor((100 * progress.paragraphs_done) / total) : 100;
  for (const name of ["requests", "tokens", "retries"]) field(name).textContent = progress[name];
  field("failures").textContent = progress.failures.length;
  drawSpending(progress);
  field("error").textContent = progress.error ?? "";
  field("error").hidden = !progress.error;
  document.getElementById("stop-job").hidden = !progress.running_here;
  document.getElementById("resume-job").hidden = progress.running_here || progress.status === "finished";
  if (!progress.running_here) events.close();
}

function drawSpending(progress) {
  field("spent").textContent = progress.spent === null ? t("no prices") : money(progress.spent);
  field("elapsed").textContent = progress.elapsed_s === null ? "—" : duration(progress.elapsed_s);
  field("eta").textContent = progress.eta_s === null ? "—" : duration(progress.eta_s);
}

async function refreshLog() {
  const lines = await attempt(() => api("GET", `/api/jobs/${job}/actions?reasoning=${showReasoning.checked}`));
  if (!lines) return;
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
}

showReasoning.addEventListener("change", refreshLog);

document.getElementById("stop-job").addEventListener("click", () =>
  attempt(() => api("POST", `/api/jobs/${job}/stop`)),
);

document.getElementById("resume-job").addEventListener("click", async () => {
  const resumed = await attempt(() => api("POST", `/api/jobs/${job}/resume`, {}));
  if (resumed) location.reload();
});
