"""Scores recomputed from what a run recorded, under any profile, with no judge call.

Why: fitting a profile tries many candidate parameters on every fold. Each candidate must
give exactly the score a live run with that profile would give, so the recorded claims (their
signals: label probabilities, grounding, number conflicts, the judge's own answer) are decided
again by the same function the graph uses (`nodes.claims.verdict.decide_verdict`) and scored
by the same seed rules (`nodes.rag.faithfulness.decide_faithfulness`).

This module reads the `--details` of batch records (`batch.item_judging.run_details`); it
imports the nodes, so it sits above them, and is imported only by the fitting, the calibrate
command and the benchmarks that recompute recorded runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..batch.writer import iter_records
from ..calibration.claim_decisions import ClaimSignals, decide
from ..calibration.profile import FaithfulnessParameters
from ..llm.structured import StepOutcome
from ..nodes.claims.verdict import decide_verdict
from ..nodes.rag.faithfulness import FaithfulnessSignals, decide_faithfulness
from ..schemas.claims import CheckedClaim, ExtractedClaims
from ..schemas.inputs import to_passages
from .labels import Labels

R = TypeVar("R")


@dataclass(frozen=True)
class RecordedFaithfulness:
    """One judged item as the faithfulness decisions need it."""

    id: str
    passages: list[str]
    extraction: ExtractedClaims | None
    extraction_error: str | None
    claims: list[dict]
    """The recorded checked claims (JSON), in claim order."""


def judged_details(record: dict, metric: str) -> dict | None:
    """The record's details when it was judged for `metric`; None without details, or when its
    item asked for other metrics only (`"metrics": [...]`): such a record holds no signal of
    `metric`, and reading it as a failed step would fit on failures that never happened."""
    details = record.get("details")
    if not isinstance(details, dict):
        return None
    item = details.get("item") if isinstance(details.get("item"), dict) else {}
    asked = item.get("metrics")
    if isinstance(asked, list) and metric not in asked:
        return None
    return details


def recorded_faithfulness(record: dict) -> RecordedFaithfulness | None:
    """From a batch record written with `--details`; None when it has no details or was not
    judged for faithfulness."""
    details = judged_details(record, "faithfulness")
    if details is None:
        return None
    item = details.get("item") if isinstance(details.get("item"), dict) else {}
    claims = details.get("claims")
    extraction = ExtractedClaims.model_validate(claims) if isinstance(claims, dict) else None
    verdicts = [v for v in details.get("verdicts") or [] if isinstance(v, dict)]
    return RecordedFaithfulness(
        id=str(record.get("id")), passages=to_passages(item.get("context")), extraction=extraction,
        extraction_error=None if extraction is not None else "claim extraction failed",
        claims=sorted(verdicts, key=lambda v: v.get("index", 0)),
    )


def labelled_recordings(judged: Path, labels: Labels,
                        read: Callable[[dict], R | None] = recorded_faithfulness) -> list[tuple[R, float]]:
    """Each labelled item of `judged` (batch records written with `--details`) with its label,
    as `read` makes it of a record (faithfulness's recorded claims by default; another metric's
    reader, `fitting.fitted_metrics`, for that metric).

    One pair per id, the last record of it (a resumed run may have written an id twice), in the
    order ids first appear; an item with no label, or no details, is left out. Why one function:
    the fit and every comparison of profiles must recompute on the very same items.
    """
    records = {str(record.get("id")): record for _, record in iter_records(judged) if record is not None}
    wanted = {entry.id: entry.label for entry in labels.items}
    return [(recorded, wanted[item_id]) for item_id, record in records.items()
            if item_id in wanted and (recorded := read(record)) is not None]


def redecide(claim: dict, parameters: FaithfulnessParameters) -> CheckedClaim:
    """A recorded claim decided again under `parameters` (a failed check stays failed)."""
    return decide_verdict(CheckedClaim.model_validate(claim), parameters)


def faithfulness_score(recorded: RecordedFaithfulness, parameters: FaithfulnessParameters) -> float | None:
    """The seed's faithfulness (unrounded) under `parameters`; None where it fails or does not apply."""
    outcome: StepOutcome[Any] = StepOutcome(recorded.extraction, [], recorded.extraction_error)
    verdicts = [redecide(claim, parameters) for claim in recorded.claims]
    return decide_faithfulness(FaithfulnessSignals(recorded.passages, outcome, verdicts), parameters).score
