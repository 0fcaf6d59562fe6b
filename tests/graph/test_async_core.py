"""One implementation per LLM step, run blocking under `invoke` and awaiting under `ainvoke`.

The fake judge counts which of its paths LangChain took (`_generate` for `invoke`, `_agenerate`
for `ainvoke`): the async graph must never fall back to the sync path (a thread per call), and
both paths must give the same result and the same trace.
"""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage

from judgegraph.graph.api import arun_evaluation, run_evaluation
from judgegraph.llm.steps import ModelCall, adrive, drive
from judgegraph.llm.structured import run_structured_step, structured_step
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.rag import SimilarityJudgment
from tests.support.fakes import judge
from tests.support.latency_judge import FixedLatencyJudge, item


def _context(model: FixedLatencyJudge, **settings) -> JudgeContext:
    return JudgeContext(model=model, model_id="fake:async-core", **settings)


def _shape(run) -> list[tuple]:
    """The trace without timings: node, label, outcome, calls, tokens, detail."""
    return [(e.node, e.label, e.outcome, e.calls, e.input_tokens, e.output_tokens, e.detail)
            for e in sorted(run.trace, key=lambda e: (e.node, e.label or ""))]


@pytest.mark.parametrize("settings", [{}, {"claim_extraction": "model", "embeddings": False},
                                      {"claim_check": "batch"}])
def test_ainvoke_awaits_every_model_call_and_matches_invoke(settings):
    sync_model, async_model = FixedLatencyJudge(), FixedLatencyJudge()

    blocking = run_evaluation(item(), model=_context(sync_model, **settings))
    awaited = asyncio.run(arun_evaluation(item(), model=_context(async_model, **settings)))

    assert blocking.usage["calls"] > 0
    assert sync_model.counts == {"sync": blocking.usage["calls"], "async": 0}
    assert async_model.counts == {"sync": 0, "async": awaited.usage["calls"]}
    assert awaited.result == blocking.result
    assert _shape(awaited) == _shape(blocking)


def test_concurrent_items_overlap_their_model_waits():
    """16 items of 5 calls at 50 ms each, gathered: far less than the items one after another."""
    model = FixedLatencyJudge(latency_s=0.05)
    context = _context(model)

    async def batch() -> list:
        return await asyncio.gather(*(arun_evaluation(item(), model=context) for _ in range(16)))

    loop = asyncio.new_event_loop()
    try:
        started = loop.time()
        runs = loop.run_until_complete(batch())
        elapsed = loop.time() - started
    finally:
        loop.close()
    assert all(run.result["evaluation_status"] == "success" for run in runs)
    assert model.counts["sync"] == 0
    one_after_another = 16 * 2 * 0.05  # two rounds of calls per item (the judgments, then the claims)
    assert elapsed < 0.75 * one_after_another, f"16 items took {elapsed:.2f}s: their calls did not overlap"


class _Failing:
    """A model whose every call raises, blocking or awaited."""

    def invoke(self, messages):
        raise RuntimeError("boom")

    async def ainvoke(self, messages):
        raise RuntimeError("boom")


def test_a_model_error_is_thrown_into_the_step_by_both_drivers():
    def step():
        try:
            yield ModelCall(_Failing(), [HumanMessage(content="x")])
        except RuntimeError as error:
            return f"caught {error}"
        return "no error"

    assert drive(step()) == "caught boom"
    assert asyncio.run(adrive(step())) == "caught boom"


def test_structured_step_gives_the_same_outcome_blocking_and_awaiting():
    def model():
        return judge(judge_semantic_similarity=['{"reasoning": "close", "similarity": 9}',
                                                {"reasoning": "close", "similarity": 4}])

    messages = [HumanMessage(content="rate it")]
    blocking = run_structured_step(model(), messages, SimilarityJudgment)
    awaited = asyncio.run(adrive(structured_step(model(), messages, SimilarityJudgment)))
    assert blocking.ok and awaited.ok and blocking.calls == awaited.calls == 2
    assert blocking.value == awaited.value
    assert [a.errors for a in blocking.attempts] == [a.errors for a in awaited.attempts]


def test_an_openai_compatible_judge_works_under_one_event_loop_after_another():
    """`asyncio.run` per item (or pytest-asyncio's loop per test): the second loop must not reuse
    the first loop's pooled connections (`llm.loop_local_http`)."""
    from judgegraph.llm.models import resolve_model
    from tests.support.fault_server import FaultServer
    from tests.support.latency_judge import replies

    scripted = replies(3)
    with FaultServer(reply=lambda step, schema, body: scripted[step]) as server:
        resolved = resolve_model("fake-judge", base_url=server.base_url)
        context = JudgeContext(model=resolved.model, model_id=resolved.model_id,
                               claim_extraction="model", embeddings=False)
        runs = [asyncio.run(arun_evaluation(item(), model=context)) for _ in range(3)]
        runs.append(run_evaluation(item(), model=context))
    assert [run.result["evaluation_status"] for run in runs] == ["success"] * 4
    assert all(run.usage["calls"] == 7 for run in runs)


def test_a_batch_loop_sends_through_aiohttp_and_closes_its_connections():
    """`batch_http_pool` (the batch runner's): inside it the judge's calls of this loop go
    through the SDK's aiohttp client, and leaving it closes them; outside it, httpx as before.
    Same results and the same 7 calls either way, over real HTTP."""
    from judgegraph.llm import loop_local_http
    from judgegraph.llm.models import resolve_model
    from tests.support.fault_server import FaultServer
    from tests.support.latency_judge import replies

    assert loop_local_http.AIOHTTP, "aiohttp is a dependency: the batch must not fall back to httpx"
    scripted = replies(3)

    async def judged(pool: bool):
        client = context.model.http_async_client
        if not pool:
            run = await arun_evaluation(item(), model=context)
            return run, type(client._client_of_this_loop()).__name__, False
        async with loop_local_http.batch_http_pool() as through_aiohttp:
            run = await arun_evaluation(item(), model=context)
            inner = client._client_of_this_loop()
        return run, type(inner).__name__, through_aiohttp and inner.is_closed

    with FaultServer(reply=lambda step, schema, body: scripted[step]) as server:
        resolved = resolve_model("fake-judge", base_url=server.base_url)
        context = JudgeContext(model=resolved.model, model_id=resolved.model_id,
                               claim_extraction="model", embeddings=False)
        pooled, pooled_client, closed = asyncio.run(judged(pool=True))
        plain, plain_client, _ = asyncio.run(judged(pool=False))
    assert "AioHttp" in pooled_client and "AioHttp" not in plain_client
    assert server.host_headers == {"host": 7, "Host": 7}, "the server tells the two transports apart"
    assert closed, "leaving the pool closes the loop's aiohttp connections"
    assert pooled.result == plain.result and pooled.usage == plain.usage and pooled.usage["calls"] == 7
