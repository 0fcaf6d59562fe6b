"""Figures for yes/no decisions against yes/no labels (e.g. "hallucinated" flags).

Balanced accuracy rather than accuracy: the benchmark sets are not balanced, and 0.5 stays
chance level whatever the share of positives. Cohen's kappa, for agreement between two raters
(a judge and a human, or two judges) corrected for agreement by chance.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def balanced_accuracy(predicted: Sequence[bool], actual: Sequence[bool]) -> float | None:
    """Mean of the true-positive and true-negative rates; None unless `actual` has both classes."""
    if len(set(map(bool, actual))) < 2:
        return None
    from sklearn.metrics import balanced_accuracy_score  # scikit-learn loads only when a figure is asked for

    return float(balanced_accuracy_score([bool(a) for a in actual], [bool(p) for p in predicted]))


def best_threshold(scores: Sequence[float], positives: Sequence[bool]) -> tuple[float | None, float | None]:
    """The threshold t maximising balanced accuracy of "positive iff score < t", and that accuracy.

    Scores are "higher = better" (e.g. faithfulness) and positives are the failures to catch
    (hallucinations), so a low score flags. The candidates are the distinct scores themselves
    (t = 1.0 is the fixed rule "hallucinated iff faithfulness < 1"); the first best one wins. The
    threshold is chosen on the items it is scored on: an optimistic, in-sample figure, to be
    reported as such (or chosen on one part of the data and scored on another).
    """
    best: tuple[float | None, float | None] = (None, None)
    for threshold in sorted(set(scores)):
        accuracy = balanced_accuracy([s < threshold for s in scores], positives)
        if accuracy is not None and (best[1] is None or accuracy > best[1]):
            best = (threshold, accuracy)
    return best


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's kappa between two raters' labels of the same items (any labels, e.g. verdicts);
    None when it is undefined (no items, or both raters always give the same one label)."""
    if len(first) != len(second) or len(set(first) | set(second)) < 2:
        return None  # one label in all: chance agreement is 1, and kappa is 0/0
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(first), list(second)))
