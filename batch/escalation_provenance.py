"""An escalating run's part of its provenance: the second judge and the band (`--escalate-to`).

Why it belongs in the provenance: with `--escalate-to` some verdicts are the second judge's,
read under its own profile, and which ones depends on the band. Two runs with the same first
judge but another second judge, another band (the default, a fit for another `--agreement`,
`--escalate-band all`) or no escalation at all are judged by different judges. So `compare`
must say so, and a resume with other escalation flags must be refused like any other change of
judge (`batch.retry`). A run without `--escalate-to` adds nothing: its records stay
byte-identical to those written before escalation existed.

The band is stamped as it was resolved for the run (`run.escalation.band_of`): its bounds per
decision and where they came from (`default`, `jury`, `fit 0.95 (profile <id>)`,
`--escalate-band 0.9`), with a fitted band's promise (target, delta).
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from ..calibration.escalation_band import DECISIONS
from ..calibration.profile import judge_identity
from ..run.context import JudgeContext
from ..run.escalation import band_of

ESCALATION_KEY = "escalation"
"""The provenance key, present only when the run escalates."""


class EscalationStamp(TypedDict):
    second_judge: str
    """The second judge's model id, as the records' `escalation` details name it."""
    band: dict[str, list[float]]
    """Per decision, the band (low, high): a probability strictly inside it is escalated."""
    band_source: str
    """Where the band came from: `default`, `jury` (`--escalate-band all`), `fit <T> (profile
    <id>)` (`--agreement T`) or `--escalate-band <c>`."""
    target: NotRequired[float]
    delta: NotRequired[float]
    """A fitted band's promise: kept decisions agree with the second judge at `target` or more,
    with probability 1 - `delta`."""


def escalation_stamp(context: JudgeContext) -> EscalationStamp | None:
    """The stamp of a run judged with `context`; None when it does not escalate.

    Raises ValueError for an `--agreement` the profile holds no fit for (`band_of`); the judge
    builder refuses that before any run (`run.judge_builder`)."""
    if context.escalate_to is None:
        return None
    band = band_of(context)
    stamp = EscalationStamp(second_judge=context.escalate_to.model_id,
                            band={decision: list(band.bounds(decision)) for decision in DECISIONS},
                            band_source=band.source)
    if band.target is not None:
        stamp["target"] = band.target
    if band.delta is not None:
        stamp["delta"] = band.delta
    return stamp


def described(stamp: Any) -> str:
    """A stamp in words, for a one-line message: `to <second judge>, band default (0.2, 0.8)`."""
    if stamp is None:
        return "none"
    if not isinstance(stamp, dict):  # file text that is no stamp: shown as it is
        return str(stamp)
    return f"to {stamp.get('second_judge')}, band {band_described(stamp)}"


def band_described(stamp: dict) -> str:
    """`default (0.2, 0.8)`; per decision when the decisions' bounds differ."""
    bounds = stamp.get("band") if isinstance(stamp.get("band"), dict) else {}
    shown = {decision: f"({_number(pair[0])}, {_number(pair[1])})" for decision, pair in bounds.items()
             if isinstance(pair, list) and len(pair) == 2}
    if len(set(shown.values())) == 1:
        bounds_text = next(iter(shown.values()))
    else:
        bounds_text = ", ".join(f"{decision} {pair}" for decision, pair in shown.items())
    promise = f", target {stamp['target']}" if "target" in stamp else ""
    return f"{stamp.get('band_source')} {bounds_text}{promise}".strip()


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def escalation_changes(before: Any, after: Any, *, by_identity: bool) -> list[str]:
    """What differs between two runs' escalation stamps, one phrase each (empty: the same).

    `by_identity`: compare the second judges by identity, not by the URL they are served at
    (a resume, like the first judge: `calibration.profile.judge_identity`)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [] if before == after else [f"escalation {described(before)} -> {described(after)}"]
    changes: list[str] = []
    old_judge, new_judge = before.get("second_judge"), after.get("second_judge")
    if by_identity:
        old_judge, new_judge = judge_identity(str(old_judge)), judge_identity(str(new_judge))
    if old_judge != new_judge:
        changes.append(f"second judge {before.get('second_judge')} -> {after.get('second_judge')}")
    band_keys = ("band", "band_source", "target", "delta")
    if any(before.get(key) != after.get(key) for key in band_keys):
        changes.append(f"escalation band {band_described(before)} -> {band_described(after)}")
    return changes
