// The model's questions and approval requests, as one full-screen dialog on every page
// (seeds 002 and 003). The server shows one request at a time; the first answer, from any
// page, closes it everywhere.

import { api, element, showError } from "./api.js";
import { t } from "./i18n.js";

const root = document.getElementById("person-dialog");
let shownId = null;

const events = new EventSource("/api/questions/events");
events.addEventListener("shown", (event) => show(JSON.parse(event.data)));
events.addEventListener("closed", (event) => {
  if (JSON.parse(event.data).id === shownId) close();
});

function show(request) {
  shownId = request.id;
  root.replaceChildren(
    element("p", { className: "asker" }, request.asker),
    ...(request.kind === "approval" ? approval(request) : questions(request)),
  );
  root.hidden = false;
  document.body.classList.add("dialog-open");
  root.querySelector("button, input, textarea")?.focus();
}

function close() {
  shownId = null;
  root.hidden = true;
  root.replaceChildren();
  document.body.classList.remove("dialog-open");
}

// The controls stay disabled until the answer is taken: a second click cannot answer twice.
async function send(reply) {
  const id = shownId;
  const enabled = [...root.querySelectorAll("button, input, textarea")].filter((c) => !c.disabled);
  enabled.forEach((control) => { control.disabled = true; });
  try {
    await api("POST", `/api/questions/${id}/answer`, reply);
    if (shownId === id) close();
  } catch (error) {
    enabled.forEach((control) => { control.disabled = false; });
    showError(error);
  }
}

function approval(request) {
  const allow = (allowed, always = false) => () => send({ allowed, always });
  return [
    element("h2", { id: "person-dialog-title" }, t("Allow {tool}?", { tool: request.tool })),
    element("p", {}, t("The model wants to make this call:")),
    element("pre", { className: "arguments" }, JSON.stringify(request.arguments, null, 2)),
    element(
      "menu",
      {},
      element("button", { type: "button", className: "allow", onclick: allow(true) }, t("Allow")),
      element("button", { type: "button", className: "always", onclick: allow(true, true) }, t("Always allow {tool}", { tool: request.tool })),
      element("button", { type: "button", className: "deny danger", onclick: allow(false) }, t("Deny")),
    ),
  ];
}

// A single question, or a batch stepped through one question at a time.
function questions(request) {
  const count = request.questions.length;
  const answers = new Map();
  const body = element("div", { className: "step" });
  let step = 0;

  const given = () => [...answers.values()].sort((a, b) => a.question_index - b.question_index);
  const cancel = () => send({ cancelled: true, answers: given() });
  const submit = () => send({ answers: given() });
  const choose = (answer) => {
    answers.set(step, answer);
    if (!request.batch) submit();
    else if (step < count - 1) draw(step + 1);
    else draw(step);
  };

  function draw(index) {
    step = index;
    const question = request.questions[index];
    const chosen = answers.get(index);
    const suggestions = question.suggested_answers.map((text, picked) =>
      element(
        "button",
        {
          type: "button",
          className: "suggestion" + (chosen?.selected_index === picked ? " chosen" : ""),
          onclick: () => choose({ question_index: index, answer: text, selected_index: picked }),
        },
        text,
      ),
    );
    const free = question.allow_free_text ? freeText(index, chosen, choose) : null;
    const parts = [
      request.batch ? element("p", { className: "stepper" }, `${index + 1} / ${count}`) : null,
      element("h2", { id: "person-dialog-title" }, question.question),
      element("div", { className: "suggestions" }, ...suggestions),
      free,
      controls(),
    ];
    body.replaceChildren(...parts.filter(Boolean));
  }

  function controls() {
    const buttons = [];
    if (request.batch) {
      buttons.push(element("button", { type: "button", className: "back", disabled: step === 0, onclick: () => draw(step - 1) }, t("Back")));
      if (step < count - 1) {
        buttons.push(element("button", { type: "button", className: "next", disabled: !answers.has(step), onclick: () => draw(step + 1) }, t("Next")));
      } else {
        buttons.push(element("button", { type: "button", className: "submit", disabled: answers.size < count, onclick: submit }, t("Submit")));
      }
    }
    buttons.push(element("button", { type: "button", className: "cancel", onclick: cancel }, t("Cancel")));
    return element("menu", {}, ...buttons);
  }

  draw(0);
  return [body];
}

function freeText(index, chosen, choose) {
  const input = element("input", {
    type: "text",
    name: "answer",
    placeholder: t("Your own answer"),
    ariaLabel: t("Your own answer"),
    value: chosen && chosen.selected_index === undefined ? chosen.answer : "",
  });
  const form = element(
    "form",
    { className: "free-text" },
    input,
    element("button", { type: "submit" }, t("Answer")),
  );
  form.onsubmit = (event) => {
    event.preventDefault();
    if (input.value.trim()) choose({ question_index: index, answer: input.value.trim() });
  };
  return form;
}
