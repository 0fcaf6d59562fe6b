"""A profile with NaN, an infinity or an absurd number anywhere it holds a number is refused at
load with one line naming the field (`calibration.profile`'s bounds), through `load_profile`
and through `evaluate --calibration`."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgegraph.calibration.profile import LOGISTIC_BOUND, ProfileError, default_profile, load_profile
from judgegraph.commands import cli

HOSTILE = [math.nan, math.inf, -math.inf, 1e308, -1e308]


def base_profile() -> dict:
    """A profile with every kind of numeric field: the default's sections, logistic support
    and recall models, and a fit record."""
    data = default_profile().model_dump(mode="json")
    data["id"] = "hostile"
    data["faithfulness"]["parameters"]["support"] = {
        "kind": "logistic", "intercept": -1.0, "coefficients": {"p_supported": 2.0, "grounding": 1.0}}
    data["faithfulness"]["parameters"]["second_look_below"] = 0.8
    data["context_relevance"]["parameters"]["recall"] = {
        "kind": "logistic", "intercept": -0.5, "coefficients": {"p_yes": 3.0}}
    data["answer_relevance"]["fit"] = {"data_sha256": "0" * 64, "n": 40, "label_kind": "binary", "folds": 5,
                                      "figures": {"auroc": {"before": {"value": 0.6, "interval": [0.5, 0.7]}}},
                                      "learning_curve": [{"labels": 25, "value": 0.6}]}
    return data


NUMERIC_FIELDS = [
    ("faithfulness", "parameters", "contradiction_at"),
    ("faithfulness", "parameters", "supported_at"),
    ("faithfulness", "parameters", "own_answer_agrees_at"),
    ("faithfulness", "parameters", "second_look_below"),
    ("faithfulness", "parameters", "support", "intercept"),
    ("faithfulness", "parameters", "support", "coefficients", "p_supported"),
    ("context_relevance", "parameters", "answer_in_context_value", "partly"),
    ("context_relevance", "parameters", "recall", "intercept"),
    ("context_relevance", "parameters", "recall", "coefficients", "p_yes"),
    ("answer_relevance", "parameters", "directness_factor", "evasive"),
    ("answer_relevance", "fit", "n"),
    ("answer_relevance", "fit", "folds"),
    ("answer_relevance", "fit", "figures", "auroc", "before", "value"),
    ("answer_relevance", "fit", "learning_curve", 0, "value"),
]


def with_value(path: tuple, value) -> dict:
    data = base_profile()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def write(tmp_path, data: dict, name: str = "profile.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN and Infinity as Python reads them
    return path


def test_the_base_profile_loads(tmp_path):
    assert load_profile(write(tmp_path, base_profile())).id == "hostile"


@given(field=st.sampled_from(NUMERIC_FIELDS), value=st.sampled_from(HOSTILE))
def test_every_numeric_field_refuses_non_finite_and_absurd_values(tmp_path_factory, field, value):
    path = write(tmp_path_factory.mktemp("p"), with_value(field, value))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert "\n" not in message
    named = str(field[-1]) if not isinstance(field[-1], int) else "learning_curve"
    assert named in message


@given(value=st.floats(min_value=-LOGISTIC_BOUND, max_value=LOGISTIC_BOUND))
def test_logistic_weights_within_the_bound_load(tmp_path_factory, value):
    path = write(tmp_path_factory.mktemp("p"), with_value(("faithfulness", "parameters", "support", "intercept"), value))
    assert load_profile(path).faithfulness_parameters.support.intercept == value


def test_evaluate_refuses_a_nan_profile_in_one_line_before_judging(tmp_path, capsys):
    profile = write(tmp_path, with_value(("faithfulness", "parameters", "support", "intercept"), math.nan))
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "q", "context": "c", "answer": "a"}))
    code = cli.main(["evaluate", str(item), "--calibration", str(profile), "--model", "x",
                     "--base-url", "http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "intercept" in err and "finite" in err


def test_a_nan_label_value_no_longer_reads_as_a_recall(tmp_path):
    path = write(tmp_path, with_value(("context_relevance", "parameters", "answer_in_context_value", "yes"), math.nan))
    with pytest.raises(ProfileError, match="answer_in_context_value.yes"):
        load_profile(path)


def test_a_profile_nested_past_the_recursion_limit_is_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ProfileError, match="nested too deep"):
        load_profile(path)


def test_the_profile_fuzzer_finds_no_violation():
    from benchmarks.fuzz_shapes_profiles import main

    assert main(["--profiles", "150", "--seed", "3"]) == 0
