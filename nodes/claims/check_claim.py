"""**Where a claim is checked**: one step per claim, side by side, or all claims in one call,
under the claims node (`extract_and_check_claims`, the graph's `extract_claims` node), which
lists the claims and checks them without waiting for a LangGraph superstep in between.

Each task shows the judge the claim rules, the question, the answer when it makes several claims
(`shown_answer`), the context lines (the whole context when it is short, else the lines closest
to the claim) and the claim: the layout the embedded judge's profile was fitted and measured
with (docs/architecture.md, "One prefix per item", says why it is not the shared data block),
and asks for a verdict and the deciding line; the verdict's probability is read from the
reply's token log-probabilities. `nodes.claims.verdict` then applies code's own checks
(conflicting numbers, words the context never mentions) and decides what counts; a one-claim
answer the check does not support gets a second reading (`nodes.claims.second_reading`).
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from ...calibration.claim_decisions import VERDICTS
from ...declarations.rubric_spec import NodeSpec
from ...llm.embeddings import run_embedder
from ...llm.steps import Step, blocking
from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...prompts import render_messages
from ...prompts.item_data import ItemData
from ...run.concurrent_steps import concurrency_limit, concurrently
from ...run.context import JudgeContext, resolved_context
from ...run.escalation import decide
from ...run.context_view import context_budget, item_view, view_texts
from ...run.state import ClaimTask, JudgeState
from ...run.tracing import emit, event_from_outcome
from ...schemas.claims import BatchClaimChecks, CheckedClaim, ClaimCheck
from ...schemas.inputs import prompt_language
from .evidence import Evidence, evidence_texts, select_evidence
from .extract import claim_subject, extract_claims, sentence_claims
from .second_reading import NODE as OWN_ANSWER_NODE
from .second_reading import answer_from_context, second_reading, wants_second_reading
from .verdict import decide_claim, decide_verdict, measure_claim


def _verdict_detail(verdict: CheckedClaim) -> dict:
    return verdict.model_dump() | {"effective_verdict": verdict.effective_verdict}


def _evidence(task: ClaimTask, context: JudgeContext) -> Step[Evidence]:
    """The lines to show; with embeddings the encoding blocks, so it runs as a `BlockingCall`."""
    budget = context_budget(context.context_cap_tokens, context.context_window,
                            task["question"], task["claim"], shown_answer(task))

    def select() -> Evidence:
        return select_evidence(task["claim"], task["question"], task["passages"], run_embedder(context),
                               budget_tokens=budget)

    if not context.embeddings:
        return select()
    return (yield from blocking(select))


def claim_pipeline_texts(state: JudgeState, context: JudgeContext | None) -> list[str]:
    """What the claim pipeline will embed for the item (`NodeSpec.embeds`): with claims cut in
    code, each claim's query and the context lines (`evidence_texts`); the question and the lines
    when a question-focused view of the context (the judge's claim list, the batch check, the
    second reading) will not fit. Claims the judge lists are embedded once listed
    (`embed_listed_claims`)."""
    subject = claim_subject(state)
    if not subject.passages:
        return []
    claims = sentence_claims(subject.answer) if getattr(context, "claim_extraction", "sentences") == "sentences" else []
    texts = view_texts(subject.question, subject.passages, context, subject.answer)
    if getattr(context, "claim_check", "per-claim") == "per-claim":
        for claim in claims:
            texts += evidence_texts(claim, subject.question, subject.passages)
    return texts


def check_claim(task: ClaimTask, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """Check one claim against the context lines closest to it (`nodes.claims.evidence`);
    the verdict rules are in `nodes.claims.verdict`.

    The prompt opens with the rules, the question and (for several claims) the answer, then
    what varies (the lines, the claim), so a prefix cache reuses the shared part across one
    item's claim checks (`claim_check_messages`)."""
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    evidence = yield from _evidence(task, context)
    messages = claim_check_messages(task["question"], shown_answer(task), evidence, task["claim"],
                                    prompt_language(task.get("language")))
    decided = yield from decide("claim_verdict", context, messages, ClaimCheck, decided_support(task, evidence))
    outcome, context = decided.outcome, decided.context  # the deciding judge's profile reads its reply
    parameters = context.profile.faithfulness_parameters
    measured = measured_claim(task, outcome, evidence, parameters)
    events = []
    if task.get("second_reading", True) and wants_second_reading(measured, task["claims_in_answer"], context, parameters):
        second_started = time.perf_counter()
        own = yield from answer_from_context(task["question"], task["answer"], task["passages"], context,
                                             language=task.get("language"))
        verdict = second_reading(measured, task["answer"], own, parameters, language=task.get("language"))
        events.append(emit(runtime, event_from_outcome(
            OWN_ANSWER_NODE, own, second_started, label=f"claim {task['index'] + 1}",
            detail={"own_answer": verdict.own_answer, "agreement": verdict.own_answer_agreement},
        )))
    else:
        verdict = decide_verdict(measured, parameters)
    event = emit(runtime, event_from_outcome(
        "check_claim", outcome, started, label=f"claim {task['index'] + 1}",
        detail=_verdict_detail(verdict) | {"lines_shown": len(evidence.lines), "whole_context": evidence.whole_context}
        | decided.detail(),
    ))
    return {"verdicts": [verdict], "trace": [event, *events]}


def shown_answer(task: ClaimTask) -> str:
    """The answer a claim check shows: the whole answer when it makes several claims (a claim
    may lean on its neighbours: "It opened in 1890"), none for a one-claim answer, whose claim
    is the answer, so that showing it twice would only press the judge to agree with it."""
    return task["answer"] if task["claims_in_answer"] > 1 else ""


def claim_check_messages(question: str, answer: str, evidence: Evidence, claim: str, language: str | None):
    """One claim check's messages: the rules, the question, the answer (`shown_answer`; empty:
    not shown), then the lines: the whole context when the evidence is the whole context (the
    same lines every other step of a short-context item shows), else the claim's own lines."""
    whole = evidence.whole_context
    item = ItemData(question, answer, evidence.lines if whole else None)
    return render_messages("check_claim", **item.variables(), claim_lines=None if whole else evidence.lines,
                           claim=claim, language=language)


def measured_claim(task: ClaimTask, outcome: StepOutcome, evidence: Evidence, parameters) -> CheckedClaim:
    return measure_claim(
        task["index"], task["claim"], outcome, evidence,
        question=task["question"], passages=task["passages"], claims_in_answer=task["claims_in_answer"],
        language=task.get("language"), parameters=parameters,
    )


def decided_support(task: ClaimTask, evidence: Evidence):
    """The claim verdict's probability for escalation: its support as the judge's own profile
    decides it (`nodes.claims.verdict`: P(supported) from the token log-probabilities, with the
    code checks the profile applies, e.g. x grounding), before any second reading; the band
    then places the decision that would stand. With whether the reply carried log-probabilities."""

    def probability(outcome: StepOutcome, context: JudgeContext) -> tuple[float, bool]:
        parameters = context.profile.faithfulness_parameters
        verdict = decide_verdict(measured_claim(task, outcome, evidence, parameters), parameters)
        _, graded = label_probabilities(outcome.token_logprobs, "verdict", VERDICTS, outcome.value.verdict)
        return verdict.support, graded

    return probability


def no_probability(outcome: StepOutcome, context: JudgeContext) -> tuple[None, bool]:
    """The batch check's reply holds several verdicts and no log-probabilities: with a second
    judge, the whole call is escalated (`calibration.escalation_band`)."""
    return None, False


def one_check_per_claim(count: int):
    """Batch replies must check each claim exactly once; anything else goes back for repair."""

    def check(reply: BatchClaimChecks) -> list[str]:
        numbers = sorted(entry.claim for entry in reply.checks)
        expected = list(range(1, count + 1))
        if numbers != expected:
            return [f"checks: give exactly one entry for each claim number {expected}, got {numbers}"]
        return []

    return check


def check_claims_batch(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """All claims in one call, against the whole context (numbered lines): for cheap models.
    No log-probabilities here (one reply holds several verdicts), so verdicts are 1/0."""
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    subject = claim_subject(state)
    claims = state["claims"].claims
    view = yield from item_view(subject.question, subject.answer, subject.passages, context)
    whole = Evidence(view.lines, [0.0] * len(view.lines), view.whole)
    messages = render_messages(
        "check_claims_batch", **view.item_data(subject.question, subject.answer).variables(), claims=claims,
        language=subject.prompt_language,
    )
    decided = yield from decide("claim_verdict", context, messages, BatchClaimChecks, no_probability,
                                check=one_check_per_claim(len(claims)), graded=False)
    outcome, context = decided.outcome, decided.context
    if outcome.value is not None:
        by_number = {entry.claim: entry for entry in outcome.value.checks}
        verdicts = [
            decide_claim(
                i, claim, StepOutcome(ClaimCheck(verdict=by_number[i + 1].verdict, line=by_number[i + 1].line)),
                whole, question=subject.question, passages=subject.passages, claims_in_answer=len(claims),
                language=subject.language, parameters=context.profile.faithfulness_parameters,
            )
            for i, claim in enumerate(claims)
        ]
    else:
        verdicts = [CheckedClaim(index=i, claim=claim, error=outcome.error) for i, claim in enumerate(claims)]
    event = emit(runtime, event_from_outcome(
        "check_claims_batch", outcome, started,
        detail={"verdicts": [_verdict_detail(v) for v in verdicts]} | decided.detail(),
    ))
    return {"verdicts": verdicts, "trace": [event]}


def extract_and_check_claims(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """The claims node: the answer's claims (`extract_claims`), then their checks, in this node.

    The checks start as soon as the claims are known: one `check_claim` step per claim, run side
    by side (`run.concurrent_steps`; at most the run's `max_concurrency` at once), or one
    `check_claims_batch` call. As `Send` tasks they would wait for the next superstep, i.e. for
    every sibling step of the item (the relevance judgments) and, in a batch, for every other
    item's CPU in that superstep. The update is the extraction's, then the checks' in claim
    order (verdicts and trace events), as the fanned-out tasks' writes were applied."""
    update, tasks, claim_check = yield from extract_claims(state, runtime)
    if not tasks:
        return update
    if claim_check == "batch":
        checks = [(yield from check_claims_batch({**state, **update}, runtime))]
    else:
        checks = yield from concurrently([check_claim(task, runtime) for task in tasks], concurrency_limit())
    return update | {"verdicts": [verdict for check in checks for verdict in check["verdicts"]],
                     "trace": update["trace"] + [event for check in checks for event in check["trace"]]}


CLAIM_NODES = (
    NodeSpec("extract_claims", extract_and_check_claims, embeds=claim_pipeline_texts),
)
"""The shared claim pipeline, for every rubric that scores claims against a context: one node,
named for its first step (the rubrics' plans and `entry_nodes` name it)."""
