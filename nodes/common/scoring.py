"""Small arithmetic shared by the rubrics' scoring code. Rounding is half-up, never banker's."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


def round_half_up(value: float, places: int = 2) -> float:
    """`round()` is banker's rounding (0.125 -> 0.12); rubrics say "round", meaning 0.13."""
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(str(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def round_half_up_int(value: float) -> int:
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class MetricScore:
    """One metric's value with the sentence that justifies it, or the error that prevented it."""

    score: float | None
    explanation: str | None
    error: str | None = None

    @classmethod
    def failed(cls, metric: str, error: str) -> "MetricScore":
        return cls(None, f"{metric} could not be judged: {error}", error)
