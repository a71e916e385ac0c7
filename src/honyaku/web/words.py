"""The engine's names as a translator reads them: job kinds and statuses, version kinds, a
word for what each tool does, and what each kind of model server is. ``N_`` marks them for
the catalog; ``word`` translates one."""

from __future__ import annotations

from honyaku.web.i18n import _


def N_(message: str) -> str:
    """Marks ``message`` for the catalog, to be translated where it is shown."""
    return message


WORDS = {
    "translation": N_("translation"),
    "polish": N_("polish"),
    "proofreading": N_("proofreading"),
    "extraction": N_("glossary extraction"),
    "rating": N_("rating"),
    # The problems a rating names (``domain.rating.ISSUES``).
    "omission": N_("omission"),
    "addition": N_("addition"),
    "mistranslation": N_("mistranslation"),
    "terminology": N_("terminology"),
    "name": N_("a name"),
    "pronoun": N_("pronoun"),
    "style": N_("style"),
    "untranslated": N_("left untranslated"),
    "wrong_script": N_("wrong script"),
    "manual": N_("by hand"),
    "memory": N_("from memory"),
    "queued": N_("queued"),
    "running": N_("running"),
    "waiting": N_("waiting for you"),
    "finished": N_("finished"),
    "failed": N_("failed"),
    "interrupted": N_("stopped"),
}

TOOL_WORDS = {
    "update_task_status": N_("moves a part of a chapter through its steps"),
    "update_chapter_title": N_("writes a chapter’s translated title"),
    "add_translation_batch": N_("writes translations of paragraphs"),
    "get_previous_paragraphs": N_("reads the paragraphs before"),
    "get_next_paragraphs": N_("reads the paragraphs after"),
    "get_paragraph_position": N_("finds where a paragraph is"),
    "get_paragraph_info": N_("reads one paragraph"),
    "add_glossary_terms": N_("proposes glossary terms"),
    "add_characters": N_("proposes characters"),
    "add_forms_of_address": N_("proposes how characters address each other"),
    "get_glossary": N_("reads the glossary"),
    "ask_user": N_("asks you a question"),
    "ask_user_batch": N_("asks you several questions"),
    "list_books": N_("lists the library’s books"),
    "book_info": N_("reads a book’s details"),
    "read_paragraphs": N_("reads paragraphs of a book"),
    "search_paragraphs": N_("searches a book"),
    "paragraph_versions": N_("reads a paragraph’s versions"),
    "select_version": N_("chooses which version a paragraph uses"),
    "write_version": N_("writes a version of a paragraph"),
    "create_task": N_("adds a task to your plan"),
    "read_tasks": N_("reads your plan"),
    "update_task": N_("changes a task in your plan"),
    "create_schedule": N_("schedules tasks in your plan"),
    "delete_task": N_("removes a task from your plan"),
    "start_job": N_("starts a translation job"),
    "job_progress": N_("reads a job’s progress"),
}

PROVIDER_WORDS = {
    "openai": N_("Chat Completions: OpenAI, DeepSeek, Ollama, vLLM, llama.cpp, LM Studio…"),
    "gemini": N_("Google's own Gemini API"),
    "anthropic": N_("Anthropic's own Messages API (Claude), with prompt caching"),
    "demo": N_("the built-in demo model, inside honyaku"),
}

FAILURE_WORDS = {
    "filtered": N_("refused by the provider's filter"),
    "refused": N_("refused by the model in words"),
    "workflow": N_("the model could not finish the workflow"),
    "context": N_("too long for the model's context window"),
    "pace": N_("the server did not keep pace"),
    "loop": N_("the model's reply went round in a loop"),
    "markup": N_("the model could not keep the paragraph's markup"),
    "key": N_("the API key was refused"),
    "model": N_("the model is not there"),
    "cap": N_("the spending cap was reached"),
    "server": N_("the model's server refused the work"),
    "fallback": N_("the fallback model could not start"),
}
"""``domain.failures.FAILURE_WORDS`` by each class's value, for the catalog."""


def word(name: str) -> str:
    """The engine's ``name`` (a status, a kind) in the reader's language."""
    return _(WORDS.get(name, name))


def tool_word(name: str) -> str:
    """What the tool ``name`` does, in a few of the reader's words."""
    return _(TOOL_WORDS[name]) if name in TOOL_WORDS else ""


def provider_word(name: str, summary: str) -> str:
    """What the kind of model server ``name`` is, in the reader's language; a kind registered
    later keeps its own ``summary``."""
    return _(PROVIDER_WORDS[name]) if name in PROVIDER_WORDS else summary


def failure_words() -> dict[str, str]:
    """Every failure class's words in the reader's language, for a page that says them later."""
    return {failure: _(words) for failure, words in FAILURE_WORDS.items()}


def failure_word(failure: str | None, said: str, reason: str) -> str:
    """Why a part failed or a paragraph was left, its class in the reader's language and
    what the model said in its own; ``reason`` where it has no class."""
    if failure not in FAILURE_WORDS:
        return reason
    why = _(FAILURE_WORDS[failure])
    return f"{why}: {said}" if said else why
