"""The XML tool protocol: tools for models without native function calling."""

from honyaku.llm.xml.arguments import convert_arguments
from honyaku.llm.xml.parser import XmlToolParser
from honyaku.llm.xml.prompt import render_tool_call, render_tool_prompt
from honyaku.llm.xml.protocol import XmlToolProtocol, render_history, render_request

__all__ = [
    "XmlToolParser",
    "XmlToolProtocol",
    "convert_arguments",
    "render_history",
    "render_request",
    "render_tool_call",
    "render_tool_prompt",
]
