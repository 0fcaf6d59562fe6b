"""How one claim's verdict is decided: the model's graded verdict, then code's own checks.

Order of the rules (each is explained in the claim's `effective_verdict`):
1. the step failed -> no verdict, with the error (faithfulness then fails cleanly);
2. the model's label probabilities (token log-probabilities; 1/0 without them); its most
   likely label is the verdict, but "contradicted" only from `CONFIDENT_CONTRADICTION` up;
3. a number conflict found by code (`nodes.claims.signals`) -> contradicted, support 0,
   whatever the model said: the claim states a value the context never gives, and the
   closest context line gives another value of the same kind;
4. support = P(supported) x grounding, the share of the claim's own content words (those the
   question did not supply) that occur in the context: a claim about things the context never
   mentions cannot be supported by it. Chosen on the tune split of HaluEval (40 items): AUROC
   0.725 for P(supported) alone, 0.757 with this product, 0.738 with a 0.5 grounding gate;
   grounding alone 0.775 but with BA 0.60 at 0.5 (docs/benchmarks.md);
5. critical: the claim is the answer's only claim, shares a content word with the question,
   or its conflicting number is what the question asks for.
"""

from __future__ import annotations

from ...llm.structured import StepOutcome
from ...llm.verdict_probabilities import label_probabilities
from ...schemas.claims import CheckedClaim, ClaimCheck
from ...text.tokens import content_words
from .evidence import Evidence
from .signals import asks_for_number, grounding, number_conflict

VERDICTS = ("supported", "contradicted", "not-in-context")
CONFIDENT_CONTRADICTION = 0.7
"""A model's "contradicted" counts (and can zero a critical claim's answer) only at this
probability: on the tune split the 1.5B judge's argmax was "contradicted" for 7 of 20 faithful
HaluEval answers, all with P < 0.62. Below it, the verdict is the likelier of the other two."""
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
) -> CheckedClaim:
    """The claim's verdict; `language` is the item's (`judgegraph.text`: stopwords, decimal
    commas), None for English rules."""
    if outcome.value is None:
        return CheckedClaim(index=index, claim=claim, error=outcome.error)
    reply = outcome.value
    probabilities, graded = label_probabilities(outcome.token_logprobs, "verdict", VERDICTS, reply.verdict)
    context_text = " ".join(passages)
    line = evidence.lines[reply.line - 1] if 0 < reply.line <= len(evidence.lines) else evidence.best_line
    critical = is_critical(claim, question, claims_in_answer, language)
    closest_first = [evidence.lines[i] for i in sorted(range(len(evidence.lines)), key=lambda i: -evidence.closeness[i])]
    conflict = number_conflict(claim, question, context_text, closest_first, language)
    share = grounding(claim, question, context_text, language)
    common = dict(
        index=index, claim=claim, model_verdict=reply.verdict, probabilities=probabilities,
        graded=graded, grounding=round(share, 3), evidence_found=bool(line),
    )
    if conflict is not None:
        return CheckedClaim(
            **common, verdict="contradicted", support=0.0, evidence=conflict.line,
            conflict=f"the claim says {conflict.claimed}, the context says {conflict.found}",
            critical=critical or asks_for_number(question),
        )
    verdict = max(VERDICTS, key=lambda label: probabilities.get(label, 0.0))
    if verdict == "contradicted" and probabilities["contradicted"] < CONFIDENT_CONTRADICTION:
        verdict = max(("supported", "not-in-context"), key=lambda label: probabilities.get(label, 0.0))
    support = probabilities.get("supported", 0.0) * share
    return CheckedClaim(**common, verdict=verdict, support=round(support, 4), evidence=line, critical=critical)
