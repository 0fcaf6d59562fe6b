"""How one claim's verdict is decided: the model's graded verdict, then code's own checks.

What is measured here and recorded on the claim (the signals): the model's label
probabilities (token log-probabilities; 1/0 without them), a number conflict found by code
(`nodes.claims.code_checks`: the claim states a value the context never gives, and the closest
context line gives another value of the same kind), and grounding: how much of the claim's own
content words (those the question did not supply) the context holds, as written, by stem, as
compound parts, by value or by meaning (`nodes.claims.code_checks.ground_claim`), with the shares
and the words not found beside it.

**Where a claim's verdict is decided**: `decide_verdict`, once per claim, from the signals
recorded on it (after the second reading, when one ran). What it decides (verdict,
P(supported), whether it counts) follows the calibration profile
(`calibration.claim_decisions`), and `judgegraph calibrate` recomputes recorded claims with the
same function. Measured here too, by the seed's rules: a claim is critical when it is the
answer's only claim, shares a content word with the question, or its conflicting number is what
the question asks for.
"""

from __future__ import annotations

from ...calibration.claim_decisions import VERDICTS, ClaimSignals, decide
from ...calibration.profile import FaithfulnessParameters
from ...declarations.rule_failure import rule_failure
from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...schemas.claims import CheckedClaim, ClaimCheck
from ...text.tokens import content_words
from .code_checks import UNFOUND_SHOWN, asks_for_number, ground_claim, number_conflict, unstated_names, word_share
from .evidence import Evidence

GENERIC_QUESTION_WORDS = frozenset(
    "summarize summarise summary source document text say describe explain tell".split()
)


def is_critical(claim: str, question: str, claims_in_answer: int, language: str | None = None) -> bool:
    if claims_in_answer <= 1:
        return True
    asked = set(content_words(question, language)) - GENERIC_QUESTION_WORDS
    return bool(asked & set(content_words(claim, language)))


def decide_claim(
    index: int,
    claim: str,
    outcome: StepOutcome[ClaimCheck],
    evidence: Evidence,
    *,
    question: str,
    passages: list[str],
    claims_in_answer: int,
    language: str | None = None,
    parameters: FaithfulnessParameters,
) -> CheckedClaim:
    """The claim measured and decided (`measure_claim`, then `decide_verdict`)."""
    return decide_verdict(measure_claim(index, claim, outcome, evidence, question=question, passages=passages,
                                        claims_in_answer=claims_in_answer, language=language,
                                        parameters=parameters), parameters)


def decide_verdict(claim: CheckedClaim, parameters: FaithfulnessParameters) -> CheckedClaim:
    """The claim with its verdict, P(supported) and whether it counts, decided from the signals
    recorded on it under `parameters`; a failed check stays failed. The one place a claim's
    verdict is decided: live, after the second reading, and when a profile is refitted."""
    if claim.error is not None:
        return claim
    decision = decide(ClaimSignals.from_record(claim), parameters)
    return claim.model_copy(update={"verdict": decision.verdict, "support": round(decision.support, 4),
                                    "supported": decision.supported, "own_answer_agrees": decision.own_answer_agrees,
                                    "names_rule": decision.names_rule})


def measure_claim(
    index: int,
    claim: str,
    outcome: StepOutcome[ClaimCheck],
    evidence: Evidence,
    *,
    question: str,
    passages: list[str],
    claims_in_answer: int,
    language: str | None = None,
    parameters: FaithfulnessParameters,
) -> CheckedClaim:
    """The claim with what was measured about it (not yet decided: `decide_verdict`);
    `language` is the item's (`judgegraph.text`: stopwords, decimal commas), None for English
    rules; `parameters` choose how grounding is read.

    Code's checks read user text that no rule may have foreseen: if one raises, this claim
    fails with the reason (its metric is not scored) and the item's other metrics are kept,
    instead of the exception failing the whole item."""
    if outcome.value is None:
        return CheckedClaim(index=index, claim=claim, error=outcome.error)
    try:
        return _measured(index, claim, outcome.value, outcome.token_logprobs, evidence, question=question,
                         passages=passages, claims_in_answer=claims_in_answer, language=language,
                         parameters=parameters)
    except Exception as error:  # noqa: BLE001 - one claim's rule failure must not fail the item
        return CheckedClaim(index=index, claim=claim,
                            error=rule_failure(error))


def _measured(
    index: int, claim: str, reply: ClaimCheck, token_logprobs: list[dict] | None, evidence: Evidence, *,
    question: str, passages: list[str], claims_in_answer: int, language: str | None,
    parameters: FaithfulnessParameters,
) -> CheckedClaim:
    """The signals from the judge's reply and code's checks (`measure_claim` guards it)."""
    probabilities, graded = label_probabilities(token_logprobs, "verdict", VERDICTS, reply.verdict)
    context_text = " ".join(passages)
    line = evidence.lines[reply.line - 1] if 0 < reply.line <= len(evidence.lines) else evidence.best_line
    critical = is_critical(claim, question, claims_in_answer, language)
    closest_first = [evidence.lines[i] for i in sorted(range(len(evidence.lines)), key=lambda i: -evidence.closeness[i])]
    conflict = number_conflict(claim, question, context_text, closest_first, language)
    grounded = ground_claim(claim, question, context_text, language, evidence.meaning)
    if parameters.grounds_by_meaning(language):
        share, unfound = grounded.value, grounded.unfound
    else:
        words, missing = word_share(claim, question, context_text, language)
        share, unfound = round(words, 3), missing[:UNFOUND_SHOWN]
    common = dict(
        index=index, claim=claim, model_verdict=reply.verdict, probabilities=probabilities,
        graded=graded, grounding=share, lexical_share=grounded.lexical_share,
        lemma_share=grounded.lemma_share, semantic=grounded.semantic, unfound_words=list(unfound),
        unstated_names=list(unstated_names(claim, question, context_text, language)), evidence_found=bool(line),
    )
    if conflict is not None:
        return CheckedClaim(
            **common, evidence=conflict.line,
            conflict=f"the claim says {conflict.claimed}, the context says {conflict.found}",
            critical=critical or asks_for_number(question),
        )
    return CheckedClaim(**common, evidence=line, critical=critical)
