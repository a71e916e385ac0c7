"""The agent: a loop that runs a model's tool calls through a checked registry, and the broker
that brings the model's questions and risky calls to a person."""

from honyaku.agent.broker import (
    ApprovalPolicy,
    Broker,
    FrontEnd,
    NoFrontEndError,
    PersonReply,
    PersonRequest,
)
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
from honyaku.agent.questions import QUESTION_TOOLS, SKIPPED_QUESTION_TOOLS
from honyaku.agent.registry import Result, Tool, ToolRegistry, failure, result_summary, tool

__all__ = [
    "QUESTION_TOOLS",
    "SKIPPED_QUESTION_TOOLS",
    "ApprovalPolicy",
    "Broker",
    "FrontEnd",
    "Goal",
    "LoopEvent",
    "LoopLimits",
    "NoFrontEndError",
    "Nudged",
    "PersonReply",
    "PersonRequest",
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
