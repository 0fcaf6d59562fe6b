"""`judgegraph escalation-fit`: the escalation band fitted on items both judges decided.

Input: a results file of a jury run (`--escalate-to M --escalate-band all --details`): every
decision was asked of both judges, and its trace detail holds both probabilities (`run.escalation`).
A decision agrees when both judges' probabilities fall on the same side of 0.5 (a claim
supported or not, a context relevant or not, an answer answering or not). Per decision kind and
per agreement target, `stats.fixed_sequence.fit_threshold` picks the loosest confidence whose kept
decisions agree with the second judge at the target with probability 1 - delta; the fits go into
the first judge's profile (`calibration.escalation_band.EscalationSection`), which `--agreement`
then reads.

Decisions the first judge made without log-probabilities are left out: they are always escalated.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..batch.escalation_usage import decisions_of
from ..batch.writer import iter_records
from ..calibration.escalation_band import DECISIONS, EscalationFit, EscalationSection, target_key
from ..calibration.profile import Profile
from ..stats.fixed_sequence import fit_threshold


class EscalationFitError(ValueError):
    """A results file the band cannot be fitted from; one line saying what to run instead."""


@dataclass(frozen=True)
class PairedDecision:
    decision: str
    confidence: float
    agrees: bool


@dataclass(frozen=True)
class JuryRun:
    decisions: list[PairedDecision]
    first_judge: str | None
    second_judge: str | None
    data_sha256: str


def read_jury_run(path: Path) -> JuryRun:
    """Every decision of `path` both judges made, with the first judge's confidence."""
    decisions, first, second = [], None, None
    for _, record in iter_records(path):
        nodes = ((record or {}).get("details") or {}).get("nodes") or []
        for entry in decisions_of(nodes):
            first, second = entry.get("first_judge") or first, entry.get("second_judge") or second
            p_first, p_second = entry.get("p_first"), entry.get("p_second")
            if entry.get("decided_by") != "second" or not entry.get("first_graded") \
                    or not isinstance(p_first, (int, float)) or not isinstance(p_second, (int, float)):
                continue
            decisions.append(PairedDecision(str(entry.get("decision")), max(p_first, 1 - p_first),
                                            (p_first >= 0.5) == (p_second >= 0.5)))
    if not decisions:
        raise EscalationFitError(
            f"{path.name} holds no decision both judges made with the first judge's log-probabilities: run "
            "`judgegraph evaluate ... --escalate-to MODEL --escalate-band all --details --out FILE` first")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return JuryRun(decisions, first, second, digest)


def fit_escalation(run: JuryRun, targets: list[float], delta: float) -> EscalationSection:
    """One `EscalationFit` per target: per decision kind, the fixed-sequence threshold (a kind
    with no paired decision keeps the default band's place: it is escalated as the default says)."""
    by_kind: dict[str, list[PairedDecision]] = defaultdict(list)
    for decision in run.decisions:
        by_kind[decision.decision].append(decision)
    fits = {}
    for target in targets:
        confidence, figures = {}, {}
        for kind in DECISIONS:
            paired = by_kind.get(kind)
            if not paired:
                continue
            fitted = fit_threshold([d.confidence for d in paired], [d.agrees for d in paired], target, delta)
            confidence[kind] = fitted.threshold
            figures[kind] = {"n": fitted.n, "kept": fitted.kept, "disagreeing": fitted.disagreeing,
                             "kept_share": round(fitted.kept_share, 4),
                             "p_value": None if fitted.p_value is None else round(fitted.p_value, 6),
                             "agreement_before": round(sum(d.agrees for d in paired) / len(paired), 4)}
        fits[target_key(target)] = EscalationFit(target=target, delta=delta, confidence=confidence,
                                                 second_judge=run.second_judge, data_sha256=run.data_sha256,
                                                 figures=figures)
    return EscalationSection(fits=fits)


def with_escalation(profile: Profile, section: EscalationSection, new_id: str | None) -> Profile:
    """`profile` holding the fitted section (fits for other targets it held are kept)."""
    held = dict(profile.escalation.fits) if profile.escalation is not None else {}
    merged = EscalationSection(fits=held | section.fits)
    return profile.model_copy(update={"escalation": merged, "id": new_id or profile.id})
