"""The incremental XML tool-call parser: edge cases one by one, then chunking properties."""

from __future__ import annotations

import json
import time
from itertools import cycle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from honyaku.domain.placeholders import ReadText, RubyChoice, read_marked, shown_line
from honyaku.domain.sources import InlineMark
from honyaku.llm.reasoning import BeganInReasoning, ReasoningText, UnclosedReasoning
from honyaku.llm.xml.parser import (
    MAX_REPLY_CHARS,
    TAG_MAX_CHARS,
    MalformedInvoke,
    ParsedInvoke,
    ParserEvent,
    ReplyTooLong,
    VisibleText,
    XmlToolParser,
)

XML_STREAMS = Path(__file__).parent.parent / "fixtures" / "streams" / "xml"


def feed_chunks(chunks: list[str], max_chars: int = MAX_REPLY_CHARS) -> list[ParserEvent]:
    parser = XmlToolParser(max_chars)
    events: list[ParserEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.close()


def parse(text: str) -> tuple[str, list[ParserEvent]]:
    """Visible text and the call events of a reply fed whole."""
    return summarize(feed_chunks([text]))


def summarize(events: list[ParserEvent]) -> tuple[str, list[ParserEvent]]:
    visible = "".join(e.text for e in events if isinstance(e, VisibleText))
    return visible, [e for e in events if not isinstance(e, VisibleText)]


def named(calls: list[ParserEvent]) -> list[tuple[str, dict[str, str]]]:
    """Each call's name and parameters; every event must be a readable call."""
    assert all(isinstance(call, ParsedInvoke) for call in calls), calls
    return [(call.name, call.params) for call in calls if isinstance(call, ParsedInvoke)]


def cut(text: str, sizes: list[int]) -> list[str]:
    chunks, pos = [], 0
    for size in cycle(sizes):
        if pos >= len(text):
            return chunks
        chunks.append(text[pos : pos + size])
        pos += size
    raise AssertionError("unreachable")


def block(name: str, **params: str) -> str:
    body = "".join(
        f'<parameter name="{key}">{value}</parameter>\n' for key, value in params.items()
    )
    return f'<tool_use>\n<invoke name="{name}">\n{body}</invoke>\n</tool_use>'


# --- Calls --------------------------------------------------------------------------------------


def test_a_single_call_yields_its_name_and_parameter_texts() -> None:
    visible, calls = parse(block("update_task_status", status="working", count="3"))
    assert visible == ""
    assert calls == [
        ParsedInvoke(
            "update_task_status",
            {"status": "working", "count": "3"},
            '<invoke name="update_task_status">\n<parameter name="status">working</parameter>\n'
            '<parameter name="count">3</parameter>\n</invoke>',
        )
    ]


def test_tag_split_across_chunks_yields_the_same_call() -> None:
    reply = "Sure. " + block("add", text="a < b") + " Done."
    whole = parse(reply)
    for split in range(1, len(reply)):
        assert summarize(feed_chunks([reply[:split], reply[split:]])) == whole, split


def test_lone_angle_bracket_and_split_closing_tag_are_read() -> None:
    chunks = ["Hi ", "<", "tool_", "use>", '<invoke name="a">', '<parameter name="p">x', "</para"]
    chunks += ["meter>", "</inv", "oke>", "<", "/tool_use>", " bye"]
    visible, calls = summarize(feed_chunks(chunks))
    assert visible == "Hi  bye"
    assert named(calls) == [("a", {"p": "x"})]


def test_value_keeps_angle_brackets_ampersands_and_newlines_as_written() -> None:
    value = "if a < b && c > d:\n    <b>bold</b> &amp; &lt;kept&gt;\nend"
    _, calls = parse(block("run", code=value))
    assert named(calls)[0][1] == {"code": value}


def test_escaped_entities_are_not_unescaped() -> None:
    _, calls = parse(block("say", text="&lt;tool_use&gt; &amp; &#39;"))
    assert named(calls)[0][1]["text"] == "&lt;tool_use&gt; &amp; &#39;"


def test_value_may_hold_closing_tags_other_than_its_own() -> None:
    value = '</invoke></tool_use><tool_use><invoke name="x"><parameter name="y">'
    _, calls = parse(block("say", text=value))
    assert len(calls) == 1
    assert named(calls)[0][1] == {"text": value}


def test_one_newline_is_removed_at_each_end_of_a_value() -> None:
    reply = (
        '<tool_use><invoke name="a">'
        '<parameter name="lf">\nline\n</parameter>'
        '<parameter name="crlf">\r\nline\r\n</parameter>'
        '<parameter name="two">\n\nline\n\n</parameter>'
        '<parameter name="spaces"> line </parameter>'
        "</invoke></tool_use>"
    )
    _, calls = parse(reply)
    assert named(calls)[0][1] == {
        "lf": "line",
        "crlf": "line",
        "two": "\nline\n",
        "spaces": " line ",
    }


def test_text_before_between_and_after_blocks_is_visible() -> None:
    reply = "Before.\n" + block("a") + "\nBetween.\n" + block("b") + "\nAfter."
    visible, calls = parse(reply)
    assert visible == "Before.\n\nBetween.\n\nAfter."
    assert [name for name, _ in named(calls)] == ["a", "b"]


def test_several_invokes_in_one_block_are_read_in_order() -> None:
    reply = '<tool_use><invoke name="a"></invoke>\n<invoke name="b"></invoke></tool_use>'
    _, calls = parse(reply)
    assert [name for name, _ in named(calls)] == ["a", "b"]


def test_attribute_quotes_and_spaces_are_read_leniently() -> None:
    reply = (
        "<tool_use>\n<invoke  name = 'a' >\n<parameter name=p1>1</parameter>\n"
        '<parameter   name="p2" >2</parameter>\n</invoke >\n</tool_use>'
    )
    _, calls = parse(reply)
    assert named(calls) == [("a", {"p1": "1", "p2": "2"})]


def test_self_closing_invoke_is_a_call_without_parameters() -> None:
    _, calls = parse('<tool_use><invoke name="read_tasks"/></tool_use>')
    assert calls == [ParsedInvoke("read_tasks", {}, '<invoke name="read_tasks"/>')]


def test_text_and_unknown_tags_between_tags_of_a_block_are_ignored() -> None:
    reply = '<tool_use>\nnote <x/> <invoke name="a">\nhmm <y>\n<parameter name="p">1</parameter>\n'
    reply += "</invoke> tail </tool_use>"
    assert parse(reply) == (
        "",
        [ParsedInvoke("a", {"p": "1"}, reply[reply.index("<invoke") : -17])],
    )


def test_a_tag_longer_than_the_limit_is_not_a_tag() -> None:
    long_name = "n" * TAG_MAX_CHARS
    reply = f'<tool_use><invoke name="{long_name}"></invoke></tool_use>'
    _, calls = parse(reply)
    assert len(calls) == 1
    assert isinstance(calls[0], MalformedInvoke)
    assert "holds no" in calls[0].reason


# --- Visible text and holding back ---------------------------------------------------------------


def test_unknown_tags_and_other_formats_stay_visible_text() -> None:
    reply = (
        '<b>bold</b> <tool_call name="x"><args/></tool_call> <!-- note --> </tool_use> '
        "<tool_usage> <tool_ <tool_calls>"
    )
    assert parse(reply) == (reply, [])


def test_visible_text_holds_back_only_a_tail_that_could_open_a_block() -> None:
    parser = XmlToolParser()
    assert parser.feed("abc<b") == [VisibleText("abc<b")]
    assert parser.feed(" <tool_u") == [VisibleText(" ")]
    assert parser.feed("x") == [VisibleText("<tool_ux")]
    assert parser.feed("<") == []
    assert parser.feed("t") == []
    assert parser.feed("!") == [VisibleText("<t!")]


def test_held_back_tail_is_let_go_when_the_reply_ends() -> None:
    parser = XmlToolParser()
    assert parser.feed("Done <tool") == [VisibleText("Done ")]
    assert parser.close() == [VisibleText("<tool")]


def test_visible_text_streams_before_the_reply_ends() -> None:
    parser = XmlToolParser()
    assert parser.feed("Translating chapter one") == [VisibleText("Translating chapter one")]


# --- Malformed calls -----------------------------------------------------------------------------


def test_block_still_open_inside_a_value_is_malformed_when_the_reply_ends() -> None:
    reply = 'OK <tool_use>\n<invoke name="add">\n<parameter name="text">half a val'
    visible, calls = parse(reply)
    assert visible == "OK "
    assert calls == [
        MalformedInvoke(
            'the reply ended before </parameter> of parameter "text" in the call to "add": '
            "the <tool_use> block was not closed; nothing was run",
            reply[reply.index("<invoke") :],
            "add",
        )
    ]


def test_block_still_open_inside_an_invoke_is_malformed_when_the_reply_ends() -> None:
    _, calls = parse('<tool_use><invoke name="add"><parameter name="a">1</parameter>')
    assert len(calls) == 1
    assert isinstance(calls[0], MalformedInvoke)
    assert calls[0].name == "add"
    assert calls[0].reason.startswith("the reply ended before </invoke>")


def test_block_opened_but_never_filled_is_malformed_when_the_reply_ends() -> None:
    assert parse("Let me call <tool_use>\n<inv") == (
        "Let me call ",
        [
            MalformedInvoke(
                "the <tool_use> block was not closed before the reply ended; nothing was run",
                "<tool_use>\n<inv",
            )
        ],
    )


def test_missing_tool_use_closer_after_a_complete_call_is_forgiven() -> None:
    # Clients often stop generation on "</tool_use>", so the model's reply ends just before it.
    _, calls = parse('<tool_use>\n<invoke name="a">\n</invoke>\n')
    assert calls == [ParsedInvoke("a", {}, '<invoke name="a">\n</invoke>')]


def test_block_closer_ends_a_call_whose_invoke_closer_is_missing() -> None:
    _, calls = parse('<tool_use><invoke name="a"><parameter name="p">1</parameter></tool_use>x')
    assert calls == [
        ParsedInvoke("a", {"p": "1"}, '<invoke name="a"><parameter name="p">1</parameter>')
    ]


def test_next_invoke_ends_a_call_whose_invoke_closer_is_missing() -> None:
    _, calls = parse('<tool_use><invoke name="a"><invoke name="b"></invoke></tool_use>')
    assert [name for name, _ in named(calls)] == ["a", "b"]


def test_block_without_any_call_is_malformed() -> None:
    _, calls = parse("<tool_use>\n</tool_use>")
    assert calls == [
        MalformedInvoke(
            'the <tool_use> block holds no <invoke name="TOOL"> call; nothing was run',
            "<tool_use>\n</tool_use>",
        )
    ]


def test_invoke_without_a_name_is_malformed() -> None:
    _, calls = parse('<tool_use><invoke><parameter name="a">1</parameter></invoke></tool_use>')
    assert calls == [
        MalformedInvoke(
            "the <invoke> tag names no tool; nothing was run",
            '<invoke><parameter name="a">1</parameter></invoke>',
        )
    ]


def test_parameter_without_a_name_is_malformed() -> None:
    _, calls = parse('<tool_use><invoke name="a"><parameter>1</parameter></invoke></tool_use>')
    assert isinstance(calls[0], MalformedInvoke)
    assert calls[0].reason == "a <parameter> tag has no name; nothing was run"


def test_parameter_given_twice_is_malformed_rather_than_silently_dropped() -> None:
    reply = block("a", p="1").replace("</invoke>", '<parameter name="p">2</parameter></invoke>')
    _, calls = parse(reply)
    assert isinstance(calls[0], MalformedInvoke)
    assert calls[0].reason == 'parameter "p" is given twice; nothing was run'
    assert calls[0].name == "a"


def test_json_inside_tool_call_is_malformed_instead_of_silently_shown() -> None:
    reply = '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>'
    assert parse(reply) == (
        "",
        [
            MalformedInvoke(
                "the <tool_call> block holds no <function=TOOL> call; nothing was run", reply
            )
        ],
    )


# --- Qwen's own format ---------------------------------------------------------------------------


def test_qwen_coder_format_is_read_like_ours() -> None:
    reply = "Text\n<tool_call>\n<function=add>\n<parameter=a>\n1 < 2\n</parameter>\n"
    reply += "<parameter=b>\nx\n</parameter>\n</function>\n</tool_call>\nmore"
    visible, calls = parse(reply)
    assert visible == "Text\n\nmore"
    assert named(calls) == [("add", {"a": "1 < 2", "b": "x"})]


def test_qwen_block_open_when_the_reply_ends_is_malformed() -> None:
    _, calls = parse("<tool_call>\n<function=add>\n<parameter=a>\n1")
    assert isinstance(calls[0], MalformedInvoke)
    assert "the <tool_call> block was not closed" in calls[0].reason


def load_golden_cases() -> list[dict[str, object]]:
    golden = json.loads(
        (XML_STREAMS / "rapid-mlx-qwen3coder_scalar_args_golden_main.json").read_text()
    )
    return golden["cases"]


@pytest.mark.parametrize("case", load_golden_cases()[:26], ids=lambda case: repr(case["literal"]))
def test_golden_qwen_wire_reads_back_its_literal(case: dict[str, str]) -> None:
    _, calls = parse(case["wire"])
    assert named(calls) == [("f", {"v": case["literal"]})]


# --- The cap -------------------------------------------------------------------------------------


def test_reply_past_the_cap_stops_being_read_and_is_reported_once() -> None:
    parser = XmlToolParser(max_chars=30)
    events = parser.feed("0123456789" + block("a"))
    assert events == [VisibleText("0123456789"), ReplyTooLong(30)]
    assert parser.feed("more text") == []
    assert parser.close() == []
    assert len(parser.text) == 30


def test_reply_of_exactly_the_cap_is_read_whole() -> None:
    assert feed_chunks(["x" * 9, "y"], max_chars=10) == [VisibleText("x" * 9), VisibleText("y")]


def test_default_cap_is_one_million_characters() -> None:
    parser = XmlToolParser()
    events = []
    for _ in range(101):
        events += parser.feed("字" * 10_000)
    assert events[-1] == ReplyTooLong(1_000_000)
    assert sum(len(e.text) for e in events if isinstance(e, VisibleText)) == 1_000_000
    assert len(parser.text) == 1_000_000


def test_feeding_after_close_is_a_programming_error() -> None:
    parser = XmlToolParser()
    parser.close()
    with pytest.raises(ValueError, match="after close"):
        parser.feed("x")


def test_text_keeps_the_whole_reply_with_its_blocks() -> None:
    reply = "a " + block("x", p="1") + " b"
    parser = XmlToolParser()
    for chunk in cut(reply, [3]):
        parser.feed(chunk)
    assert parser.text == reply


def test_work_grows_linearly_with_a_value_fed_one_character_at_a_time() -> None:
    def seconds_for(size: int) -> float:
        reply = '<tool_use><invoke name="a"><parameter name="p">' + "<x" * (size // 2)
        best = float("inf")
        for _ in range(3):
            parser = XmlToolParser()
            start = time.perf_counter()
            for char in reply:
                parser.feed(char)
            best = min(best, time.perf_counter() - start)
        return best

    # Linear work gives a ratio near 10; re-reading the value on every feed gives about 100.
    assert seconds_for(100_000) / seconds_for(10_000) < 30


# --- Chunking properties -------------------------------------------------------------------------


def recorded_reply(name: str) -> str:
    recording = json.loads((XML_STREAMS / name).read_text())
    parts = []
    for event in recording["generate_stream"]:
        choices = json.loads(event["data"])["choices"]
        parts.append(choices[0]["delta"].get("content") or "" if choices else "")
    return "".join(parts)


RECORDED = [
    recorded_reply(f"vllm-chill-conversation-{number}.json") for number in ("02", "05", "06")
]
CHUNK_SIZES = st.lists(st.integers(1, 64), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(reply=st.sampled_from(RECORDED), sizes=CHUNK_SIZES)
def test_recorded_replies_read_the_same_however_they_are_cut(reply: str, sizes: list[int]) -> None:
    # These recordings use other formats (<tool_call name=…>, <args>): for us they are text.
    assert summarize(feed_chunks(cut(reply, sizes))) == (reply, [])


VALUE_PIECES = st.sampled_from(
    ["a", " ", "\n", "<", ">", "&", "&lt;", "</invoke>", "</tool_use>", "<tool_use>", "<b>",
     "</param", "<parameter", "日本語", "訳文", "\"", "'", "{\"k\": [1, 2]}", "é", "🙂"]
)  # fmt: skip
TEXT_PIECES = st.sampled_from(
    ["Hello", " ", "\n", "<", "<b>", "</b>", "<tool_", "<tool_call name=\"x\">", "</tool_use>",
     "<!-- c -->", "翻訳します。", "<tool_us", "&amp;", ">"]
)  # fmt: skip


@st.composite
def generated_replies(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, dict[str, str]]]]:
    """A reply of text and blocks with awkward values, its visible text and its calls."""
    reply, visible, calls = [], [], []
    for _ in range(draw(st.integers(0, 3))):
        text = "".join(draw(st.lists(TEXT_PIECES, max_size=6)))
        reply.append(text)
        visible.append(text)
        name = draw(st.sampled_from(["add_translation_batch", "ask_user", "x"]))
        values = {}
        for param in draw(st.lists(st.sampled_from(["a", "b", "text"]), unique=True, max_size=3)):
            value = "".join(draw(st.lists(VALUE_PIECES, max_size=8)))
            if "</parameter>" in value or value.startswith("\n") or value.endswith("\n"):
                value = "v"
            values[param] = value
        newline = draw(st.sampled_from(["", "\n"]))
        body = "".join(
            f'<parameter name="{k}">{newline}{v}{newline}</parameter>\n' for k, v in values.items()
        )
        reply.append(f'<tool_use>\n<invoke name="{name}">\n{body}</invoke>\n</tool_use>')
        calls.append((name, values))
    tail = "".join(draw(st.lists(TEXT_PIECES, max_size=6)))
    reply.append(tail)
    visible.append(tail)
    return "".join(reply), "".join(visible), calls


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=generated_replies(), sizes=CHUNK_SIZES)
def test_generated_replies_read_the_same_however_they_are_cut(
    generated: tuple[str, str, list[tuple[str, dict[str, str]]]], sizes: list[int]
) -> None:
    reply, expected_visible, expected_calls = generated
    whole = parse(reply)
    chunked = summarize(feed_chunks(cut(reply, sizes)))
    assert chunked == whole
    visible, calls = whole
    assert visible == expected_visible
    assert named(calls) == expected_calls


@settings(max_examples=100, deadline=None)
@given(generated=generated_replies(), sizes=CHUNK_SIZES)
def test_visible_text_is_never_taken_back_and_never_holds_a_block(
    generated: tuple[str, str, list[tuple[str, dict[str, str]]]], sizes: list[int]
) -> None:
    reply, expected_visible, _ = generated
    parser = XmlToolParser()
    shown = ""
    for chunk in cut(reply, sizes):
        shown += "".join(e.text for e in parser.feed(chunk) if isinstance(e, VisibleText))
        assert expected_visible.startswith(shown)
    shown += "".join(e.text for e in parser.close() if isinstance(e, VisibleText))
    assert shown == expected_visible


# --- Reasoning ------------------------------------------------------------------------------------


def read(chunks: list[str], **parser_options: str) -> tuple[str, list[ParserEvent], str]:
    """Visible text, calls and reasoning as the protocol reads them: a bare closer withdraws
    the text and calls before it, which were reasoning."""
    parser = XmlToolParser(**parser_options)  # type: ignore[arg-type]
    events = [event for chunk in chunks for event in parser.feed(chunk)] + parser.close()
    visible: list[str] = []
    calls: list[ParserEvent] = []
    reasoning: list[str] = []
    for event in events:
        if isinstance(event, VisibleText):
            visible.append(event.text)
        elif isinstance(event, ReasoningText):
            reasoning.append(event.text)
        elif isinstance(event, BeganInReasoning):
            visible, calls = [], []
            reasoning.append(event.reasoning)
        else:
            calls.append(event)
    return "".join(visible), calls, "".join(reasoning)


@pytest.mark.parametrize("element", ["think", "thinking", "reasoning"])
def test_a_call_drafted_in_reasoning_is_not_read_and_the_real_call_after_it_is(
    element: str,
) -> None:
    thought = f"Draft: {block('title', t='草稿')} no, better."
    reply = f"<{element}>{thought}</{element}>\n\nDone. " + block("title", t="real")
    visible, calls, reasoning = read([reply])
    assert named(calls) == [("title", {"t": "real"})]
    assert visible == "\n\nDone. "
    assert reasoning == thought


def test_a_reply_begun_inside_reasoning_withdraws_its_drafts_at_the_bare_closer() -> None:
    draft = block("title", t="草稿")
    reply = f"plan {draft} hmm</think>\n\nok "
    parser = XmlToolParser()
    assert parser.feed(reply) == [
        VisibleText("plan "),
        ParsedInvoke("title", {"t": "草稿"}, draft[len("<tool_use>\n") : -len("\n</tool_use>")]),
        VisibleText(" hmm"),
        BeganInReasoning("think", f"plan {draft} hmm"),
        VisibleText("\n\nok "),
    ]
    visible, calls, reasoning = read([reply + block("title", t="real")])
    assert (visible, named(calls), reasoning) == (
        "\n\nok ",
        [("title", {"t": "real"})],
        f"plan {draft} hmm",
    )


def test_a_parser_made_inside_reasoning_reads_no_call_before_the_closer() -> None:
    reply = "plan " + block("title", t="草稿") + "</think>ok " + block("title", t="real")
    visible, calls, reasoning = read(cut(reply, [5]), inside_reasoning="think")
    assert named(calls) == [("title", {"t": "real"})]
    assert visible == "ok "
    assert reasoning == "plan " + block("title", t="草稿")


def test_a_reasoning_block_that_never_closes_is_reported_with_its_text() -> None:
    thought = "plan " + block("title", t="草稿") + " and </thi"
    assert read(["Hi <think>", thought]) == ("Hi ", [UnclosedReasoning("think")], thought)
    assert read([thought], inside_reasoning="thinking") == (
        "",
        [UnclosedReasoning("thinking")],
        thought,
    )


def test_think_tags_inside_a_parameter_value_stay_part_of_the_value() -> None:
    value = "彼は<think>考えた</think>、そして</think><reasoning>歩いた"
    reply = "<think>plan</think>" + block("say", text=value) + "tail"
    for chunks in ([reply], cut(reply, [3]), cut(reply, [1])):
        visible, calls, reasoning = read(chunks)
        assert named(calls) == [("say", {"text": value})]
        assert (visible, reasoning) == ("tail", "plan")


def test_think_after_a_tool_block_opens_reasoning_again() -> None:
    reply = block("a") + " <think>second thoughts " + block("b") + "</think> " + block("c")
    visible, calls, reasoning = read([reply])
    assert [name for name, _ in named(calls)] == ["a", "c"]
    assert visible == "  "
    assert reasoning == "second thoughts " + block("b")


def test_only_its_own_closer_ends_a_reasoning_block() -> None:
    reply = "<think>I could write </thinking>, <think> or <tool_use> here</think>answer"
    assert read([reply]) == ("answer", [], "I could write </thinking>, <think> or <tool_use> here")


def test_reasoning_streams_before_its_block_closes_holding_back_only_a_partial_tag() -> None:
    parser = XmlToolParser()
    assert parser.feed("<think>abc") == [ReasoningText("abc")]
    assert parser.feed(" </thi") == [ReasoningText(" ")]
    assert parser.feed("x") == [ReasoningText("</thix")]
    assert parser.feed("</think>") == []
    assert parser.feed("Hi <thi") == [VisibleText("Hi ")]
    assert parser.feed("s") == [VisibleText("<this")]
    assert parser.feed(" </reason") == [VisibleText(" ")]
    assert parser.feed("s") == [VisibleText("</reasons")]


def test_answer_text_is_the_reply_as_written_less_its_reasoning() -> None:
    def answer_text(reply: str, **parser_options: str) -> str:
        parser = XmlToolParser(**parser_options)  # type: ignore[arg-type]
        for chunk in cut(reply, [4]):
            parser.feed(chunk)
        parser.close()
        return parser.answer_text

    explicit = (
        "A <think>x</think>B" + block("a", p="<think>v</think>") + "<reasoning>y</reasoning>C"
    )
    assert answer_text(explicit) == "A B" + block("a", p="<think>v</think>") + "C"
    assert answer_text("x " + block("a") + "</think>\n\nB") == "\n\nB"
    assert answer_text("x</think>B<think>y</think>", inside_reasoning="think") == "B"


def test_work_grows_linearly_with_reasoning_fed_one_character_at_a_time() -> None:
    def seconds_for(size: int) -> float:
        reply = "<think>" + "</thin<x" * (size // 8)
        best = float("inf")
        for _ in range(3):
            parser = XmlToolParser()
            start = time.perf_counter()
            for char in reply:
                parser.feed(char)
            parser.close()
            best = min(best, time.perf_counter() - start)
        return best

    assert seconds_for(100_000) / seconds_for(10_000) < 30


THOUGHT_PIECES = st.sampled_from(
    ["plan", " ", "\n", "<", "</thi", "<think>", "</thinking>", "<tool_use>", "</tool_use>",
     '<invoke name="x">', '<parameter name="p">draft</parameter>', "</invoke>", "考える", ">"]
)  # fmt: skip


@st.composite
def thinking_replies(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, dict[str, str]]], str]:
    """A reply that thinks (opened in it, or only closed), answers, and may think again; its
    visible text, calls and reasoning."""
    answer, visible, calls = draw(generated_replies())
    opening = draw(st.sampled_from(["none", "explicit", "bare"]))
    reasoning = ""
    if opening == "explicit":
        reasoning = "".join(draw(st.lists(THOUGHT_PIECES, max_size=8)))
        answer = f"<think>{reasoning}</think>{answer}"
    elif opening == "bare":
        reasoning = draw(generated_replies())[0]  # drafts are calls until the closer comes
        answer = f"{reasoning}</think>{answer}"
    if draw(st.booleans()):
        again = "".join(draw(st.lists(THOUGHT_PIECES, max_size=8)))
        more, more_visible, more_calls = draw(generated_replies())
        answer, visible, calls = (
            f"{answer}<think>{again}</think>{more}",
            visible + more_visible,
            calls + more_calls,
        )
        reasoning += again
    return answer, visible, calls, reasoning


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=thinking_replies(), sizes=CHUNK_SIZES)
def test_thinking_replies_read_the_same_however_they_are_cut(
    generated: tuple[str, str, list[tuple[str, dict[str, str]]], str], sizes: list[int]
) -> None:
    reply, expected_visible, expected_calls, expected_reasoning = generated
    visible, calls, reasoning = read(cut(reply, sizes))
    assert visible == expected_visible
    assert named(calls) == expected_calls
    assert reasoning == expected_reasoning
    assert read([reply]) == (visible, calls, reasoning)


def test_placeholders_in_a_parameter_split_anywhere_reach_the_check_intact() -> None:
    line = shown_line(
        "Run lb config, see The Basics.",
        (InlineMark("tt", 4, 13), InlineMark("a", 19, 29, (("href", "b.xhtml#b"),))),
        RubyChoice.HINTS,
    )
    written = "运行⟦1⟧lb config⟦/1⟧，参见⟦2⟧基础⟦/2⟧。"
    items = json.dumps(
        [{"paragraph_id": "1a2b3c4d", "translated_text": written}], ensure_ascii=False
    )
    reply = "Here. " + block("add_translation_batch", paragraphs=items)
    placeholder = reply.index("⟦/1⟧")

    for sizes in ([1], [2, 3], [placeholder, 1, 1, 1]):
        _, calls = summarize(feed_chunks(cut(reply, sizes)))
        [(_, params)] = named(calls)
        [item] = json.loads(params["paragraphs"])
        assert item["translated_text"] == written
        read = read_marked(item["translated_text"], line, "Run lb config, see The Basics.")
        assert isinstance(read, ReadText)
        assert read.text == "运行lb config，参见基础。"
