"""What a person answers for each metric: the values of its label, their names and their keys.

Why these scales and not the judge's: people agree on "faithful or not" far more than on 0.73,
and `calibrate` and `estimate` read binary labels as "higher = better" (1 faithful, 0 not). The
rubrics whose seeds define a discrete scale keep it: liverag's relevance -1..2 and faithfulness
-1..1 (the seed's wording for each step), coverage's 0..5. A metric with no scale here (semantic
similarity, citations, expected_output's per-item ranges) is not labelled: `--metric` naming it
is refused.

Keys: the value itself for 0..9, and `-` for -1 (the only negative step of any scale), so the
key a person presses is the number they mean.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LabelValue:
    value: int
    key: str
    """The key that gives this value on the page and in the terminal."""
    name: str


@dataclass(frozen=True)
class LabelScale:
    metric: str
    question: str
    """What the person is asked, in one line."""
    values: tuple[LabelValue, ...]
    """Best first."""

    @property
    def low(self) -> int:
        return min(v.value for v in self.values)

    @property
    def high(self) -> int:
        return max(v.value for v in self.values)

    def by_key(self, key: str) -> LabelValue | None:
        return next((v for v in self.values if v.key == key), None)

    def by_value(self, value: object) -> LabelValue | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return None
        return next((v for v in self.values if v.value == value), None)


def _key(value: int) -> str:
    return "-" if value == -1 else str(value)


def _scale(metric: str, question: str, *named: tuple[int, str]) -> LabelScale:
    return LabelScale(metric, question, tuple(LabelValue(value, _key(value), name) for value, name in named))


SCALES: dict[str, LabelScale] = {scale.metric: scale for scale in (
    _scale("faithfulness", "Is every claim of the answer supported by the context?",
           (1, "faithful"), (0, "not faithful")),
    _scale("context_relevance", "Does the context hold what the question needs?",
           (1, "relevant"), (0, "not relevant")),
    _scale("answer_relevance", "Does the answer answer the question?",
           (1, "relevant"), (0, "not relevant")),
    _scale("liverag_relevance", "How well does the response answer the question?",
           (2, "correct, nothing irrelevant"), (1, "useful, some irrelevant content"),
           (0, "no answer (\"I don't know\")"), (-1, "does not answer the question")),
    _scale("liverag_faithfulness", "Is the response grounded in the retrieved passages?",
           (1, "full support"), (0, "partial support"), (-1, "no support")),
    _scale("coverage", "How much of the reference does the response cover?",
           (5, "all of it"), (4, "most"), (3, "more than half"), (2, "less than half"), (1, "little"),
           (0, "none, or the content is missing")),
)}
"""Every metric a person can label, by its metric key (`MetricSpec.key`)."""


class ScaleError(ValueError):
    """A metric that cannot be labelled; one line."""


def scales_for(metrics: list[str]) -> list[LabelScale]:
    """The scales of `metrics`, in order; `ScaleError` naming the first one with no scale."""
    unknown = [metric for metric in metrics if metric not in SCALES]
    if unknown:
        raise ScaleError(f"cannot label {', '.join(unknown)}: a person labels {', '.join(SCALES)}")
    return [SCALES[metric] for metric in dict.fromkeys(metrics)]
