"""The exit code of a one-item `evaluate`, and the lines that explain it on stderr.

Why its own module: the result JSON on stdout says everything in the rubric's own shape, but a
script calling `judgegraph evaluate item.json` reads the exit code first, so an invalid item or
a dead judge must not exit 0 with nothing on stderr. The table is docs/exit-codes.md:

- 0: every metric was judged or not applicable (a batch of one item exits the same way);
- 1: judged with failures: the item is invalid, or a metric could not be judged (each named
  on stderr, one line each);
- 2: the judge cannot be used (refused connection, key, unknown model): when a metric failed,
  the judge is probed (`llm.judge_probe`), and its one line names the URL and the cause. A
  metric measured without the judge (similarity by embeddings) does not hide a dead judge.
  The CLI asks `judge_problem` before it prints the result: a result the judge never judged
  (every metric null) is not printed on stdout, where a script would read it as an answer.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from ..graph.api import EvaluationRun
from ..graph.metrics_view import failure_of, run_metrics
from ..llm.judge_probe import JudgeUnreachableError, probe_judge
from ..run.context import JudgeContext
from ..text.visible import visible

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_JUDGE = 2


def _input_problem(run: EvaluationRun) -> str | None:
    return next((event.note or "invalid input" for event in run.trace
                 if event.node == "validate_input" and event.outcome == "failed"), None)


def _failed_metrics(run: EvaluationRun) -> list[tuple[str, str]]:
    """(metric, why) for every metric of the item's rubrics that could not be judged."""
    failed: list[tuple[str, str]] = []
    for name in run.rubrics:
        result: Any = run.result.get(name) if len(run.rubrics) > 1 else run.result
        for metric in run_metrics(name, result, run.scores.get(name)):
            if metric.status == "failed":
                failed.append((metric.key, metric.error or metric.comment or "not judged"))
    return failed


def judge_problem(run: EvaluationRun, context: JudgeContext) -> str | None:
    """Why the judge cannot be used (one line naming its URL), when a metric of a valid item
    failed and the probe confirms it; None otherwise (no probe when nothing failed)."""
    if _input_problem(run) is not None or context.endpoint is None:
        return None
    if not _failed_metrics(run) and failure_of(run.result) is None:
        return None
    try:
        probe_judge(context.model, endpoint=context.endpoint)
        if context.escalate_to is not None and context.escalate_to.endpoint is not None:
            probe_judge(context.escalate_to.model, endpoint=context.escalate_to.endpoint, role="second judge")
    except JudgeUnreachableError as error:
        return str(error)
    return None


def item_exit_code(run: EvaluationRun, context: JudgeContext, stderr: TextIO | None = None, *,
                   probe: bool = True) -> int:
    """The exit code for one judged item, after saying why on `stderr` (default: the process's
    stderr at call time) when it is not 0. `probe=False`: the caller asked `judge_problem`
    already, and the judge answered."""
    stderr = stderr or sys.stderr
    problem = _input_problem(run)
    if problem is not None:  # coverage scores missing content 0 (its seed's rule): judged, exit 0
        print(f"judgegraph: the item was not judged: {visible(str(problem))}", file=stderr)
        return EXIT_OK if _judged_any(run) else EXIT_FAILED
    failed = _failed_metrics(run)
    overall = failure_of(run.result)
    if not failed and overall is None:
        return EXIT_OK
    unreachable = judge_problem(run, context) if probe else None
    if unreachable is not None:
        print(f"judgegraph: {visible(unreachable)}", file=stderr)
        return EXIT_JUDGE
    for why, keys in _by_reason(failed).items():  # a reason shared by four metrics is said once
        print(f"judgegraph: {visible(', '.join(map(str, keys)))} not judged: {visible(str(why))}", file=stderr)
    if not failed and overall is not None:
        print(f"judgegraph: the item was not judged: {visible(str(overall))}", file=stderr)
    return EXIT_FAILED


def _by_reason(failed: list[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for key, why in failed:
        grouped.setdefault(why, []).append(key)
    return grouped


def _judged_any(run: EvaluationRun) -> bool:
    for name in run.rubrics:
        result: Any = run.result.get(name) if len(run.rubrics) > 1 else run.result
        if any(metric.status == "judged" for metric in run_metrics(name, result, run.scores.get(name))):
            return True
    return False
