"""Every rule of seed 000 (the `rag` rubric), through the whole graph with a scripted judge."""

from __future__ import annotations

import json

import pytest

from judgegraph.graph.api import evaluate, run_evaluation
from tests import fakes
from tests.conftest import happy_scripts

SEED_KEYS = [
    "faithfulness", "faithfulness_explanation", "context_relevance", "context_relevance_explanation",
    "answer_relevance", "answer_relevance_explanation", "semantic_similarity",
    "semantic_similarity_explanation", "evaluation_status", "reason", "error",
]


def run(item, **scripts):
    model = fakes.judge(**happy_scripts(**scripts))
    return evaluate(item, model=model), model


def test_output_has_exactly_the_seed_keys_in_seed_order(rag_item, happy_judge):
    result = evaluate(rag_item, model=happy_judge)
    assert list(result) == SEED_KEYS
    assert result["evaluation_status"] == "success"
    assert result["faithfulness"] == 1.0 and result["semantic_similarity"] == 1.0


# --- context relevance: the four worked examples of the seed ---------------------------------

@pytest.mark.parametrize(
    ("precision", "recall", "goal", "expected"),
    [
        (0.0, 1.0, None, 0.5),                 # high recall / low precision, balanced
        (0.0, 1.0, "fact-checking", 0.8),      # ... recall priority
        (0.0, 1.0, "creative generation", 0.2),  # ... precision priority
        (1.0, 0.0, None, 0.5),                 # high precision / low recall, balanced
        (1.0, 0.0, "legal", 0.2),              # ... recall priority
        (1.0, 0.0, "safety-critical hallucination reduction", 0.8),  # ... precision priority
        (1.0, 0.0, "medical content", 0.2),
        (1.0, 1.0, "fact-checking", 1.0),
        (0.0, 0.0, None, 0.0),
    ],
)
def test_context_relevance_weights_recall_and_precision_by_goal(rag_item, precision, recall, goal, expected):
    rag_item["evaluation_goal"] = goal
    result, _ = run(rag_item, judge_context_relevance=fakes.context_relevance(precision, recall))
    assert result["context_relevance"] == expected


def test_empty_context_scores_context_relevance_zero_without_a_call(rag_item):
    rag_item["context"] = "   "
    result, model = run(rag_item, extract_claims=fakes.claims("Craig Newmark founded Craigslist."))
    assert result["context_relevance"] == 0.0
    assert model.count("judge_context_relevance") == 0
    assert model.count("check_claim") == 0


# --- faithfulness ----------------------------------------------------------------------------

def test_faithfulness_is_supported_over_total(rag_item):
    result, _ = run(
        rag_item,
        extract_claims=fakes.claims("A is true.", "B is true.", "C is true."),
        check_claim=[
            fakes.verdict("supported", "founded in 1995 by Craig Newmark"),
            fakes.verdict("supported", "a 2005 documentary"),
            fakes.verdict("not-in-context"),
        ],
    )
    assert result["faithfulness"] == 0.67
    assert "2 of 3 claims" in result["faithfulness_explanation"]


def test_supported_verdict_whose_quote_is_not_in_the_context_does_not_count(rag_item):
    run_ = run_evaluation(
        rag_item,
        model=fakes.judge(**happy_scripts(
            extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "He did it in Paris."),
            check_claim=[
                fakes.verdict("supported", "founded in 1995 by Craig Newmark"),
                fakes.verdict("supported", "Craigslist was founded in Paris in 1995"),
            ],
        )),
    )
    assert run_.result["faithfulness"] == 0.5
    assert "quote not found" in run_.result["faithfulness_explanation"]
    assert [v.evidence_found for v in run_.verdicts] == [True, False]


def test_quote_matching_forgives_case_whitespace_and_elisions(rag_item):
    result, _ = run(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist."),
        check_claim=fakes.verdict("supported", "CRAIGSLIST is a classified   advertisements website ... by Craig Newmark"),
    )
    assert result["faithfulness"] == 1.0


def test_critical_contradiction_gives_zero(rag_item):
    result, _ = run(
        rag_item,
        extract_claims=fakes.claims("Craigslist was founded in 1999.", "Craig Newmark founded Craigslist."),
        check_claim=[
            fakes.verdict("contradicted", "founded in 1995 by Craig Newmark", critical=True),
            fakes.verdict("supported", "founded in 1995 by Craig Newmark"),
        ],
    )
    assert result["faithfulness"] == 0.0
    assert "critical fact" in result["faithfulness_explanation"]


def test_non_critical_contradiction_only_lowers_the_ratio(rag_item):
    result, _ = run(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "The documentary is from 2004."),
        check_claim=[
            fakes.verdict("supported", "founded in 1995 by Craig Newmark", critical=True),
            fakes.verdict("contradicted", "a 2005 documentary", critical=False),
        ],
    )
    assert result["faithfulness"] == 0.5


@pytest.mark.parametrize(
    ("answer", "explicit"),
    [
        ("I cannot answer from the provided context.", True),
        ("I don't know.", True),
        ("The context does not mention the founder.", True),
        ("There is no information about that in the documents.", True),
        ("This is not stated in the passages.", True),
        ("Insufficient context to answer.", True),
        ("Craig Newmark founded Craigslist.", False),
        ("Nobody can deny that Craig Newmark founded it.", False),
    ],
)
def test_explicit_inability_is_read_from_the_answer_text(answer, explicit):
    from judgegraph.nodes.refusal_cues import states_inability

    assert states_inability(answer) is explicit


def test_empty_context_gives_zero_faithfulness(rag_item):
    rag_item["context"] = []
    result, _ = run(rag_item, extract_claims=fakes.claims("Craig Newmark founded Craigslist."))
    assert result["faithfulness"] == 0.0
    assert result["evaluation_status"] == "success"


def test_empty_context_with_explicit_inability_statement_gives_one(rag_item):
    rag_item["context"] = ""
    rag_item["answer"] = "I cannot answer from the provided context: it is empty."
    result, _ = run(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] == 1.0
    assert "cannot answer" in result["faithfulness_explanation"]


def test_answer_without_checkable_claims_is_null_not_one(rag_item):
    rag_item["answer"] = "Hello there!"
    result, model = run(rag_item, extract_claims=fakes.claims())
    assert result["faithfulness"] is None
    assert "no checkable" in result["faithfulness_explanation"]
    assert result["evaluation_status"] == "success"
    assert model.count("check_claim") == 0


def test_pure_refusal_with_context_is_faithful_by_explicit_rule(rag_item):
    rag_item["answer"] = "I cannot answer that: the context does not mention who founded it."
    result, _ = run(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] == 1.0
    assert "declines" in result["faithfulness_explanation"]


@pytest.mark.parametrize("context", [CONTEXT_TEXT := "Craigslist was founded in 1995 by Craig Newmark.", ""])
def test_model_flagging_a_plain_answer_as_a_refusal_never_yields_one(rag_item, context):
    """Seen with the 1.5B judge: a substantive answer flagged as a refusal with no claims."""
    rag_item["context"] = context
    result, _ = run(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] != 1.0


def test_duplicate_claims_are_checked_once(rag_item):
    _, model = run(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "craig newmark founded  craigslist"),
    )
    assert model.count("check_claim") == 1


def test_batch_claim_check_mode_uses_one_call(rag_item):
    model = fakes.judge(**happy_scripts(
        extract_claims=fakes.claims("A.", "B."),
        check_claims_batch={"checks": [
            {"claim": 1, **fakes.verdict("supported", "founded in 1995 by Craig Newmark")},
            {"claim": 2, **fakes.verdict("not-in-context")},
        ]},
    ))
    result = evaluate(rag_item, model=model, claim_check="batch")
    assert result["faithfulness"] == 0.5
    assert model.count("check_claims_batch") == 1 and model.count("check_claim") == 0


def test_batch_mode_reply_missing_a_claim_goes_through_repair(rag_item):
    good = {"checks": [
        {"claim": 1, **fakes.verdict("supported", "founded in 1995 by Craig Newmark")},
        {"claim": 2, **fakes.verdict("supported", "a 2005 documentary")},
    ]}
    bad = {"checks": good["checks"][:1]}
    model = fakes.judge(**happy_scripts(extract_claims=fakes.claims("A.", "B."), check_claims_batch=[bad, good]))
    result = evaluate(rag_item, model=model, claim_check="batch")
    assert result["faithfulness"] == 1.0
    assert model.count("check_claims_batch") == 2


# --- answer relevance and refusals -------------------------------------------------------------

VALID_REFUSAL = dict(refusal=True, reason=True, category="insufficient-context", cites=True, context_has_answer=False)


@pytest.mark.parametrize(
    ("judgment", "expected"),
    [
        (fakes.answer_relevance(**VALID_REFUSAL), 1.0),
        (fakes.answer_relevance(**{**VALID_REFUSAL, "category": "safety", "context_has_answer": True}), 1.0),
        (fakes.answer_relevance(**{**VALID_REFUSAL, "reason": False}), 0.0),
        (fakes.answer_relevance(**{**VALID_REFUSAL, "category": "none"}), 0.0),
        (fakes.answer_relevance(**{**VALID_REFUSAL, "cites": False}), 0.0),
        (fakes.answer_relevance(**{**VALID_REFUSAL, "context_has_answer": True}), 0.0),
        (fakes.answer_relevance(parts=[True, False]), 0.5),
        (fakes.answer_relevance(parts=[True], directness="partial"), 0.75),
        (fakes.answer_relevance(parts=[False]), 0.0),
    ],
    ids=["valid", "safety-valid-despite-context", "no-reason", "no-category", "no-citation",
         "context-held-answer", "half-answered", "indirect", "irrelevant"],
)
def test_answer_relevance_rules(rag_item, judgment, expected):
    result, _ = run(rag_item, judge_answer_relevance=judgment)
    assert result["answer_relevance"] == expected


def test_refusal_labels_are_forgiven_for_case_and_underscores(rag_item):
    judgment = fakes.answer_relevance(**{**VALID_REFUSAL, "category": "**Insufficient_Context**"})
    result, _ = run(rag_item, judge_answer_relevance=judgment)
    assert result["answer_relevance"] == 1.0


# --- semantic similarity ---------------------------------------------------------------------

@pytest.mark.parametrize("reference", [None, "", "   ", "None", " none ", "NONE", "nOnE"])
def test_missing_reference_forms_give_null_similarity_without_a_call(rag_item, reference):
    rag_item["reference"] = reference
    result, model = run(rag_item)
    assert result["semantic_similarity"] is None
    assert result["semantic_similarity_explanation"] == "No reference answer provided."
    assert model.count("judge_semantic_similarity") == 0
    assert result["evaluation_status"] == "success"


def test_absent_reference_key_gives_null_similarity(rag_item):
    del rag_item["reference"]
    result, _ = run(rag_item)
    assert result["semantic_similarity"] is None
    assert result["semantic_similarity_explanation"] == "No reference answer provided."


def test_similarity_scale_maps_to_unit_interval(rag_item):
    result, _ = run(rag_item, judge_semantic_similarity=fakes.similarity(3))
    assert result["semantic_similarity"] == 0.6


# --- failures and partial results ----------------------------------------------------------

def test_missing_question_fails_with_seed_reason_and_zero_model_calls(rag_item):
    del rag_item["question"]
    model = fakes.judge(**happy_scripts())
    result = evaluate(rag_item, model=model)
    assert result["evaluation_status"] == "failed"
    assert result["reason"] == "Input parsing error: missing user question."
    assert all(result[k] is None for k in SEED_KEYS if k not in ("evaluation_status", "reason"))
    assert model.calls == []


@pytest.mark.parametrize(
    ("change", "reason_part"),
    [
        ({"question": ""}, "user question is empty"),
        ({"question": "   "}, "user question is empty"),
        ({"answer": None}, "'answer' has the wrong type"),
        ({"answer": 42}, "'answer' has the wrong type"),
        ({"context": [1, 2]}, "'context"),
        ({"reference": ["a"]}, "'reference' has the wrong type"),
    ],
)
def test_bad_inputs_fail_without_model_calls(rag_item, change, reason_part):
    rag_item.update(change)
    model = fakes.judge(**happy_scripts())
    result = evaluate(rag_item, model=model, rubric="rag")
    assert result["evaluation_status"] == "failed"
    assert reason_part in result["reason"]
    assert model.calls == []


@pytest.mark.parametrize("item", [None, [1, 2], "a string", 3])
def test_non_object_items_fail_cleanly(item):
    model = fakes.judge(**happy_scripts())
    result = evaluate(item, model=model)
    assert result["evaluation_status"] == "failed"
    assert "JSON object" in result["reason"]
    assert model.calls == []


def test_unknown_rubric_fails_cleanly(rag_item):
    rag_item["rubric"] = "nope"
    result = evaluate(rag_item, model=fakes.judge(**happy_scripts()))
    assert result["evaluation_status"] == "failed"
    assert "unknown rubric 'nope'" in result["reason"]


def test_one_failing_metric_keeps_the_others(rag_item):
    result, _ = run(rag_item, judge_context_relevance="I refuse to produce JSON.")
    assert result["context_relevance"] is None
    assert "could not be judged" in result["context_relevance_explanation"]
    assert result["evaluation_status"] == "failed"
    assert result["error"].startswith("context_relevance:")
    assert result["faithfulness"] == 1.0
    assert result["answer_relevance"] == 1.0
    assert result["semantic_similarity"] == 1.0


def test_transport_error_is_reported_in_error_not_raised(rag_item):
    result, _ = run(rag_item, judge_answer_relevance=TimeoutError("read timed out"))
    assert result["answer_relevance"] is None
    assert "TimeoutError: read timed out" in result["error"]
    assert result["faithfulness"] == 1.0


def test_failed_claim_check_makes_faithfulness_null(rag_item):
    result, _ = run(rag_item, check_claim=["not json", "still not", "nope", "never"])
    assert result["faithfulness"] is None
    assert "claim check failed" in result["faithfulness_explanation"]
    assert result["evaluation_status"] == "failed"


def test_scores_are_rounded_half_up_to_two_decimals(rag_item):
    result, _ = run(rag_item, judge_context_relevance=fakes.context_relevance(0.125, 0.125))
    assert result["context_relevance"] == 0.13
    assert json.loads(json.dumps(result)) == result


def test_support_whose_quote_lacks_the_claims_number_does_not_count(rag_item):
    """Seen with the 1.5B judge: 'released in 2007' 'supported' by the founding sentence."""
    result, _ = run(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist in 1995.", "The documentary was released in 2007."),
        check_claim=[
            fakes.verdict("supported", "founded in 1995 by Craig Newmark"),
            fakes.verdict("supported", "founded in 1995 by Craig Newmark"),
        ],
    )
    assert result["faithfulness"] == 0.5
    assert "quote lacks 2007" in result["faithfulness_explanation"]


def test_thousands_separators_do_not_hide_a_number():
    from judgegraph.nodes.evidence import numbers_missing_from_quote

    assert numbers_missing_from_quote("It sold 1,500 copies in 1999.", "sold 1500 copies (1999)") == []
    assert numbers_missing_from_quote("It sold 1,500 copies.", "sold 15 copies") == ["1500"]


def test_whole_item_validator_errors_read_cleanly():
    from pydantic import BaseModel, ValidationError, model_validator

    from judgegraph.nodes.validate_input import describe_input_error

    class Strict(BaseModel):
        a: int = 0

        @model_validator(mode="after")
        def never(self):
            raise ValueError("a and b cannot both be set")

    with pytest.raises(ValidationError) as caught:
        Strict.model_validate({"a": 1})
    assert describe_input_error(caught.value, {"a": 1}, {}) == "Input parsing error: a and b cannot both be set."


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ("'The quality of mercy' refers to a quote by Portia", True),   # JSON-escaped quotes swapped
        ("The quality of mercy refers to a quote by Portia", True),
        ("[1] \u201cThe quality of mercy\u201d refers to a quote", True),
        ("quality of mercy ... Act IV, Scene 1", True),
        ("Act IV ... quality of mercy", False),                          # fragments out of order
        ("The quality of justice refers to a quote", False),
        ("of", False),                                                    # too short to prove anything
        ("quality of merc", False),                                       # no partial words
    ],
)
def test_quote_matching_is_word_for_word_but_forgives_punctuation(quote, found):
    from judgegraph.nodes.evidence import quote_found

    context = ['"The quality of mercy" refers to a quote by Portia; it occurs during Act IV, Scene 1.']
    assert quote_found(quote, context) is found


def test_framing_lead_ins_are_not_part_of_a_quote_or_a_claim(rag_item):
    """Seen with the 1.5B judge: 'The context states that ...' before a real quote and as a claim."""
    result, model = run(
        rag_item,
        extract_claims=fakes.claims(
            "Craig Newmark founded Craigslist.", "The context states that Craig Newmark founded Craigslist."
        ),
        check_claim=fakes.verdict("supported", "The context states that Craigslist is a classified advertisements website"),
    )
    assert model.count("check_claim") == 1
    assert result["faithfulness"] == 1.0
