"""What a job costs: the estimate before it is sent, and the cap that stops it, against the
fake model over real HTTP. The fake server bills each request as a provider would (tokens
by script, a prompt cache by prefix)."""

from __future__ import annotations

import asyncio

import pytest

from honyaku.domain import JobKind
from honyaku.domain.pricing import Prices
from honyaku.errors import ConfigError, SpendingCapReached
from honyaku.jobs import JobRequest
from honyaku.jobs.estimate import Estimate, estimate_job
from honyaku.jobs.spending import usage_cost
from honyaku.llm.events import Usage
from honyaku.store import JobStatus, JobStore, Library, Stores
from honyaku.testing import FakeLLMServer, ScriptedTranslator, hanzi_translation, pseudo_translation
from honyaku.testing.billing import Bill

from ..conftest import novel
from .conftest import connected, engine, run_to_end

PRICES = Prices(input=2.0, output=8.0, cached_input=0.5)
NEAR = 0.25
NEAR_SPREAD = 1.2


def a_long_book(library: Library) -> str:
    """Four chapters of several chunks each, so the prompt cache and chunk count matter."""
    book_id = library.add_book(novel(4, 60), source_lang="ja", target_lang="zh-CN")
    library.update_settings(book_id, chunk_chars=600)
    return book_id


def totals(bills: list[Bill]) -> dict[str, float]:
    return {
        "requests": len(bills),
        "input": sum(b.prompt.tokens for b in bills),
        "cached": sum(b.prompt.cached_tokens for b in bills),
        "output": sum(b.output_tokens for b in bills),
    }


def billed(bills: list[Bill], prices: Prices) -> float:
    t = totals(bills)
    return prices.cost(t["input"] - t["cached"], t["cached"], t["output"])


def translate(library: Library, server: FakeLLMServer, book_id: str, **request: object) -> None:
    model = connected(server, "native")
    service = engine(Stores.over(library.database))
    request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, **request)
    asyncio.run(run_to_end(service, request, model, prices=PRICES))


def assert_near(estimated: float, real: float) -> None:
    assert abs(estimated - real) <= NEAR * real, f"estimated {estimated}, billed {real}"


# -- the estimate ----------------------------------------------------------------------------


BEHAVIOURS = {
    "eager": lambda: ScriptedTranslator(translate=hanzi_translation),
    "stepwise": lambda: ScriptedTranslator.stepwise(translate=hanzi_translation),
    "careful": lambda: ScriptedTranslator.careful(translate=hanzi_translation),
}


def billed_units(tokens: dict[str, float]) -> float:
    """What a provider bills, in uncached input tokens: cached at a quarter, output at four."""
    return tokens["input"] - tokens["cached"] + 0.25 * tokens["cached"] + 4 * tokens["output"]


def estimated_units(estimate: Estimate) -> float:
    return billed_units(
        {
            "input": estimate.input_tokens,
            "cached": estimate.cached_tokens,
            "output": estimate.output_tokens,
        }
    )


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_an_estimate_sends_nothing_and_is_within_a_quarter_of_the_bill_of_a_model_never_seen(
    library, stores, honyaku, fake_model, behaviour
):
    # Given a short story of long paragraphs, and a model honyaku has never seen
    book_id = asyncio.run(honyaku.books.import_sample())
    fake_model.translator = BEHAVIOURS[behaviour]()

    # When the job is estimated, then run
    estimate = estimate_job(stores, book_id, JobKind.TRANSLATION, model="fake", prices=PRICES)
    sent_by_estimate = len(fake_model.requests)
    translate(library, fake_model, book_id)

    # Then the estimate sent nothing, counted by script, and is within 25% of the bill
    assert sent_by_estimate == 0
    assert estimate.counted_with == "per-script ratio"
    assert_near(estimated_units(estimate), billed_units(totals(fake_model.bills)))
    assert estimate.cost is not None
    assert_near(estimate.cost, billed(fake_model.bills, PRICES))


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_for_a_model_never_seen_the_bill_lies_within_the_estimates_spread(
    library, stores, fake_model, behaviour
):
    # Given a long book of short paragraphs, where how a model works matters most
    book_id = a_long_book(library)
    fake_model.translator = BEHAVIOURS[behaviour]()

    estimate = estimate_job(stores, book_id, JobKind.TRANSLATION, model="fake", prices=PRICES)
    translate(library, fake_model, book_id)

    # Then the bill lies within the spread the estimate said, give or take a fifth
    real = billed_units(totals(fake_model.bills))
    assert estimate.spread > 1.2
    assert estimated_units(estimate) / estimate.spread <= real * NEAR_SPREAD
    assert real <= estimated_units(estimate) * estimate.spread * NEAR_SPREAD


@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_once_the_model_has_a_job_behind_it_the_estimate_is_within_a_tenth_of_the_bill(
    library, stores, fake_model, behaviour
):
    # Given a model that translated a book once
    fake_model.translator = BEHAVIOURS[behaviour]()
    translate(library, fake_model, a_long_book(library))
    fake_model.bills.clear()
    fake_model.expire_cache()
    second = a_long_book(library)

    # When a second book is estimated with the same model, then translated
    estimate = estimate_job(stores, second, JobKind.TRANSLATION, model="fake", prices=PRICES)
    translate(library, fake_model, second)

    # Then it learned how the model works, and is within 10% of the bill
    real = totals(fake_model.bills)
    assert estimate.learned_from == 1
    assert abs(estimated_units(estimate) / billed_units(real) - 1) <= 0.10, (estimate, real)
    assert_near(estimate.requests, real["requests"])


def test_an_estimate_without_prices_has_no_cost_and_a_flex_tier_halves_it(library, stores):
    book_id = a_long_book(library)

    plain = estimate_job(stores, book_id, JobKind.TRANSLATION)
    standard = estimate_job(stores, book_id, JobKind.TRANSLATION, prices=PRICES)
    flex = estimate_job(
        stores, book_id, JobKind.TRANSLATION, prices=Prices(2.0, 8.0, 0.5, service_tier="flex")
    )

    assert plain.cost is None
    assert standard.cost is not None
    assert flex.cost is not None
    assert flex.cost == pytest.approx(standard.cost / 2)


# -- the cap ---------------------------------------------------------------------------------


def test_a_cap_stops_the_job_before_the_request_that_would_pass_it_and_it_resumes(
    library, fake_model, protocol
):
    # Given what a whole translation of a long book costs
    whole = a_long_book(library)
    translate(library, fake_model, whole)
    full_cost = billed(fake_model.bills, PRICES)
    fake_model.bills.clear()
    book_id = a_long_book(library)
    cap = full_cost / 2

    # When the book is translated with a cap of half that
    model = connected(fake_model, protocol)
    service = engine(Stores.over(library.database))
    with pytest.raises(SpendingCapReached) as stopped:
        asyncio.run(
            run_to_end(
                service,
                JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, max_cost=cap),
                model,
                prices=PRICES,
            )
        )

    # Then it stopped before the request that could pass the cap, and spent no more than it
    assert stopped.value.spent <= cap < stopped.value.spent + stopped.value.next_cost
    assert billed(fake_model.bills, PRICES) <= cap
    job = JobStore(library.database).for_book(book_id)[0]
    assert job.status is JobStatus.INTERRUPTED
    done = [
        p for c in library.whole_book(book_id).chapters for p in c.work_paragraphs if p.translation
    ]
    assert 0 < len(done) < 4 * 48, (stopped.value, len(fake_model.bills), cap)

    # And run again without a cap, the same job goes on to the end
    model = connected(fake_model, protocol)
    outcome, _ = asyncio.run(
        run_to_end(
            service, JobRequest(book_id=book_id, kind=JobKind.TRANSLATION), model, prices=PRICES
        )
    )
    assert outcome.ok
    assert outcome.job.id == job.id
    for chapter in library.whole_book(book_id).chapters:
        for paragraph in chapter.work_paragraphs:
            assert paragraph.translation == pseudo_translation(paragraph.text)


def test_the_books_max_cost_caps_a_run_that_names_none(library, fake_model):
    book_id = a_long_book(library)
    library.update_settings(book_id, max_cost=0.001)

    with pytest.raises(SpendingCapReached):
        translate(library, fake_model, book_id)

    assert fake_model.requests == []


def test_a_cap_without_prices_is_refused_before_anything_is_sent(library, fake_model):
    book_id = a_long_book(library)
    model = connected(fake_model, "native")

    with pytest.raises(ConfigError, match="prices"):
        asyncio.run(
            run_to_end(
                engine(Stores.over(library.database)),
                JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, max_cost=1.0),
                model,
            )
        )

    assert fake_model.requests == []


def test_a_replys_cost_counts_cached_tokens_at_their_price():
    usage = Usage(0, 0, input_tokens=1_000_000, output_tokens=500_000, cached_tokens=600_000)

    assert usage_cost(usage, PRICES) == pytest.approx(0.4 * 2.0 + 0.6 * 0.5 + 0.5 * 8.0)
