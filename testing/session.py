"""A test session's judge: set up on the first `assert_judged`, its replies cached, every
judged metric kept for the summary table.

Why one object per session: building the judge (and starting the embedded one) is done once,
not per test, and only by a session that judges something: a project that installs judgegraph
but never calls `assert_judged` pays nothing. The step cache is the CLI's (`batch.cache`,
keyed by the judge's identity and each step's rendered prompt), so an unchanged item is
answered from it on the next run without a call, and changing one prompt re-asks only the
steps whose prompt changed.

A judge that cannot be used (no connection, key refused, unknown model, a model that cannot be
set up) is not a failed assertion: `JudgeUnavailableError` says where and why, and the pytest
plugin ends the session with it. Whether the judge answers is asked only when a metric came
back not judged (`llm.judge_probe`, as the one-item CLI does), so a session served from the
cache makes no request at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .settings import JudgeSettings
from .thresholds import Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..batch.cache import SqliteStepCache
    from ..graph.api import EvaluationRun
    from ..run.context import JudgeContext

GITIGNORE = "# written by judgegraph's pytest plugin: cached judge replies, not sources\n*\n"


class JudgeUnavailableError(Exception):
    """The judge cannot be used as configured; the message names where and why, in one line."""


@dataclass(frozen=True)
class ItemCost:
    """What judging one item cost: model calls made (cache hits excluded) and tokens."""

    label: str
    calls: int
    cache_hits: int
    input_tokens: int
    output_tokens: int


@dataclass
class JudgeSession:
    """The judge and the record of one test session (see the module docstring)."""

    settings: JudgeSettings = field(default_factory=JudgeSettings)
    current_test: str | None = None
    """The test being run (its node id), set by the plugin: the label of the items it judges."""
    outcomes: list[tuple[str, Outcome]] = field(default_factory=list)
    costs: list[ItemCost] = field(default_factory=list)
    unavailable: str | None = None
    """Why the judge cannot be used, once that is known: every later judgement is refused."""
    judge_id: str | None = None
    cache: SqliteStepCache | None = None
    _context: JudgeContext | None = None

    def _refuse(self, reason: str) -> JudgeUnavailableError:
        self.unavailable = reason
        return JudgeUnavailableError(reason)

    def context(self) -> JudgeContext:
        """The session's judge, set up on first use (raises `JudgeUnavailableError`)."""
        if self.unavailable is not None:
            raise JudgeUnavailableError(self.unavailable)
        if self._context is None:
            self._context = self._set_up()
        return self._context

    def _set_up(self) -> JudgeContext:
        from ..batch.cache import CacheError, attach_cache
        from ..llm.models import ModelConfigError
        from ..run.judge_builder import build_judge

        try:
            escalation = ({"escalate_to": self.settings.escalate_to, "escalate_base_url": self.settings.escalate_base_url}
                          if self.settings.escalate_to else {})
            context = build_judge(self.settings.model, base_url=self.settings.base_url, resolve_now=True, **escalation)
        except ModelConfigError as error:
            raise self._refuse(f"cannot set up the judge: {error}") from error
        self.judge_id = context.model_id
        if self.settings.cache is not None:
            folder = self.settings.cache.parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
                ignore = folder / ".gitignore"
                if not ignore.exists():
                    ignore.write_text(GITIGNORE, encoding="utf-8")
                self.cache = attach_cache(context.model, self.settings.cache, context.model_id)
            except (OSError, CacheError) as error:
                raise self._refuse(f"cannot use the judge's cache {self.settings.cache}: {error}") from error
        return context

    def judge(self, item: Any, *, rubric: str | list[str] | None = None,
              field_map: str | Mapping[str, str] | None = None) -> tuple[EvaluationRun, int, int]:
        """(the run, model calls made, cache hits) for one item, judged by the session's judge."""
        from ..graph.api import run_evaluation

        context = self.context()
        hits_before = self.cache.hits if self.cache is not None else 0
        run = run_evaluation(item, model=context, rubric=rubric, field_map=field_map)
        hits = (self.cache.hits if self.cache is not None else 0) - hits_before
        return run, max(0, run.usage["calls"] - hits), hits

    def check_judge(self) -> None:
        """Raise `JudgeUnavailableError` unless the judge answers (a judge whose address is
        not known, a chat model handed in, is not asked)."""
        from ..llm.judge_probe import JudgeUnreachableError, probe_judge

        context = self.context()
        if context.endpoint is None:
            return
        try:
            probe_judge(context.model, endpoint=context.endpoint)
            second = context.escalate_to
            if second is not None and second.endpoint is not None:
                probe_judge(second.model, endpoint=second.endpoint, role="second judge")
        except JudgeUnreachableError as error:
            raise self._refuse(str(error)) from error

    def record(self, label: str, run: EvaluationRun, calls: int, hits: int, found: list[Outcome]) -> None:
        usage = run.usage
        self.costs.append(ItemCost(label, calls, hits, usage["input_tokens"], usage["output_tokens"]))
        self.outcomes.extend((label, outcome) for outcome in found)


_active: JudgeSession | None = None


def activate(session: JudgeSession | None) -> None:
    """Make `session` the one `assert_judged` judges with (the plugin's, per pytest session);
    None: back to a session from the environment, made on first use."""
    global _active
    _active = session


def active_session() -> JudgeSession:
    """The session `assert_judged` judges with: the plugin's, else (outside pytest, or with the
    plugin disabled) one from the environment, without a cache."""
    global _active
    if _active is None:
        _active = JudgeSession()
    return _active
