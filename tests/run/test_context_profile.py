"""The calibration profile is resolved once, where the run's context is built, and the nodes
read it from the context (`JudgeContext.profile`): no node chooses one, none passes one on
through the state."""

from __future__ import annotations

import pytest

from judgegraph.calibration import profile as profiles
from judgegraph.calibration.profile import ProfileMismatchError, default_profile, shipped_profiles
from judgegraph.graph.api import run_evaluation
from judgegraph.llm import models
from judgegraph.llm.openai_compatible import ResolvedModel
from judgegraph.run.context import JudgeContext, run_profile
from tests.support import fakes
from tests.conftest import happy_scripts

EMBEDDED = next(p for p in shipped_profiles() if p.judge_model)
"""A shipped profile fitted for one judge (the embedded one)."""


def test_a_context_carries_the_profile_of_its_judge():
    assert JudgeContext(model_id="scripted:a").profile == default_profile()
    assert JudgeContext(model_id=EMBEDDED.judge_model).profile == EMBEDDED


def test_a_chosen_profile_is_checked_against_the_judge_when_the_context_is_built():
    chosen = EMBEDDED.model_copy(update={"id": "fitted-elsewhere"})
    with pytest.raises(ProfileMismatchError, match="fitted-elsewhere"):
        JudgeContext(model_id="scripted:a", calibration=chosen)
    allowed = JudgeContext(model_id="scripted:a", calibration=chosen, allow_profile_mismatch=True)
    assert allowed.profile is chosen


def test_setting_what_the_profile_depends_on_resolves_it_again():
    context = JudgeContext(model_id="scripted:a")
    context.model_id = EMBEDDED.judge_model
    assert context.profile == EMBEDDED
    chosen = default_profile().model_copy(update={"id": "mine"})
    context.calibration = chosen
    assert context.profile is chosen


def test_a_run_resolves_its_profile_once_when_its_context_is_built(monkeypatch, rag_item):
    calls = []
    resolve = profiles.profile_for
    monkeypatch.setattr(profiles, "profile_for", lambda context: calls.append(context) or resolve(context))
    import judgegraph.run.context as context_module

    monkeypatch.setattr(context_module, "profile_for", profiles.profile_for)
    context = JudgeContext(model=fakes.judge(**happy_scripts()), model_id="scripted:a")
    assert len(calls) == 1
    run = run_evaluation(rag_item, model=context)
    assert run.result["evaluation_status"] == "success"
    assert len(calls) == 1  # three claims, context and answer relevance, finalize: none chose again
    assert run.profile_id == "default"


def test_a_graph_given_no_model_decides_with_its_default_judges_profile(monkeypatch, rag_item):
    """An app's graph invoked without a model resolves the default judge in its steps; the scores
    are decided, and named, with that judge's profile, the same in every step and in finalize."""
    judge = ResolvedModel(fakes.judge(**happy_scripts()), EMBEDDED.judge_model, "json_schema")
    monkeypatch.setattr(models, "_default_judge", None)
    assert run_profile(JudgeContext()) == default_profile()  # no judge resolved yet: none is started
    monkeypatch.setattr(models, "resolve_model", lambda *args, **kwargs: judge)
    run = run_evaluation(rag_item)
    assert run.profile_id == EMBEDDED.id
    assert run_profile(None) == EMBEDDED
    chosen = default_profile().model_copy(update={"id": "mine"})
    assert run_profile(JudgeContext(calibration=chosen)) is chosen
