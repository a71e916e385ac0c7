"""schemathesis against ``/openapi.json``: every operation of the API, with requests made from
its schema (valid and not), answers no 500 and nothing the schema does not describe. Bounded:
a few examples per operation, in this process; the streams that never end, and the model check
that would reach made-up servers, are left out."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from honyaku.application import Honyaku
from honyaku.web import Workbench, create_app
from honyaku.web.front_end import WebFrontEnd

EXAMPLES_PER_OPERATION = 20
STREAMS = r"/events$|/stream$"
REACHES_OUT = r"^/api/models/check$"
"""Asks whatever server a profile names: made-up addresses are no test's to reach."""
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
"""What must hold; not whether a request the schema allows is accepted: honyaku refuses an
empty file or an unknown model with a readable 400, and that is right."""


# scripts/fuzz-api (in .ci/run) runs schemathesis over SQLite; here, over PostgreSQL.
@pytest.mark.backends("postgresql")
def test_every_operation_answers_within_its_schema_and_never_fails(
    honyaku: Honyaku, book_id: str
) -> None:
    app = create_app(Workbench(honyaku, WebFrontEnd(grace_s=0.1)), hosts=None)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app).exclude(
        path_regex=f"{STREAMS}|{REACHES_OUT}"
    )
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 20

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def answers_within_its_schema(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=CHECKS)

        answers_within_its_schema()
