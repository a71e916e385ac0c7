"""What a person reads when an OpenAI-compatible server refuses: clear, and never the key."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from honyaku.errors import FatalProviderError
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.testing.server import BackgroundServer

KEY = "sk-live-0123456789SECRET"


def refusing(status: int, echo_key: bool = False) -> BackgroundServer:
    async def chat(request: Request) -> JSONResponse:
        sent = request.headers.get("authorization", "")
        message = f"bad request for {sent}" if echo_key else "The model `nope` does not exist"
        return JSONResponse({"error": {"message": message}}, status_code=status)

    return BackgroundServer(
        Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    )


async def refusal(server: BackgroundServer) -> FatalProviderError:
    provider = OpenAICompatibleProvider(model="nope", base_url=f"{server.origin}/v1", api_key=KEY)
    try:
        with pytest.raises(FatalProviderError) as caught:
            async for _ in provider.stream(ChatRequest((UserMessage("hi"),))):
                pass
    finally:
        await provider.aclose()
    return caught.value


@pytest.mark.anyio
async def test_a_server_that_echoes_the_key_in_its_error_has_it_masked():
    with refusing(400, echo_key=True) as server:
        error = await refusal(server)

    assert KEY not in str(error)
    assert "Bearer ***" in str(error)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "says"),
    [(401, "refused the API key"), (403, "access denied"), (404, "is the model name 'nope'")],
)
async def test_refusals_say_what_to_check(status: int, says: str):
    with refusing(status) as server:
        error = await refusal(server)

    assert says in str(error)
    assert error.status_code == status
    assert KEY not in str(error)
