"""Escalation in the open (issue 57): per item and per batch, how many decisions each judge made
and what each judge cost.

Why from the trace: every escalated decision's step records `escalation` in its trace detail
(`run.escalation`): who decided, why, and the second judge's calls and tokens; the step's own
calls and tokens count both judges. So an item's record splits its usage by judge from its
trace, and the batch summary adds the records up, the same way for a fresh run and a resumed file.
Nothing is added to a record of a run without `--escalate-to`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

USAGE_KEY = "escalation"
"""The key a record's `usage` holds the split under."""


def decisions_of(events: Iterable[Any]) -> list[dict]:
    """The `escalation` entries of an item's trace events (objects or their dumps)."""
    found = []
    for event in events:
        detail = event.get("detail") if isinstance(event, dict) else getattr(event, "detail", None)
        entry = (detail or {}).get(USAGE_KEY) if isinstance(detail, dict) else None
        if isinstance(entry, dict):
            found.append(entry)
    return found


def escalation_usage(events: Iterable[Any], usage: dict[str, Any], first_judge: str, second_judge: str) -> dict:
    """The record's `usage.escalation`: decisions made, escalated, and calls and tokens per
    judge (the first judge's are the item's calls less the second's; cache hits are never the
    second judge's, whose replies are not cached)."""
    decisions = decisions_of(events)
    escalated = [d for d in decisions if d.get("decided_by") == "second"]
    promises = {(d.get("band_source"), d.get("band_target"), d.get("band_delta")) for d in decisions}
    second = {"calls": sum(int(d.get("second_calls") or 0) for d in escalated),
              "input_tokens": sum(int(d.get("second_input_tokens") or 0) for d in escalated),
              "output_tokens": sum(int(d.get("second_output_tokens") or 0) for d in escalated)}
    first = {key: max(0, int(usage.get(key) or 0) - second[key]) for key in second}
    split = {"decisions": len(decisions), "escalated": len(escalated),
             "first_judge": {"model": first_judge, **first}, "second_judge": {"model": second_judge, **second}}
    if len(promises) == 1:
        source, target, delta = promises.pop()
        split["band"] = {"source": source, "target": target, "delta": delta}
    return split


@dataclass
class EscalationTotals:
    """A batch's escalation, added up from its records (`usage.escalation`)."""

    decisions: int = 0
    escalated: int = 0
    calls: dict[str, int] = field(default_factory=lambda: {"first_judge": 0, "second_judge": 0})
    tokens: dict[str, int] = field(default_factory=lambda: {"first_judge": 0, "second_judge": 0})
    models: dict[str, str] = field(default_factory=dict)
    bands: set[tuple] = field(default_factory=set)

    def add(self, record: dict) -> None:
        split = (record.get("usage") or {}).get(USAGE_KEY)
        if not isinstance(split, dict):
            return
        self.decisions += int(split.get("decisions") or 0)
        self.escalated += int(split.get("escalated") or 0)
        band = split.get("band")
        if isinstance(band, dict):
            self.bands.add((band.get("source"), band.get("target"), band.get("delta")))
        for judge in ("first_judge", "second_judge"):
            part = split.get(judge) or {}
            self.calls[judge] += int(part.get("calls") or 0)
            self.tokens[judge] += int(part.get("input_tokens") or 0) + int(part.get("output_tokens") or 0)
            if part.get("model"):
                self.models[judge] = str(part["model"])

    @property
    def seen(self) -> bool:
        return bool(self.models)

    def lines(self) -> list[str]:
        """What the summary and the report say: the share escalated, calls and tokens per judge."""
        if not self.seen:
            return []
        share = self.escalated / self.decisions if self.decisions else 0.0
        said = [f"escalated {self.escalated:,} of {self.decisions:,} decisions ({share:.0%}) to the second judge"]
        for judge, name in (("first_judge", "first judge"), ("second_judge", "second judge")):
            said.append(f"{name} {self.models.get(judge, '?')}: {self.calls[judge]:,} calls, "
                        f"{self.tokens[judge]:,} tokens")
        said.append(self.estimate(share))
        return said

    def estimate(self, share: float) -> str:
        """The estimated agreement with the second judge alone: a fitted band promises its kept
        decisions agree at its target (with probability 1 - delta); the escalated ones are the
        second judge's own, so the run agrees at 1 - (1 - share) x (1 - target) or more."""
        if len(self.bands) != 1:
            return "estimated agreement with the second judge alone: not estimated (several bands in this file)"
        source, target, delta = next(iter(self.bands))
        if source == "jury":
            return "estimated agreement with the second judge alone: 1 (a jury: it decided everything)"
        if target is None:
            return (f"estimated agreement with the second judge alone: not estimated (band: {source}, not fitted; "
                    "`judgegraph escalation-fit`, then --agreement)")
        floor = 1 - (1 - share) * (1 - target)
        return (f"estimated agreement with the second judge alone: {floor:.3f} or more (band {source}: kept "
                f"decisions agree at {target:g} or more, with probability {1 - delta:g})")


DECISION_STEPS = {"ClaimCheck": "claim_verdict", "BatchClaimChecks": "claim_verdict",
                  "ContextRelevanceJudgment": "context_relevance", "AnswerRelevanceJudgment": "answer_relevance",
                  "AnswerRelevanceLabels": "answer_relevance"}
"""The steps (by reply schema) whose decision can be escalated."""


def dry_run_lines(steps: dict[str, int], fit_kept: dict[str, float] | None, second_judge: str) -> list[str]:
    """`--dry-run --escalate-to`: the calls the second judge may get (one per escalatable
    decision), and how many a fitted band expects (its tune rows' share kept per decision)."""
    by_decision: dict[str, int] = {}
    for step, calls in steps.items():
        if step in DECISION_STEPS:
            by_decision[DECISION_STEPS[step]] = by_decision.get(DECISION_STEPS[step], 0) + calls
    most = sum(by_decision.values())
    said = [f"second judge {second_judge}: at most {most:,} calls (one per escalatable decision: "
            + ", ".join(f"{name} {count:,}" for name, count in sorted(by_decision.items())) + ")"]
    if fit_kept is not None:
        expected = sum(count * (1 - fit_kept.get(name, 0.0)) for name, count in by_decision.items())
        share = expected / most if most else 0.0
        said.append(f"expected with the fitted band: about {expected:,.0f} calls ({share:.0%} of decisions "
                    "escalated, the share on the rows it was fitted on)")
    else:
        said.append("expected share escalated: not known before the run (the band is not fitted: "
                    "`judgegraph escalation-fit`, then --agreement)")
    return said
