"""The agent: a loop that runs a model's tool calls through a checked registry."""

from honyaku.agent.loop import (
    Goal,
    LoopEvent,
    LoopLimits,
    Nudged,
    ToolFinished,
    ToolStarted,
    result_json,
    run_loop,
)
from honyaku.agent.registry import Result, Tool, ToolRegistry, failure, result_summary, tool

__all__ = [
    "Goal",
    "LoopEvent",
    "LoopLimits",
    "Nudged",
    "Result",
    "Tool",
    "ToolFinished",
    "ToolRegistry",
    "ToolStarted",
    "failure",
    "result_json",
    "result_summary",
    "run_loop",
    "tool",
]
