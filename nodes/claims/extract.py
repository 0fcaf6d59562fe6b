"""Extract the answer's atomic claims once per item; every claim-based rubric reuses them.

After extraction the claims node (`nodes.claims.check_claim.extract_and_check_claims`) checks
them in place: one `check_claim` step per claim, side by side, or a single `check_claims_batch`
call when the context says so. Nothing is checked when there is nothing to check (no claims,
no context, or extraction failed): the rules in `nodes.rag.faithfulness` decide those cases.
Under `--claims model` the judge is not asked to list claims when its reply could not change
the result (`code_decides_claims`).
"""

from __future__ import annotations

import re
import time
from typing import NamedTuple
from langgraph.runtime import Runtime

from ...llm.embeddings import run_embedder
from ...llm.steps import Step, blocking
from ...llm.structured import StepOutcome, structured_step
from ...prompts import render_messages
from ...run.context import JudgeContext, resolved_context
from ...run.context_view import item_view
from ...run.state import ClaimTask, JudgeState
from ...run.tracing import emit, event_from_outcome
from ...schemas.claims import ExtractedClaims
from ...schemas.inputs import ClaimSubject
from ...text.quotes import strip_lead_in
from ...text.refusals import states_inability
from ...text.segmentation import answer_claims
from .claim_grounding import grounded_claims
from .evidence import evidence_texts


def claim_subject(state: JudgeState) -> ClaimSubject:
    """The question, answer and passages the claim pipeline works on, for every claim-based
    rubric of the item at once (claims are extracted and checked once per item).

    With one such rubric, its own subject. With several (e.g. `"rubric": ["rag", "liverag"]`),
    the question and answer come from the first in request order (they read the same item
    keys), and the passages are the union of every rubric's passages (rag's `context`,
    liverag's `documents`), in order, without repeats. Taking only the first rubric's
    passages would check the claims against the wrong material for the others, and check
    nothing at all when the first one's passages are empty. A rubric whose passages are only
    part of the union must re-check evidence quotes against its own (liverag does).
    """
    subjects = [
        validated.claim_subject()
        for validated in state.get("inputs", {}).values()
        if callable(getattr(validated, "claim_subject", None))
    ]
    if not subjects:
        raise LookupError("no rubric of this item provides a question, an answer and a context")
    passages = list(dict.fromkeys(p for subject in subjects for p in subject.passages))
    return subjects[0].model_copy(update={"passages": passages})


def unique_claims(claims: list[str]) -> list[str]:
    """Claims without blanks, framing lead-ins ("The context states that ...") or repeats
    (case- and spacing-insensitive)."""
    seen: set[str] = set()
    kept = []
    for claim in map(strip_lead_in, claims):
        key = " ".join(claim.casefold().split()).rstrip(".")
        if key and key not in seen:
            seen.add(key)
            kept.append(claim.strip())
    return kept


_WORD = re.compile(r"\w")


def sentence_claims(answer: str) -> list[str]:
    """The claims cut from `answer` in code (`--claims sentences`), as the checks will see them."""
    return _claims_from_sentences(answer).value.claims


def _claims_from_sentences(answer: str) -> StepOutcome[ExtractedClaims]:
    """Claims cut in code: no model call, so an outcome with no attempts. A sentence that says
    the answer cannot be given is the refusal, not a claim."""
    pieces = [piece for piece in answer_claims(answer) if _WORD.search(piece)]
    claims = [piece for piece in pieces if not states_inability(piece)]
    declines = len(claims) < len(pieces) or states_inability(answer)
    return StepOutcome(ExtractedClaims(claims=unique_claims(claims), declines_to_answer=declines))


def _claims_from_model(
    context: JudgeContext, subject
) -> Step[tuple[StepOutcome[ExtractedClaims], bool | None, list[str]]]:
    """The claims the judge lists, each kept only if it comes from the answer
    (`claim_grounding`); with none left, the claims cut in code. Also the notes on what was
    dropped, for the trace."""
    view = yield from item_view(subject.question, subject.answer, subject.passages, context)
    messages = render_messages(
        "extract_claims", **view.item_data(subject.question, subject.answer).variables(),
        language=subject.prompt_language,
    )
    outcome = yield from structured_step(
        context.model, messages, ExtractedClaims,
        max_repairs=context.max_repairs, dialect=context.response_format,
    )
    model_said_declines = outcome.value.declines_to_answer if outcome.value is not None else None
    notes: list[str] = []
    if outcome.value is not None:
        listed = unique_claims(outcome.value.claims)
        kept, notes = grounded_claims(listed, subject.answer, subject.question, subject.language)
        if listed and not kept:
            kept = _claims_from_sentences(subject.answer).value.claims
            notes.append("no listed claim comes from the answer: the claims cut from the answer in code are checked")
        # The judge's "declines" counts only when the answer's own words state an inability too:
        # a declining answer scores faithfulness 1.0 (seed 000), which must never come by
        # accident, and a small judge was seen flagging a plain, substantive answer as a refusal.
        outcome.value = ExtractedClaims(
            claims=kept,
            declines_to_answer=outcome.value.declines_to_answer and states_inability(subject.answer),
        )
    return outcome, model_said_declines, notes


def embed_listed_claims(claims: list[str], subject: ClaimSubject, context: JudgeContext) -> Step[None]:
    """The listed claims' evidence texts, embedded in one batch before the claim checks start,
    so no check encodes while another's model call is in flight (`graph.every_item.item_embeddings`;
    claims cut in code were embedded before the item's first call). A failure here is left to
    the checks, which embed on their own as they always could."""
    if not context.embeddings:
        return
    texts = list(dict.fromkeys(text for claim in claims for text in evidence_texts(claim, subject.question, subject.passages)))
    embedder = yield from blocking(run_embedder, context)
    if embedder is None or not texts:
        return
    try:
        yield from blocking(embedder.embed, texts)
    except Exception:  # noqa: BLE001, S110 - see the docstring
        pass


def code_decides_claims(subject: ClaimSubject) -> str | None:
    """Why listing the claims by the judge would change nothing, or None when it may.

    With no context nothing is checked: faithfulness reads only whether the answer declines,
    and a model's "declines" counts only when the answer's own words say so
    (`states_inability`); when they do not, the model's reply cannot change the result (when
    they do, it can, and the judge is asked). An answer without a word has no claim a listed
    one could be grounded in (`claim_grounding`)."""
    if not subject.passages and not states_inability(subject.answer):
        return "the context is empty and the answer does not say it cannot answer, so nothing is checked"
    if not _WORD.search(subject.answer):
        return "the answer has no word to make a claim of"
    return None


class Extraction(NamedTuple):
    """What the claims node gets from the extraction (`extract_claims`)."""

    update: dict
    """The state update that records the claims: `judgments`, `claims`, the step's trace event."""
    tasks: list[ClaimTask]
    """One task per claim to check; none when nothing is checked."""
    claim_check: str
    """The run's `claim_check`: "per-claim" (one check per task) or "batch" (all in one call)."""


def extract_claims(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[Extraction]:
    """The answer's claims, and what to check of them (`Extraction`)."""
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    subject = claim_subject(state)
    grounding_notes: list[str] = []
    code_decides = code_decides_claims(subject)
    if context.claim_extraction == "model" and code_decides is None:
        outcome, model_said_declines, grounding_notes = yield from _claims_from_model(context, subject)
    else:
        outcome, model_said_declines = _claims_from_sentences(subject.answer), None
        if context.claim_extraction == "model":
            grounding_notes.append(f"claims cut in code, no model call: {code_decides}")
    extracted = outcome.value
    event = event_from_outcome(
        "extract_claims", outcome, started,
        detail={"claims": extracted.claims if extracted else [],
                "declines_to_answer": extracted.declines_to_answer if extracted else None,
                "model_said_declines": model_said_declines,
                "method": context.claim_extraction,
                "grounding": grounding_notes,
                "language": subject.language},
    )
    if grounding_notes:  # shown on the step's line of `--trace`
        event.note = "; ".join(filter(None, [event.note, *grounding_notes]))
    event = emit(runtime, event)
    update = {"judgments": {"extract_claims": outcome}, "claims": extracted, "trace": [event]}
    if extracted is None or not extracted.claims or not subject.passages:
        return Extraction(update, [], context.claim_check)
    if context.claim_extraction == "model" and context.claim_check == "per-claim":
        yield from embed_listed_claims(extracted.claims, subject, context)
    tasks = [
        ClaimTask(index=index, claim=claim, claims_in_answer=len(extracted.claims),
                  question=subject.question, answer=subject.answer,
                  passages=subject.passages, language=subject.language,
                  second_reading="rag" in state.get("rubrics", ["rag"]))
        for index, claim in enumerate(extracted.claims)
    ]
    return Extraction(update, tasks, context.claim_check)
