"""The estimate a front end shows before a job: the same function the CLI's --dry-run calls."""

from __future__ import annotations

from honyaku.testing import FakeLLMServer

from .conftest import Workbench


def test_the_estimate_of_a_job_comes_as_json_with_its_cost_and_sends_nothing(
    workbench: Workbench, fake_model: FakeLLMServer
) -> None:
    # Given a book and a saved model with prices
    book = workbench.add_book("彼は歩いた。", "雨が降っていた。", chapters=3)
    name = f"priced-{fake_model.port}"
    profile = {"name": name, "model": "fake-translator", "base_url": fake_model.url}
    prices = {"input_price": 2.0, "output_price": 8.0, "protocol": "native"}
    workbench.api("POST", "/api/models", json={**profile, **prices})

    # When the front end asks for the estimate of translating two chapters
    found = workbench.api(
        "GET", f"/api/books/{book}/estimate?kind=translation&chapters=1-2&model={name}"
    )

    # Then it gets chunks, requests, tokens and a cost, and the model heard nothing
    assert found["chunks"] == 2
    assert found["paragraphs"] == 4
    assert found["requests"] > 0
    assert found["input_tokens"] > found["cached_tokens"] > 0
    assert found["output_tokens"] > 0
    assert found["cost"] > 0
    assert fake_model.requests == []
