"""The agent: a loop that runs a model's tool calls through a checked registry, and the broker
that brings the model's questions and risky calls to a person.

loop.py         the conversation loop: a request, its calls run one by one, results fed back
registry.py     tools as typed functions, and the registry that runs a model's call on one
broker.py       questions and approvals of risky calls, one dialog at a time, for a front end
questions.py    ``ask_user`` and ``ask_user_batch``: the model's questions to the translator
replies.py      questions and replies as JSON, each reply checked against what was asked
"""

from honyaku.agent.broker import (
    Answer,
    ApprovalPolicy,
    ApprovalReply,
    ApprovalRequest,
    Broker,
    FrontEnd,
    PersonReply,
    PersonRequest,
    Question,
    QuestionReply,
    QuestionRequest,
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
from honyaku.agent.questions import (
    QUESTION_TOOL_NAMES,
    QUESTION_TOOLS,
    SKIPPED_QUESTION_TOOLS,
    question_summary,
)
from honyaku.agent.registry import (
    Result,
    Tool,
    ToolContext,
    ToolRegistry,
    failure,
    result_summary,
    tool,
)

__all__ = [
    "QUESTION_TOOLS",
    "QUESTION_TOOL_NAMES",
    "SKIPPED_QUESTION_TOOLS",
    "Answer",
    "ApprovalPolicy",
    "ApprovalReply",
    "ApprovalRequest",
    "Broker",
    "FrontEnd",
    "Goal",
    "LoopEvent",
    "LoopLimits",
    "Nudged",
    "PersonReply",
    "PersonRequest",
    "Question",
    "QuestionReply",
    "QuestionRequest",
    "Result",
    "Tool",
    "ToolContext",
    "ToolFinished",
    "ToolRegistry",
    "ToolStarted",
    "failure",
    "question_summary",
    "result_json",
    "result_summary",
    "run_loop",
    "tool",
]
