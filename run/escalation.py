"""Escalation (`--escalate-to`, issue 57): the first judge decides what it is sure of, the second
judge the rest.

Why here, at the judgment call, and once: the decisions escalation covers (a claim's verdict,
context relevance, answer relevance; a citation follows its claims' verdicts) are each one call
whose reply carries one probability. So each node asks through `decide`, handing it the messages
and how to read its decision's probability from a reply; `decide` asks the first judge, and when
the probability is inside the band (`calibration.escalation_band`) asks the second judge the
same messages. The node then reads the deciding reply under the deciding judge's own context:
its profile decides (issue 53: a strong judge's verdict must not go through rules fitted for the
embedded one, e.g. P(supported) x grounding), and its second reading, if any, is its own.

Without `--escalate-to` the first call is exactly the call the node made before (same messages,
same options), and nothing is added to the trace: runs without escalation are byte-identical.

The trace detail of an escalated decision's step gains `escalation`: which judge decided and
why, the first judge's probability and the band, the second judge's probability, calls and
tokens. The step's own calls and tokens count both judges (`batch.escalation_usage` splits them).

A second judge that fails is never covered up by the first judge's verdict: the step fails with
the second judge's error, named as the second judge's (and the CLI's probe names its URL).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from ..calibration.escalation_band import DEFAULT_BAND, Decision, EscalationBand, target_key, uniform_band
from ..llm.steps import Step
from ..llm.structured import StepOutcome, structured_step
from .context import JudgeContext, resolved_context

Probability = Callable[[StepOutcome, JudgeContext], tuple[float | None, bool]]
"""How a node reads its decision's probability from a valid reply of the judge whose context is
given (its profile decides it), and whether it came from token log-probabilities (else it is
the written label as 1/0, or None when there is none)."""


@dataclass
class Decided:
    """The deciding reply, the context whose profile reads it, and the record of who decided."""

    outcome: StepOutcome
    context: JudgeContext
    record: dict | None = None
    """The trace detail's `escalation` entry; None without `--escalate-to`."""

    def detail(self) -> dict:
        """What the step's trace detail gains: nothing without escalation."""
        return {"escalation": self.record} if self.record is not None else {}


def band_of(context: JudgeContext) -> EscalationBand:
    """The band a run escalates with: the one given (`--escalate-band`), else the first judge's
    profile's fit for `--agreement`, else the documented default (0.2, 0.8).

    Raises ValueError for an `--agreement` the profile holds no fit for (a one-line usage
    error): a target that silently fell back to the default band would promise what nobody
    checked."""
    if context.escalation_band is not None:
        return context.escalation_band
    section = context.profile.escalation
    if context.agreement is None:
        return DEFAULT_BAND
    fit = section.for_target(context.agreement) if section is not None else None
    if fit is None:
        held = ", ".join(sorted(section.fits)) if section is not None and section.fits else "none"
        raise ValueError(f"--agreement {target_key(context.agreement)}: the calibration profile "
                         f"{context.profile.id} holds no escalation fit for it (fitted targets: {held}); "
                         "fit one with `judgegraph escalation-fit`")
    return EscalationBand(confidence=dict(fit.confidence), target=fit.target, delta=fit.delta,
                          source=f"fit {target_key(fit.target)} (profile {context.profile.id})")


def decide(decision: Decision, context: JudgeContext, messages: Sequence[BaseMessage], schema: type[BaseModel],
           probability: Probability, *, check: Callable[[Any], list[str]] | None = None,
           graded: bool = True) -> Step[Decided]:
    """Ask the first judge; escalate the decision when its probability is inside the band.

    `graded` asks for log-probabilities (as the node did before); with a second judge the first
    is always asked for them, since the band reads them."""
    second_judge = context.escalate_to
    first = yield from structured_step(
        context.model, messages, schema, max_repairs=context.max_repairs, dialect=context.response_format,
        check=check, top_logprobs=context.top_logprobs if graded or second_judge is not None else 0,
    )
    if second_judge is None:
        return Decided(first, context)
    band = band_of(context)
    p_first, graded_first = probability(first, context) if first.ok else (None, False)
    low, high = band.bounds(decision)
    record: dict[str, Any] = {
        "decision": decision, "first_judge": context.model_id, "second_judge": second_judge.model_id,
        "p_first": _rounded(p_first), "first_graded": graded_first, "band": [low, high], "band_source": band.source,
    }
    if band.target is not None:
        record |= {"band_target": band.target, "band_delta": band.delta}
    if first.ok and graded_first and not band.escalates(decision, p_first):
        return Decided(first, context, record | {"decided_by": "first",
                                                 "why": f"p {p_first:.3f} outside the band ({low:.2f}, {high:.2f})"})
    record["why"] = _why_escalated(first, p_first if graded_first else None, band, decision)
    second = yield from resolved_context(second_judge)
    reply = yield from structured_step(
        second.model, messages, schema, max_repairs=second.max_repairs, dialect=second.response_format,
        check=check, top_logprobs=second.top_logprobs,
    )
    p_second, graded_second = probability(reply, second) if reply.ok else (None, False)
    record |= {"decided_by": "second", "p_second": _rounded(p_second), "second_graded": graded_second,
               "second_calls": reply.calls, "second_input_tokens": reply.input_tokens,
               "second_output_tokens": reply.output_tokens}
    error = None if reply.ok else f"second judge {second.model_id}: {reply.error}"
    both = StepOutcome(reply.value, first.attempts + reply.attempts, error, reply.token_logprobs)
    return Decided(both, second, record)


def _why_escalated(first: StepOutcome, p_first: float | None, band: EscalationBand, decision: Decision) -> str:
    low, high = band.bounds(decision)
    if not first.ok:
        return f"the first judge gave no valid reply ({first.error})"
    if p_first is None:
        return "the first judge's reply carries no log-probabilities"
    if band.source == "jury":
        return "jury: every decision is asked of both judges"
    return f"p {p_first:.3f} inside the band ({low:.2f}, {high:.2f})"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def fixed_band(confidence: float | None, *, jury: bool = False) -> EscalationBand | None:
    """`--escalate-band`: `all` (the jury) or a confidence (escalate below it); None: unset."""
    if jury:
        return uniform_band(1.0, "jury")
    if confidence is None:
        return None
    return uniform_band(confidence, f"--escalate-band {confidence:g}")
