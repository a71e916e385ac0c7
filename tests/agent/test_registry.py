"""The executor turns every way a call can go wrong into a result the model can act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

import pytest
from pydantic import Field, ValidationError

from honyaku.agent.broker import Broker
from honyaku.agent.registry import ToolContext, ToolRegistry, tool
from honyaku.errors import StoreError, ToolError
from honyaku.llm.messages import ToolCall, ToolCallError


@dataclass
class Plan(ToolContext):
    """A planner's context: the titles of the tasks it created."""

    titles: list[str] = field(default_factory=list)


def plan() -> Plan:
    return Plan(Broker(), "a test")


@tool()
def create_task(
    context: Plan,
    title: Annotated[str, Field(description="What to do.")],
    priority: int = 1,
    tags: list[str] | None = None,
) -> dict:
    """Create a task in the plan."""
    context.titles.append(title)
    return {"title": title, "priority": priority}


@tool()
def delete_task(context: ToolContext, task_id: str) -> dict:
    """Delete a task."""
    if task_id == "store":
        raise StoreError("database is locked")
    if task_id == "bug":
        raise KeyError(task_id)
    raise ToolError("TASK_NOT_FOUND", f"no task {task_id}", task_id=task_id)


REGISTRY = ToolRegistry([create_task, delete_task], Plan)


async def run(name: str, arguments: dict, context: Plan | None = None, error=None) -> dict:
    context = plan() if context is None else context
    return await REGISTRY.run(ToolCall("call_1", name, arguments, error=error), context)


def test_a_tool_without_a_context_type_is_refused_when_it_is_made():
    def orphan(context: list, title: str) -> dict:
        return {}

    with pytest.raises(TypeError, match="orphan: its first parameter must be annotated"):
        tool()(orphan)


def test_a_registry_refuses_a_tool_whose_context_its_own_does_not_provide():
    with pytest.raises(TypeError, match="create_task works on Plan, which ToolContext is not"):
        ToolRegistry([create_task], ToolContext)


def test_a_tools_schema_comes_from_its_signature_and_docstring():
    spec = create_task.spec
    assert spec.name == "create_task"
    assert spec.description == "Create a task in the plan."
    assert spec.parameters["required"] == ["title"]
    assert spec.parameters["properties"]["title"] == {
        "type": "string",
        "description": "What to do.",
    }
    assert spec.parameters["properties"]["priority"] == {"type": "integer"}
    assert "context" not in spec.parameters["properties"]


def test_a_schema_leaves_out_defaults_and_bounds_which_every_call_is_checked_against():
    from honyaku.jobs.tools import get_previous_paragraphs

    count = get_previous_paragraphs.spec.parameters["properties"]["count"]

    assert count == {"type": "integer"}
    with pytest.raises(ValidationError, match="less than or equal to 20"):
        get_previous_paragraphs.parameters.model_validate({"paragraph_id": "1a2b3c4d", "count": 50})


def test_nested_models_are_inlined_without_refs_or_titles():
    from honyaku.jobs.tools import add_translation_batch

    text = repr(add_translation_batch.spec.parameters)
    assert "$ref" not in text
    assert "'title'" not in text
    item = add_translation_batch.spec.parameters["properties"]["paragraphs"]["items"]
    assert item["required"] == ["paragraph_id", "translated_text"]


@pytest.mark.anyio
async def test_a_good_call_runs_and_succeeds():
    context = plan()
    result = await run("create_task", {"title": "翻訳"}, context)
    assert result == {"success": True, "title": "翻訳", "priority": 1}
    assert context.titles == ["翻訳"]


@pytest.mark.anyio
async def test_an_unknown_tool_lists_the_available_ones():
    result = await run("drop_database", {})
    assert result["success"] is False
    assert result["error_code"] == "TOOL_NOT_FOUND"
    assert result["available_tools"] == ["create_task", "delete_task"]


@pytest.mark.anyio
async def test_a_missing_parameter_is_named():
    result = await run("create_task", {"priority": 2})
    assert result["error_code"] == "MISSING_PARAMETER"
    assert "title" in result["error"]


@pytest.mark.anyio
async def test_a_wrongly_typed_parameter_is_named_with_what_was_expected():
    result = await run("create_task", {"title": "x", "priority": "urgent"})
    assert result["error_code"] == "INVALID_PARAMETER"
    assert "priority" in result["error"]
    assert "integer" in result["error"]


@pytest.mark.anyio
async def test_a_tools_own_refusal_keeps_its_code_and_details():
    result = await run("delete_task", {"task_id": "t1"})
    assert result == {
        "success": False,
        "error": "no task t1",
        "error_code": "TASK_NOT_FOUND",
        "task_id": "t1",
    }


@pytest.mark.anyio
async def test_a_store_failure_is_an_api_error_and_a_bug_is_an_execution_failure():
    assert (await run("delete_task", {"task_id": "store"}))["error_code"] == "API_ERROR"
    failed = await run("delete_task", {"task_id": "bug"})
    assert failed["error_code"] == "EXECUTION_FAILED"
    assert "KeyError" in failed["error"]


@pytest.mark.anyio
async def test_a_call_that_could_not_be_read_is_reported_and_never_run():
    context = plan()
    error = ToolCallError("INVALID_PARAMETER", "arguments are not valid JSON")
    result = await run("create_task", {"title": "x"}, context, error=error)
    assert result["error_code"] == "INVALID_PARAMETER"
    assert context.titles == []


@pytest.mark.anyio
async def test_a_tool_a_conversation_hides_is_not_offered_but_a_call_to_it_is_answered():
    narrowed = REGISTRY.hiding(["delete_task"])
    context = plan()

    result = await narrowed.run(ToolCall("call_1", "create_task", {"title": "翻訳"}), context)

    assert [spec.name for spec in narrowed.specs] == ["create_task"]
    assert [spec.name for spec in REGISTRY.specs] == ["create_task", "delete_task"]
    assert result["success"] is True
    refused = await narrowed.run(ToolCall("call_2", "delete_task", {"task_id": "t1"}), context)
    assert refused["error_code"] == "TASK_NOT_FOUND"
