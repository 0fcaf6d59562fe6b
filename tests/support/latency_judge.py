"""A fake judge that answers every rag step with a valid reply after a fixed latency.

Why: the overhead benchmarks (`benchmarks.overhead`, `benchmarks.framework_floor`) must measure
the graph, not a model. With latency 0 it shows what
orchestration (validation, routing, fan-out, tracing, finalize) costs per item; with a fixed
latency it shows how well concurrent items and fanned-out claim checks overlap their waits.
It implements both `_generate` (time.sleep) and `_agenerate` (asyncio.sleep) and counts which
path the graph used, since sync nodes under `ainvoke` still take the sync path.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from tests.support.fakes import reply_message, schema_of

CONTEXT = ("Paris is the capital of France. It has about two million inhabitants. "
           "The Seine flows through the city.")
CLAIMS = ["Paris is the capital of France.", "Paris has about two million inhabitants.",
          "The Seine flows through Paris."]


def item() -> dict:
    """A rag item whose every step the fake can answer validly (all four metrics)."""
    return {"question": "Tell me about Paris.", "context": CONTEXT, "answer": " ".join(CLAIMS),
            "reference": "Paris is France's capital."}


def replies(claims: int) -> dict[str, dict]:
    """Valid replies for every rag step, by schema name (also served over HTTP by the overhead benchmark)."""
    check = {"verdict": "supported", "line": 1}
    return {
        "ExtractedClaims": {"declines_to_answer": False, "claims": (CLAIMS * 4)[:claims]},
        "ClaimCheck": check,
        "BatchClaimChecks": {"checks": [check | {"claim": n + 1} for n in range(claims)]},
        "ContextRelevanceJudgment": {"answer_in_context": "yes", "useful_lines": [1]},
        "AnswerRelevanceJudgment": {
            "reasoning": "direct", "question_parts": [{"part": "Paris", "answered": True}],
            "directness": "direct", "is_refusal": False, "refusal_reason_given": False,
            "refusal_category": "none", "refusal_cites_missing_info_or_policy": False,
            "context_contains_answer": True,
        },
        "AnswerRelevanceLabels": {
            "question_parts": [{"part": "Paris", "answered": True}], "directness": "direct", "refusal": None,
        },
        "SimilarityJudgment": {"reasoning": "close", "similarity": 4},
        "BaselineJudgment": {"reasoning": "fine", "score": 1.0},
    }


class FixedLatencyJudge(BaseChatModel):
    """Valid replies for every rag step after `latency_s`; `claims` sets the claims extracted."""

    latency_s: float = 0.0
    claims: int = 3
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _counts: dict[str, int] = PrivateAttr(default_factory=lambda: {"sync": 0, "async": 0})

    @property
    def _llm_type(self) -> str:
        return "fixed-latency-judge"

    @property
    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    def _result(self, kwargs: dict) -> ChatResult:
        step = schema_of(kwargs)
        reply = replies(self.claims).get(step)
        if reply is None:
            raise ValueError(f"the fake judge has no reply for schema {step!r}")
        message = reply_message(reply, input_tokens=100, output_tokens=20)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _count(self, path: str) -> None:
        with self._lock:
            self._counts[path] += 1

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self._count("sync")
        if self.latency_s:
            time.sleep(self.latency_s)
        return self._result(kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        self._count("async")
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return self._result(kwargs)
