"""Last node: every requested rubric's seed-shaped output, from the finished state.

It is a deferred node, so it waits for every branch however uneven. A deferred node does
not wait for Send tasks scheduled in the same step, though, so it also checks that every
fanned-out task has reported (`fanout_done` against `fanout_expected`); until then it returns
nothing, and the last task's edge triggers it again.

Each rubric's metrics are decided here, once, as typed `Score`s (`RubricSpec.finalize`), and
its seed-shaped output rendered from them; the scores stay in the state (`metric_scores`) for
every consumer of the run (`graph.api.EvaluationRun.scores`). The scores are decided with the run's calibration profile, resolved with its context
(`run.context.run_profile`): the rubrics' `build_result` reads it from the finished state
(`FinishedState.profile`), and the output names it (`profile_id`), so the trace and the batch
records say which profile scored the item.
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from ...run.context import JudgeContext, run_profile
from ...run.state import FinishedState, JudgeState
from ...run.tracing import plain_event
from ...schemas.metrics import Score
from .. import rubrics


def fanout_complete(state: JudgeState) -> bool:
    done = state.get("fanout_done", {})
    return all(done.get(node, 0) >= count for node, count in state.get("fanout_expected", {}).items())


def finalize(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict:
    if not fanout_complete(state):
        return {}
    started = time.perf_counter()
    profile = run_profile(runtime.context)
    scoring: FinishedState = {**state, "profile": profile}
    results: dict[str, dict] = {}
    scores: dict[str, dict[str, Score]] = {}
    errors = state.get("input_errors", {})
    inputs = state.get("inputs", {})
    for name in state.get("rubrics", [rubrics.DEFAULT_RUBRIC]):
        spec = rubrics.get(name)
        if name in errors:
            results[name], scores[name] = spec.failed(errors[name]), dict(spec.failed_scores(errors[name]))
        else:
            output, decided = spec.finalize(scoring, inputs[name])
            results[name], scores[name] = output, dict(decided)
    names = list(results)
    result = results[names[0]] if len(names) == 1 else results
    event = plain_event("finalize", started, rubrics=names)
    return {"results": results, "result": result, "metric_scores": scores, "trace": [event],
            "profile_id": profile.id}
