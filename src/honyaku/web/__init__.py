"""The web workbench: ``honyaku serve``. Pages and a JSON API over the same application
services as the terminal; the model's questions and approval requests shown in the browser.

    app.py          the ASGI app: routes, static files, one error format
    api.py          the JSON API (``/openapi.json``), server-sent events for jobs and dialogs
    pages.py        the pages, rendered with Jinja2; ``static/js`` holds their small scripts
    workbench.py    what one server process holds: the application, the dialogs
    chat.py         the assistant's chat stream (``/api/ai/chat/stream``) and sessions
    front_end.py    the browser as a front end of the broker
    guard.py        Host, Origin and token checks
    serving.py      running it with uvicorn
"""

from honyaku.web.app import create_app
from honyaku.web.serving import serve
from honyaku.web.workbench import Workbench

__all__ = ["Workbench", "create_app", "serve"]
