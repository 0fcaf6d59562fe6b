"""What `judgegraph calibrate` refuses: labels it cannot fit, and fits it must not write.

Why: a fit on two labels, on labels all of one class, or on items all of one group ends in a
scikit-learn error deep in the cross-validation; and a fit on labels that carry no information
(the judge's signals do not tell the items apart) comes out as a constant, a support of 0.5 for
every claim, which applied reads every claim as "supported". Both are refused with one line
saying why (`commands.calibrate`, exit 2):

- `labels_refusal`, before any judge call and again on the items that were judged: at least
  `MIN_LABELS` labels and two per fold, at least two values, for binary labels each class on
  at least two items (a stratified fold needs one of each on each side), and with groups at
  least two groups (a group stays in one fold);
- `fit_refusal`, after the fit: a profile whose held-out primary figure is below the start's
  (the fit made the judge agree less with the labels), or one that ignores the judge (its
  fitted model reads no signal, or it gives every labelled item the same score), is not written
  unless `--force` says it is wanted, and then with a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .agreement import PRIMARY
from .labels import LabelKind

MIN_LABELS = 8
"""The fewest labels a fit is attempted on (docs/calibration.md asks for 25 or more)."""
WORSE_BY = 1e-9
"""How far below the start's held-out figure the fit's must be to count as worse (float noise)."""


def labels_refusal(values: Sequence[float], kind: LabelKind, groups: Sequence[str] | None, folds: int) -> str | None:
    """Why these labels cannot be fitted with `folds` folds (one phrase), or None."""
    needed = max(MIN_LABELS, 2 * folds)
    if len(values) < needed:
        return (f"{len(values)} labelled item(s); a fit with {folds} folds needs at least {needed} "
                f"(25 or more to be worth writing)")
    distinct = set(values)
    if len(distinct) < 2:
        return f"every label is {next(iter(distinct)):g}: a fit needs both good and bad items"
    if kind == "binary":
        rarest = min(distinct, key=lambda value: sum(1 for v in values if v == value))
        count = sum(1 for v in values if v == rarest)
        if count < 2:
            return (f"only {count} item is labelled {rarest:g}: each class needs at least 2 items "
                    f"(one on each side of a fold)")
    if groups is not None and len(set(groups)) < 2:
        return "every labelled item is in one group: groups stay in one fold, so a fit needs at least 2"
    return None


def _ignores_the_judge(parameters: Any) -> bool:
    """Whether a fitted logistic model (support or recall) reads no signal: a constant."""
    for name in ("support", "recall"):
        model = getattr(parameters, name, None)
        if getattr(model, "kind", None) == "logistic" and not any(model.coefficients.values()):
            return True
    return False


def fit_refusal(figures: dict, kind: LabelKind, fitted: Any, items: Sequence[Any],
                score: Callable[[Any, Any], float | None]) -> str | None:
    """Why the fitted parameters must not be written without `--force` (one phrase), or None.
    `figures` are the held-out figures (`cross_validation.held_out_figures`), `score` the
    metric's recomputation of an item under parameters."""
    if _ignores_the_judge(fitted):
        return ("the fit reads none of the judge's signals (a constant score): the labels carry no "
                "information the signals can tell apart")
    scores = {score(item, fitted) for item in items} - {None}
    if len(items) > 1 and len(scores) == 1:
        return f"the fit gives every labelled item the same score ({scores.pop():g}): it ignores the judge"
    primary = PRIMARY[kind]
    figure = figures.get(primary) or {}
    before = (figure.get("before") or {}).get("value")
    after = (figure.get("after") or {}).get("value")
    if before is not None and after is not None and after < before - WORSE_BY:
        return (f"held-out {primary} is worse after the fit than with the start profile "
                f"({after:.3f} < {before:.3f})")
    return None
