"""`assert_judged(item, faithfulness=0.8)`: a test fails unless each named metric of the item
reaches its threshold.

Why a function and not a pytest fixture: it reads like an `assert` in any test (parametrised
or not, in a fixture, in a helper) and also works in a plain script. Under pytest the plugin
(`testing.plugin`) gives it the session's judge and cache and collects the summary table;
without the plugin it judges with the judge the environment names, uncached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .session import active_session
from .thresholds import checked_thresholds, failure_message, outcomes

if TYPE_CHECKING:
    from ..graph.api import EvaluationRun


class ThresholdNotMet(AssertionError):
    """A judged metric below its threshold, not judged, or not applicable to the item; the
    message names each metric, its score, its threshold and its explanation."""


ThresholdNotMet.__module__ = "judgegraph.testing"  # where it is imported from, in failure reports


def _label(current_test: str | None, item: Any, number: int) -> str:
    if current_test:
        return current_test
    item_id = item.get("id") if isinstance(item, Mapping) else None
    return str(item_id) if item_id not in (None, "") else f"item {number}"


def assert_judged(item: Any, /, *, rubric: str | list[str] | None = None,
                  field_map: str | Mapping[str, str] | None = None, **thresholds: float) -> EvaluationRun:
    """Judge `item` and raise `ThresholdNotMet` unless every named metric reaches its threshold.

    A metric passes when it was judged with a score at or above its threshold; a metric that
    was not judged (null: the judge's reply never validated, the input was invalid) or does not
    apply to the item (no reference for `semantic_similarity`) fails, with its reason.

    Args:
        item: the item as judgegraph reads it (a dict in any field names it knows: RAGAS,
            DeepEval, LangChain; docs/input-fields.md), or one from `testing.items`.
        rubric: the rubric(s) to judge with when the item names none; None: told from its keys.
        field_map: {field: the item's key} for other names (an item from `testing.items` brings
            the file's own).
        **thresholds: `metric=threshold`, e.g. `faithfulness=0.8, answer_relevance=0.7`.

    Returns:
        The `EvaluationRun` (result, trace, claims and verdicts), when every metric passed.

    Raises:
        ThresholdNotMet: a metric below its threshold, null, or not applicable (an AssertionError).
        ValueError: no threshold, a metric no rubric has or the item's rubric has not, or a
            threshold every score meets or none can.
        TypeError: a threshold that is not a finite number.
        JudgeUnavailableError: the judge cannot be used; the pytest plugin ends the session.
    """
    __tracebackhide__ = True  # pytest shows the failure at the test's own line, not in here
    checked = checked_thresholds(thresholds)
    session = active_session()
    if field_map is None:
        field_map = getattr(item, "field_map", None)
    run, calls, hits = session.judge(item, rubric=rubric, field_map=field_map)
    label = _label(session.current_test, item, len(session.costs) + 1)
    try:
        found = outcomes(run, checked)
    except ValueError:
        session.record(label, run, calls, hits, [])
        raise
    session.record(label, run, calls, hits, found)
    if any(outcome.status == "failed" for outcome in found):
        session.check_judge()  # a null score from a judge that is gone ends the session instead
    if not all(outcome.passed for outcome in found):
        raise ThresholdNotMet(failure_message(label, found))
    return run
