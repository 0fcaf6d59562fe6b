"""The claims node checks the claims as soon as they are listed, under `max_concurrency`.

Through the public API (`run_evaluation`, `arun_evaluation`) with a fake judge that records
every call as it starts and ends: the claim checks must not wait for the item's sibling steps
(LangGraph's superstep barrier, which held `Send` tasks until every step of the superstep had
finished), and `max_concurrency=N` keeps its documented meaning (docs/python-api.md): at most
N of the item's steps at once at each level, LangGraph's nodes and the claims node's checks.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from judgegraph.graph.api import arun_evaluation, run_evaluation
from judgegraph.run.context import JudgeContext
from tests.support.fakes import schema_of
from tests.support.latency_judge import FixedLatencyJudge, item

SIBLING_WAIT_S = 10.0
"""How long the sibling judgment waits for a claim check to start before it answers anyway:
only a bound on a wait (the test reads the order of the calls, not a time)."""


class RecordingJudge(FixedLatencyJudge):
    """FixedLatencyJudge that counts the calls in flight (in all, and per schema) and can hold
    the context relevance judgment until a claim check has started."""

    hold_relevance: bool = False

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self.__dict__.update(lock=threading.Lock(), flight={}, peaks={}, check_started=threading.Event(),
                             relevance_saw_a_check=None)

    def _enter(self, schema: str) -> None:
        with self.__dict__["lock"]:
            flight, peaks = self.__dict__["flight"], self.__dict__["peaks"]
            for key in (schema, "all"):
                flight[key] = flight.get(key, 0) + 1
                peaks[key] = max(peaks.get(key, 0), flight[key])
        if schema == "ClaimCheck":
            self.__dict__["check_started"].set()

    def _leave(self, schema: str) -> None:
        with self.__dict__["lock"]:
            for key in (schema, "all"):
                self.__dict__["flight"][key] -= 1

    @property
    def peaks(self) -> dict[str, int]:
        return dict(self.__dict__["peaks"])

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        schema = schema_of(kwargs)
        self._enter(schema)
        try:
            if self.hold_relevance and schema == "ContextRelevanceJudgment":
                self.__dict__["relevance_saw_a_check"] = self.__dict__["check_started"].wait(SIBLING_WAIT_S)
            return super()._generate(messages, stop, run_manager, **kwargs)
        finally:
            self._leave(schema)

    async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        schema = schema_of(kwargs)
        self._enter(schema)
        try:
            if self.hold_relevance and schema == "ContextRelevanceJudgment":
                deadline = time.monotonic() + SIBLING_WAIT_S
                while not self.__dict__["check_started"].is_set() and time.monotonic() < deadline:
                    await asyncio.sleep(0.005)
                self.__dict__["relevance_saw_a_check"] = self.__dict__["check_started"].is_set()
            return await super()._agenerate(messages, stop, run_manager, **kwargs)
        finally:
            self._leave(schema)


def _judge(model: RecordingJudge) -> JudgeContext:
    """The judge lists the claims (3) and makes the three single-call judgments: 7 calls."""
    return JudgeContext(model=model, model_id="recording", claim_extraction="model", embeddings=False)


def _run(path: str, model: RecordingJudge, max_concurrency: int | None):
    context = _judge(model)
    if path == "sync":
        return run_evaluation(item(), model=context, max_concurrency=max_concurrency)
    return asyncio.run(arun_evaluation(item(), model=context, max_concurrency=max_concurrency))


@pytest.mark.parametrize("path", ["sync", "async"])
def test_claim_checks_start_while_a_sibling_judgment_is_still_answering(path):
    """The context relevance judgment answers only once a claim check has started (or after
    SIBLING_WAIT_S): with the checks as `Send` tasks they waited for it (superstep barrier)."""
    model = RecordingJudge(hold_relevance=True)
    run = _run(path, model, max_concurrency=8)
    assert run.result["evaluation_status"] == "success"
    assert model.__dict__["relevance_saw_a_check"] is True
    assert [event.node for event in run.trace].count("check_claim") == 3


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize("limit", [1, 2])
def test_max_concurrency_bounds_the_claim_checks_and_the_steps(path, limit):
    """max_concurrency=N: at most N claim checks in flight, beside at most N - 1 sibling steps
    (each one call), so at most 2N - 1 calls; N = 1 is one call at a time."""
    model = RecordingJudge(latency_s=0.2)
    run = _run(path, model, max_concurrency=limit)
    assert run.result["evaluation_status"] == "success"
    assert model.peaks["ClaimCheck"] == limit
    assert model.peaks["all"] <= 2 * limit - 1


@pytest.mark.parametrize("path", ["sync", "async"])
def test_with_room_every_claim_is_checked_at_once(path):
    model = RecordingJudge(latency_s=0.2)
    run = _run(path, model, max_concurrency=8)
    assert run.result["evaluation_status"] == "success"
    assert model.peaks["ClaimCheck"] == 3
