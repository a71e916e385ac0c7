"""The XML tool protocol: tools for models without native function calling, written as
``<tool_use>`` blocks in the reply's text.

    protocol.py   ``XmlToolProtocol``: a provider wrapped to speak tools through text
    prompt.py     the system prompt's section that teaches the format and the tools
    parser.py     the incremental parser of the blocks a reply streams
    arguments.py  a call's parameter texts converted by the tool's JSON schema
    schema.py     a parameter's JSON schema read as far as its text needs
"""

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
