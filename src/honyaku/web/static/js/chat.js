// The assistant's chat panel: the reply streams in as text and tool cards; Stop
// ends it (the server stops the model), Retry sends the last message again. Text streams as
// plain text; once whole, the server's safe HTML of its Markdown takes its place (the
// model's own HTML never reaches the page: the server escapes it).

import { api, element } from "./api.js";
import { t } from "./i18n.js";

const panel = document.querySelector("[data-chat]");
const log = panel.querySelector(".chat-log");
const form = panel.querySelector(".chat-form");
const sessions = panel.querySelector(".chat-sessions");
const errorBar = panel.querySelector(".chat-error");
const [stopButton, againButton] = [panel.querySelector(".stop"), panel.querySelector(".again")];
const forgetButton = panel.querySelector(".forget");
const working = panel.querySelector(".chat-working");
const bookId = panel.dataset.book || null;
let sessionId = null;
let lastMessage = null;
let streaming = null; // the AbortController of the reply streaming now

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const message = form.message.value.trim();
  if (message && !streaming) {
    form.message.value = "";
    send(message);
  }
});
form.message.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
});
stopButton.addEventListener("click", () => streaming?.abort());
againButton.addEventListener("click", () => lastMessage && send(lastMessage, { again: true }));
errorBar.querySelector(".retry").addEventListener("click", () => lastMessage && send(lastMessage, { again: true }));
errorBar.querySelector(".dismiss").addEventListener("click", () => (errorBar.hidden = true));
sessions.addEventListener("change", () => reopen(sessions.value || null));
forgetButton.addEventListener("click", async () => {
  if (!sessionId || !confirm(t("Delete this chat and its whole transcript?"))) return;
  await api("DELETE", `/api/ai/chat/sessions/${sessionId}`);
  await reopen(null);
  listSessions();
});
listSessions();

// Sends `message`; `again` sends the last one anew. A reply that failed before saying
// anything gives way to the new one, and the message is neither shown nor stored twice (the
// server keeps it once too); after a reply that said something, it is sent as a new message.
let lastReply = null;
async function send(message, { again = false } = {}) {
  lastMessage = message;
  errorBar.hidden = true;
  if (again && lastReply?.failedSilent()) lastReply.root.remove();
  else log.append(element("li", { className: "said" }, message));
  const reply = new Reply(log);
  lastReply = reply;
  setStreaming(new AbortController());
  try {
    const response = await fetch("/api/ai/chat/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ session_id: sessionId, book_id: bookId, message, model: model() }),
      signal: streaming.signal,
    });
    if (!response.ok) throw new Error((await response.json()).detail ?? response.statusText);
    for await (const [name, data] of serverEvents(response.body)) {
      if (name === "message") reply.take(data);
      if (name === "done") listSessions();
      if (name === "error") showChatError(data.message);
    }
  } catch (error) {
    if (error.name === "AbortError") {
      reply.stopped = true;
      reply.notice(t("Stopped."));
    }
    else showChatError(error.message);
  } finally {
    setStreaming(null);
  }

  function model() {
    return panel.querySelector(".chat-model").value;
  }
}

// One reply as it streams: paragraphs of text with a card for each tool call between them.
class Reply {
  constructor(into) {
    this.root = element("li", { className: "reply" });
    this.text = null;
    this.cards = new Map();
    into.append(this.root);
  }

  take(data) {
    if (data.type === "session") sessionId = data.session_id;
    if (data.type === "text") this.write(data.content);
    if (data.type === "markdown") this.markdown(data.html);
    if (data.type === "tool_call") this.card(data);
    if (data.type === "tool_result") this.result(data);
    if (data.type === "question") this.question(data);
    if (data.type === "notice") this.notice(data.message);
    if (data.type === "retry") this.notice(t("The model’s server failed; trying again ({attempt}).", { attempt: data.attempt }));
    showWorking(this.working(data));
    log.scrollTop = log.scrollHeight;
  }

  // Whether the reply failed before the model said or did anything (notices aside): then the
  // server has kept nothing of it either.
  failedSilent() {
    return !this.stopped && !this.root.querySelector(".text, .tool-card, .answered");
  }

  // What the indicator says while the reply goes on, after `data`.
  working(data) {
    if (data.type === "question") return t("Waiting for your answer…");
    if (data.type === "tool_call") return t("Working: {tool}…", { tool: data.name });
    return data.type === "text" ? t("Writing…") : t("Thinking…");
  }

  write(content) {
    if (!this.text) {
      this.text = this.root.appendChild(element("div", { className: "text" }));
      this.said = "";
    }
    this.said += content;
    this.text.textContent = this.said;
  }

  // The stretch of text just written, as the server rendered its Markdown (escaped, safe).
  markdown(html) {
    if (!this.text) return;
    this.text.className = "text markdown";
    this.text.innerHTML = html;
    this.text = null;
  }

  question({ id, questions }) {
    const card = element(
      "div",
      { className: "answered waiting" },
      ...questions.map((question) => element("p", { className: "question" }, question)),
      element("p", { className: "answer muted" }, t("Waiting for your answer…")),
    );
    // The call's card, shown while the model wrote it, becomes the question and its answer.
    const drafted = this.cards.get(id);
    if (drafted) drafted.replaceWith(card);
    else this.root.append(card);
    this.cards.set(id, card);
    this.text = null;
  }

  card({ id, name, status, arguments: args }) {
    let card = this.cards.get(id);
    if (!card) {
      card = element("div", { className: "tool-card" }, element("span", { className: "name" }, name));
      card.append(element("span", { className: "status" }), element("span", { className: "outcome" }));
      this.cards.set(id, card);
      this.root.append(card);
      this.text = null;
    }
    card.dataset.status = status;
    card.querySelector(".status").textContent = status === "parsing" ? t("writing…") : t("running…");
    if (args) card.title = JSON.stringify(args, null, 1);
  }

  result({ id, name, success, message }) {
    const asked = this.cards.get(id);
    if (asked?.matches(".answered")) {
      asked.classList.remove("waiting");
      asked.querySelector(".answer").textContent = message ? `→ ${message}` : t("(no answer)");
      asked.querySelector(".answer").classList.toggle("muted", !success);
      return;
    }
    if (!this.cards.has(id)) this.card({ id, name, status: "running" });
    const card = this.cards.get(id);
    card.dataset.status = success ? "done" : "failed";
    card.querySelector(".status").textContent = success ? "✓" : "✗";
    card.querySelector(".outcome").textContent = message ?? "";
  }

  notice(text) {
    this.root.append(element("p", { className: "notice" }, text));
    this.text = null;
  }
}

// Server-sent events from a fetch body: [event name, parsed data] pairs; comments (the
// server's heartbeat) are skipped.
async function* serverEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer = (buffer + value).replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        if (line.startsWith("data:")) data += line.slice(5).trimStart();
      }
      if (data) yield [name, JSON.parse(data)];
    }
  }
}

function setStreaming(controller) {
  streaming = controller;
  showWorking(controller ? t("Thinking…") : null);
  stopButton.hidden = !controller;
  form.querySelector(".send").disabled = Boolean(controller);
  againButton.hidden = Boolean(controller) || !lastMessage;
}

const QUESTION_TOOLS = ["ask_user", "ask_user_batch"];
const OUTCOMES = { cancelled: t("(cancelled)"), skipped: t("(questions are skipped for this book)"), error: t("(no answer)") };

function showWorking(what) {
  working.hidden = !what;
  if (what) working.querySelector(".what").textContent = what;
}

function showChatError(message) {
  errorBar.querySelector(".message").textContent = message;
  errorBar.hidden = false;
}

async function listSessions() {
  const query = bookId ? `?book_id=${bookId}` : "";
  const found = await api("GET", `/api/ai/chat/sessions${query}`);
  sessions.replaceChildren(
    element("option", { value: "" }, t("New chat")),
    ...found.map((s) => element("option", { value: s.id, selected: s.id === sessionId }, s.title)),
  );
  forgetButton.hidden = !sessionId;
}

async function reopen(id) {
  sessionId = id;
  lastMessage = null;
  forgetButton.hidden = !id;
  log.replaceChildren();
  if (!id) return;
  const session = await api("GET", `/api/ai/chat/sessions/${id}`);
  let reply = null;
  for (const { kind, payload, html } of session.entries) {
    if (kind === "user") {
      log.append(element("li", { className: "said" }, payload.text));
      reply = new Reply(log);
    } else if (reply && kind === "assistant") {
      if (payload.text) {
        reply.write(payload.text);
        reply.markdown(html);
      }
      for (const call of payload.calls) {
        if (!QUESTION_TOOLS.includes(call.name)) reply.card({ id: call.id, name: call.name, status: "running" });
      }
    } else if (reply && kind === "tool_result" && !QUESTION_TOOLS.includes(payload.name)) {
      const { success, message, error } = payload.result;
      reply.result({ id: payload.id, name: payload.name, success, message: message ?? error });
    } else if (reply && kind === "question") {
      reply.question({ id: `asked-${reply.cards.size}`, questions: payload.questions });
      const answers = payload.answers ?? [];
      reply.result({ id: `asked-${reply.cards.size - 1}`, success: payload.outcome === "answered", message: answers.join(" · ") || OUTCOMES[payload.outcome] });
    } else if (reply && kind === "notice") {
      reply.notice(payload.text);
    }
  }
}
