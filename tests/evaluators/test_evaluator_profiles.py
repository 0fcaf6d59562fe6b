"""The LangSmith evaluators apply a calibration profile file and name it in their feedback."""

from __future__ import annotations

import pytest

from judgegraph.calibration import ProfileError
from judgegraph.calibration.profile import write_profile
from tests.support.calibration_items import CONTEXT, GOOD, QUESTION, fitted_profile, scripted_judge


def test_evaluators_apply_a_profile_file_and_name_it(tmp_path):
    from judgegraph.evaluators import create_rag_evaluator

    path = tmp_path / "p.json"
    write_profile(fitted_profile("ScriptedJudge"), path)
    evaluator = create_rag_evaluator(model=scripted_judge(), metrics=["faithfulness"], calibration=str(path))
    rows = evaluator(inputs={"question": QUESTION}, outputs={"answer": f"Newmark started that listings venture {GOOD}.",
                                                             "context": CONTEXT})
    assert rows[0]["metadata"]["calibration_profile"] == "fitted-test" and rows[0]["score"] > 0.5
    with pytest.raises(ProfileError):
        create_rag_evaluator(model=scripted_judge(), calibration=str(tmp_path / "missing.json"))
