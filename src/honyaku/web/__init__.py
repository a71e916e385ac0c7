"""The web workbench: ``honyaku serve``. Pages and a JSON API over the same application
services as the terminal; the model's questions and approval requests shown in the browser.

    app.py          the ASGI app: routes, static files, one error format
    api.py          the JSON API (``/openapi.json``), server-sent events for jobs and dialogs
    pages.py        the pages, rendered with Jinja2; ``static/js`` holds their small scripts
    workbench.py    what one server process holds: library, jobs, dialogs
    job_runs.py     jobs started from the web, running in the server's process
    front_end.py    the browser as a front end of the broker
    guard.py        Host, Origin and token checks
    serving.py      running it with uvicorn
"""

from honyaku.web.app import create_app
from honyaku.web.serving import serve
from honyaku.web.workbench import Workbench

__all__ = ["Workbench", "create_app", "serve"]
