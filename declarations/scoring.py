"""Small arithmetic shared by the rubrics' scoring code. Rounding is half-up, never banker's."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def round_half_up(value: float, places: int = 2) -> float:
    """`round()` is banker's rounding (0.125 -> 0.12); rubrics say "round", meaning 0.13."""
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(str(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def round_half_up_int(value: float) -> int:
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
