"""A second reading for short answers: the judge answers the question itself, code compares.

Why: on a one-claim answer (HaluEval's short answers, most QA answers) the 1.5B judge's claim
check often calls a right answer unsupported (a paraphrase, a multi-hop answer whose words sit
in two lines). Asking it the question directly, "what does the context say the answer is?",
is an easier task for a small model (QAGS-style question answering), and comparing the two
answers is arithmetic: SQuAD's token F1 after its normalisation (case, punctuation, articles).

The rule (`second_reading`): only for an answer with exactly one claim that the check did not
support (P(supported) below the profile's `supported_at`), with no number conflict found by
code and no failed check. When the judge's own answer agrees (token F1 at the profile's
`own_answer_agrees_at`, 0.5 by default), the claim counts as supported with support = F1, and
the trace says which answer agreed; otherwise nothing changes (the claim is decided once, with
the own answer's agreement among its signals: `nodes.claims.verdict.decide_verdict`). A failed own-answer call changes nothing either: it is a second opinion, never a
reason to fail the item. `JudgeContext.record_all_signals` (set by `judgegraph calibrate`) asks
it for every one-claim answer, so a refit can recompute any profile's decision.

The evidence that it helps, for one more call on the items the check flags, is in
docs/benchmarks.md ("What the graph does now"), with the report-row figures.
"""

from __future__ import annotations

from collections import Counter

from ...calibration.claim_decisions import ClaimSignals, wants_second_look
from ...calibration.profile import FaithfulnessParameters
from ...llm.steps import Step
from ...llm.structured import StepOutcome, structured_step
from ...prompts import render_messages
from ...run.context import JudgeContext
from ...run.context_view import item_view
from ...schemas.claims import CheckedClaim, OwnAnswer
from ...schemas.inputs import prompt_language
from ...text.tokens import answer_tokens
from .verdict import decide_verdict

NODE = "answer_from_context"


def squad_tokens(text: str, language: str | None = None) -> list[str]:
    """SQuAD's answer normalisation (lower case, no punctuation, no articles) as tokens, for
    every script as MLQA extends it (`judgegraph.text.tokens.answer_tokens`)."""
    return answer_tokens(text, language)


def token_f1(prediction: str, gold: str, language: str | None = None) -> float:
    """SQuAD's token F1 between two short answers (1.0 when both normalise to nothing); for
    Chinese and Japanese over characters, as MLQA scores them."""
    pred, ref = squad_tokens(prediction, language), squad_tokens(gold, language)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def wants_second_reading(verdict: CheckedClaim, claims_in_answer: int, context: JudgeContext,
                         parameters: FaithfulnessParameters) -> bool:
    """Whether to ask the judge's own answer for this measured claim (before its decision)."""
    if not (context.own_answer and claims_in_answer == 1 and verdict.error is None and verdict.conflict is None):
        return False
    return context.record_all_signals or wants_second_look(ClaimSignals.from_record(verdict), parameters)


def answer_from_context(
    question: str, answer: str, passages: list[str], context: JudgeContext, *, language: str | None = None,
) -> Step[StepOutcome[OwnAnswer]]:
    """The judge's own short answer to `question` from the context lines (one call). Its
    prompt shows the item's context lines (its one view, as every other step shows them), then
    the question: the layout faithfulness was measured with. The answer is not shown, so the
    judge's answer is its own."""
    view = yield from item_view(question, answer, passages, context)
    messages = render_messages(NODE, **view.item_data(question, answer).variables(),
                               language=prompt_language(language))
    return (yield from structured_step(context.model, messages, OwnAnswer,
                                       max_repairs=context.max_repairs, dialect=context.response_format))


def second_reading(verdict: CheckedClaim, answer: str, outcome: StepOutcome[OwnAnswer],
                   parameters: FaithfulnessParameters, *, language: str | None = None) -> CheckedClaim:
    """`verdict` with the judge's own answer and its agreement recorded, then decided
    (`decide_verdict`): supported with support = F1 when the profile says the answers agree. A
    failed own-answer call records nothing."""
    if outcome.value is not None:
        own = outcome.value.answer.strip()
        verdict = verdict.model_copy(update={"own_answer": own,
                                             "own_answer_agreement": round(token_f1(own, answer, language), 4)})
    return decide_verdict(verdict, parameters)
