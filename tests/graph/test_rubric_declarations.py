"""Every rubric's declaration holds together: its outputs are its output models, its nodes
are unique, detection follows the tuple's order."""

from __future__ import annotations

import pytest

from judgegraph.graph import rubrics


@pytest.mark.parametrize("spec", rubrics.RUBRICS, ids=lambda spec: spec.name)
def test_the_failure_output_is_one_of_the_declared_output_models(spec):
    output = spec.failed("Input parsing error: missing answer.")
    parsed = [model.model_validate(output) for model in spec.output_models if _validates(model, output)]
    assert parsed and parsed[0].model_dump() == output


def _validates(model, output) -> bool:
    try:
        model.model_validate(output)
    except ValueError:
        return False
    return True


def test_names_are_unique_and_in_detection_order():
    assert rubrics.names() == ["coverage", "expected_output", "liverag", "rag"]
    assert rubrics.DEFAULT_RUBRIC == "rag"
    assert [rubrics.get(name).name for name in rubrics.names()] == rubrics.names()


def test_distinctive_keys_win_over_rags_generic_ones():
    common = {"question": "q", "answer": "a", "context": "c"}
    assert rubrics.detect(common) == "rag"
    assert rubrics.detect(common | {"documents": []}) == "liverag"
    assert rubrics.detect(common | {"output_text": "o"}) == "coverage"
    assert rubrics.detect({"actualOutput": "a"}) == "expected_output"
    assert rubrics.detect({"nothing": 1}) is None


def test_every_node_is_added_once_and_shared_nodes_are_the_same_node():
    names = [node.name for node in rubrics.all_nodes()]
    assert len(names) == len(set(names))
    claim_nodes = {spec.name: [n for n in spec.nodes if n.name == "extract_claims"] for spec in rubrics.RUBRICS}
    assert claim_nodes["rag"] == claim_nodes["liverag"]


def test_every_declared_rubric_has_an_evaluator_by_name():
    from judgegraph.evaluators import create_evaluator, create_liverag_evaluator
    from tests.nodes.liverag.test_liverag import DOCUMENTS, live_judge

    call = {"inputs": {"question": "Who founded Craigslist, and when was 24 Hours on Craigslist released?"},
            "outputs": {"answer": "Craig Newmark founded Craigslist; the documentary came out in 2005.",
                        "documents": list(DOCUMENTS)}}
    by_name = create_evaluator("liverag", model=live_judge())(**call)
    named = create_liverag_evaluator(model=live_judge())(**call)
    assert [r["key"] for r in by_name] == ["liverag_relevance", "liverag_faithfulness"]
    assert by_name == named
    with pytest.raises(ValueError, match="rag metrics"):
        create_evaluator("coverage", metrics=["faithfulness"])
    with pytest.raises(KeyError):
        create_evaluator("no_such_rubric")
