"""Context relevance: recall from the judge's graded "is the answer in the context?",
precision from the lines it marks useful, weighed by the evaluation goal in code.

Precision's exact formula may still be tuned: expectations are computed through the node's
own decision (`decide_context_relevance`, `precision_of`) and `combine`, and only its end points
(no useful line, every line) are fixed here.
"""

from __future__ import annotations

import pytest

from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.llm.structured import StepOutcome
from judgegraph.calibration import default_profile
from judgegraph.calibration.relevance_decisions import RecallSignals
from judgegraph.nodes.rag.context_relevance import (
    ContextRelevanceSignals,
    combine,
    decide_context_relevance,
    precision_of,
    recall_weight,
    reply_probabilities,
)
from judgegraph.schemas.rag import ContextRelevanceJudgment
from tests.support import fakes
from tests.conftest import happy_scripts


def outcome(answer_in_context: str, useful_lines=(), token_logprobs=None) -> StepOutcome:
    return StepOutcome(ContextRelevanceJudgment(answer_in_context=answer_in_context, useful_lines=list(useful_lines)),
                       [], None, token_logprobs)


# --- the seed's worked examples, through `combine` ------------------------------------------

@pytest.mark.parametrize(
    ("recall", "precision", "goal", "expected"),
    [
        (1.0, 0.0, None, 0.5),                                   # high recall / low precision, balanced
        (1.0, 0.0, "fact-checking", 0.8),                        # ... recall priority
        (1.0, 0.0, "creative generation", 0.2),                  # ... precision priority
        (0.0, 1.0, None, 0.5),                                   # high precision / low recall, balanced
        (0.0, 1.0, "legal", 0.2),                                # ... recall priority
        (0.0, 1.0, "safety-critical hallucination reduction", 0.8),  # ... precision priority
        (0.0, 1.0, "medical content", 0.2),
        (1.0, 1.0, "fact-checking", 1.0),
        (0.0, 0.0, None, 0.0),
        (0.5, 0.25, None, 0.375),
    ],
)
def test_worked_examples(recall, precision, goal, expected):
    assert combine(recall, precision, goal).score == pytest.approx(expected)


@pytest.mark.parametrize(
    ("goal", "weight", "priority"),
    [
        (None, 0.5, "balanced"), ("", 0.5, "balanced"), ("general QA", 0.5, "balanced"),
        ("Fact_checking", 0.8, "recall priority"), ("legal review", 0.8, "recall priority"),
        ("clinical notes", 0.8, "recall priority"), ("creative writing", 0.2, "precision priority"),
        ("hallucination-reduction", 0.2, "precision priority"),
        ("medical, safety-critical", 0.8, "recall priority"),  # recall goals win
    ],
)
def test_recall_weight_by_goal(goal, weight, priority):
    assert recall_weight(goal) == (weight, priority)


def test_the_explanation_shows_the_arithmetic():
    explanation = combine(1.0, 0.25, "fact-checking").explanation
    assert "Recall 1.00, precision 0.25" in explanation
    assert "recall priority: 0.8*recall + 0.2*precision = 0.85" in explanation


# --- recall and precision from the reply ----------------------------------------------------

DEFAULT = default_profile().context_relevance_parameters
PASSAGES = ["Craigslist was founded in 1995 by Craig Newmark. It is a classified ads website.",
            "24 Hours on Craigslist is a 2005 documentary about a single day of posts."]


def decided_signals(reply: StepOutcome) -> dict:
    """What the node's decision records for a reply: recall, precision, label probabilities."""
    signals = ContextRelevanceSignals(PASSAGES, None, reply.value, RecallSignals(reply_probabilities(reply)))
    return dict(decide_context_relevance(signals, DEFAULT).signals)


@pytest.mark.parametrize(("label", "recall"), [("yes", 1.0), ("partly", 0.5), ("no", 0.0)])
def test_recall_without_logprobs(label, recall):
    decided = decided_signals(outcome(label, [1]))
    assert decided["recall"] == recall and decided["probabilities"][label] == 1.0


def test_graded_recall_is_p_yes_plus_half_p_partly():
    content = fakes.logprobs_content(fakes.context_relevance("yes", [1]), "answer_in_context",
                                     {"yes": 0.6, "part": 0.2, "no": 0.2})
    decided = decided_signals(outcome("yes", [1], content))
    assert decided["recall"] == pytest.approx(0.7)
    assert decided["probabilities"] == pytest.approx({"yes": 0.6, "partly": 0.2, "no": 0.2})


def test_precision_end_points_and_what_it_ignores():
    def precision(label: str, lines: list[int]) -> float:
        return precision_of(PASSAGES, outcome(label, lines).value)

    none, every, some = precision("no", []), precision("yes", [1, 2, 3]), precision("yes", [1])
    assert none == 0.0 and every == pytest.approx(1.0) and 0.0 < some < 1.0
    assert precision("yes", [1, 1, 0, 99, -2]) == some  # repeats, out of range
    assert precision("yes", [1, 3]) > some
    assert decided_signals(outcome("yes", [1]))["precision"] == round(some, 4)  # what the node records


# --- through the graph, with scripted replies -------------------------------------------------

def test_the_judge_sees_numbered_lines_and_the_score_is_combined_in_code(rag_item):
    rag_item["evaluation_goal"] = "fact-checking"
    reply = fakes.context_relevance("yes", [1])
    model = fakes.judge(**happy_scripts(judge_context_relevance=reply))
    run = run_evaluation(rag_item, model=model)
    precision = precision_of(rag_item["context"], outcome("yes", [1]).value)
    expected = combine(1.0, precision, "fact-checking").score
    assert run.result["context_relevance"] == round(expected, 2)
    explanation = run.result["context_relevance_explanation"]
    assert explanation.startswith("Answer in context: yes; useful lines: 1.")
    assert f"Recall 1.00, precision {precision:.2f}" in explanation
    prompt = model.prompts_for("judge_context_relevance")[0]
    assert "[1] Craigslist is a classified" in prompt and "[2] 24 Hours on Craigslist" in prompt
    assert "<reference>" in prompt and rag_item["reference"] in prompt
    event = next(e for e in run.trace if e.node == "judge_context_relevance")
    assert event.detail["recall"] == 1.0 and event.detail["precision"] == round(precision, 4)


def test_graded_recall_through_the_graph(rag_item):
    reply = fakes.with_logprobs(fakes.context_relevance("yes", [1, 2]), "answer_in_context",
                                {"yes": 0.6, "partly": 0.2, "no": 0.2})
    run = run_evaluation(rag_item, model=fakes.judge(**happy_scripts(judge_context_relevance=reply)))
    assert run.result["context_relevance"] == round(0.5 * 0.7 + 0.5 * 1.0, 2)
    assert "(p_yes 0.60, p_partly 0.20)" in run.result["context_relevance_explanation"]
    event = next(e for e in run.trace if e.node == "judge_context_relevance")
    assert event.detail["recall"] == pytest.approx(0.7)


def test_partly_counts_half(rag_item):
    result = evaluate(rag_item, model=fakes.judge(**happy_scripts(
        judge_context_relevance=fakes.context_relevance("partly", [1, 2]))))
    assert result["context_relevance"] == 0.75


def test_no_reference_leaves_no_reference_section(rag_item):
    rag_item["reference"] = " none "
    model = fakes.judge(**happy_scripts())
    evaluate(rag_item, model=model)
    assert "<reference>" not in model.prompts_for("judge_context_relevance")[0]


def test_an_invalid_label_goes_through_repair(rag_item):
    model = fakes.judge(**happy_scripts(judge_context_relevance=[
        {"answer_in_context": "maybe", "useful_lines": [1]}, fakes.context_relevance("no", [])]))
    result = evaluate(rag_item, model=model)
    assert model.count("judge_context_relevance") == 2 and result["context_relevance"] == 0.0
