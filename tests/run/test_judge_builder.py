"""One way to build a judge (issue 56, item 3): every entry point turns (a model or its name,
the run's flags, a profile) into a `JudgeContext` through `run.judge_builder.build_judge`, and
`ModelSpec` is defined once."""

from __future__ import annotations

import ast

from judgegraph.calibration.profile import default_profile, write_profile
from judgegraph.graph import api as graph_api
from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.run import judge_builder
from judgegraph.run.judge_builder import build_judge
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.test_import_cycles import ROOT, module_files

BUILDERS = {"run/context.py", "run/judge_builder.py"}
"""Where a `JudgeContext(...)` may be built: the class's own module (a context without a judge,
resolved in the graph's first step) and the one function every entry point calls."""


def _shipped_modules():
    for path in sorted(module_files().values()):
        yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_no_module_but_the_builder_makes_a_judge_context():
    makers = sorted(
        name for name, tree in _shipped_modules() if name not in BUILDERS
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "JudgeContext"
    )
    assert makers == []


def test_model_spec_is_defined_once():
    from judgegraph.batch import api as batch_api
    from judgegraph.evaluators import factories, threads

    assert graph_api.ModelSpec is judge_builder.ModelSpec
    assert factories.ModelSpec is judge_builder.ModelSpec
    assert threads.ModelSpec is judge_builder.ModelSpec
    assert batch_api.ModelSpec is judge_builder.ModelSpec
    definitions = [name for name, tree in _shipped_modules() for node in tree.body
                   if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ModelSpec" for t in node.targets)]
    assert definitions == ["run/judge_builder.py"]


def test_evaluate_reads_a_profile_file_as_the_evaluators_do(tmp_path, rag_item):
    """`calibration=` may name a profile file in the Python API too (it was only the evaluators')."""
    path = tmp_path / "mine.json"
    write_profile(default_profile().model_copy(update={"id": "mine"}), path)
    run = run_evaluation(rag_item, model=fakes.judge(**happy_scripts()), calibration=str(path))
    assert run.profile_id == "mine"
    assert evaluate(rag_item, model=fakes.judge(**happy_scripts()), calibration=path)["evaluation_status"] == "success"


def test_settings_given_with_no_model_are_kept(rag_item):
    """No model: the default judge is resolved by the graph's first step, and the settings
    given with it still hold (they were dropped by the Python API)."""
    context = build_judge(None, max_repairs=0, claim_check="batch")
    assert context.model is None
    assert (context.max_repairs, context.claim_check) == (0, "batch")


def test_a_chat_model_is_named_the_same_way_everywhere():
    judge = fakes.judge(**happy_scripts())
    assert build_judge(judge).model_id == build_judge(judge, resolve_now=True).model_id
    assert build_judge(judge, model_id="mine").model_id == "mine"


def test_a_named_judge_keeps_where_it_is_reached(monkeypatch):
    monkeypatch.delenv("JUDGEGRAPH_MODEL", raising=False)
    context = build_judge("demo", base_url="http://127.0.0.1:9/v1", max_repairs=1)
    assert context.endpoint == "http://127.0.0.1:9/v1"
    assert context.model_id == "openai-compatible:demo@http://127.0.0.1:9/v1"
    assert context.max_repairs == 1
