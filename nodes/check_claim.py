"""Check claims against the context: one fanned-out task per claim, or all in one call.

The model gives evidence, reasoning, a verdict and whether the claim is critical; code then
looks for the evidence quote in the context (`nodes.evidence`). The quote's presence, not the
model's say-so, decides whether "supported" counts.
"""

from __future__ import annotations

import time
from typing import TypedDict

from langgraph.runtime import Runtime

from judgegraph.graph.context import JudgeContext, resolve_context
from judgegraph.graph.state import JudgeState
from judgegraph.llm.structured import run_structured_step
from judgegraph.nodes.evidence import numbers_missing_from_quote, quote_found
from judgegraph.nodes import rubrics
from judgegraph.nodes.extract_claims import claim_subject, extract_claims
from judgegraph.nodes.tracing import emit, event_from_outcome
from judgegraph.prompts import render_messages
from judgegraph.schemas.claims import BatchClaimChecks, CheckedClaim, ClaimCheck


class ClaimTask(TypedDict):
    """The payload `extract_claims` sends to each `check_claim` task."""

    index: int
    claim: str
    question: str
    answer: str
    passages: list[str]


def checked(index: int, claim: str, check: ClaimCheck, passages: list[str], question: str) -> CheckedClaim:
    return CheckedClaim(
        index=index,
        claim=claim,
        verdict=check.verdict,
        evidence=check.evidence,
        evidence_found=quote_found(check.evidence, passages),
        numbers_missing=(
            numbers_missing_from_quote(claim, check.evidence, question) if check.verdict == "supported" else []
        ),
        critical=check.critical,
        reasoning=check.reasoning,
    )


def _verdict_detail(verdict: CheckedClaim) -> dict:
    return verdict.model_dump() | {"effective_verdict": verdict.effective_verdict}


def check_claim(task: ClaimTask, runtime: Runtime[JudgeContext]) -> dict:
    started = time.perf_counter()
    context = resolve_context(runtime.context)
    messages = render_messages(
        "check_claim", question=task["question"], passages=task["passages"],
        answer=task["answer"], claim=task["claim"],
    )
    outcome = run_structured_step(
        context.model, messages, ClaimCheck,
        max_repairs=context.max_repairs, dialect=context.response_format,
    )
    if outcome.value is not None:
        verdict = checked(task["index"], task["claim"], outcome.value, task["passages"], task["question"])
    else:
        verdict = CheckedClaim(index=task["index"], claim=task["claim"], error=outcome.error)
    event = emit(runtime, event_from_outcome(
        "check_claim", outcome, started, label=f"claim {task['index'] + 1}",
        detail=_verdict_detail(verdict),
    ))
    return {"verdicts": [verdict], "trace": [event], "fanout_done": {"check_claim": 1}}


def one_check_per_claim(count: int):
    """Batch replies must check each claim exactly once; anything else goes back for repair."""

    def check(reply: BatchClaimChecks) -> list[str]:
        numbers = sorted(entry.claim for entry in reply.checks)
        expected = list(range(1, count + 1))
        if numbers != expected:
            return [f"checks: give exactly one entry for each claim number {expected}, got {numbers}"]
        return []

    return check


def check_claims_batch(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict:
    started = time.perf_counter()
    context = resolve_context(runtime.context)
    subject = claim_subject(state)
    claims = state["claims"].claims
    messages = render_messages(
        "check_claims_batch", question=subject.question, passages=subject.passages,
        answer=subject.answer, claims=claims,
    )
    outcome = run_structured_step(
        context.model, messages, BatchClaimChecks,
        max_repairs=context.max_repairs, dialect=context.response_format,
        check=one_check_per_claim(len(claims)),
    )
    if outcome.value is not None:
        by_number = {entry.claim: entry for entry in outcome.value.checks}
        verdicts = [
            checked(i, claim, by_number[i + 1], subject.passages, subject.question)
            for i, claim in enumerate(claims)
        ]
    else:
        verdicts = [CheckedClaim(index=i, claim=claim, error=outcome.error) for i, claim in enumerate(claims)]
    event = emit(runtime, event_from_outcome(
        "check_claims_batch", outcome, started,
        detail={"verdicts": [_verdict_detail(v) for v in verdicts]},
    ))
    return {"verdicts": verdicts, "trace": [event], "fanout_done": {"check_claims_batch": 1}}


CLAIM_NODES = (
    rubrics.NodeSpec(
        "extract_claims", extract_claims,
        destinations=("check_claim", "check_claims_batch", "finalize"),
    ),
    rubrics.NodeSpec("check_claim", check_claim),
    rubrics.NodeSpec("check_claims_batch", check_claims_batch),
)
"""The shared claim pipeline, for every rubric that scores claims against a context."""
