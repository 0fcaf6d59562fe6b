"""Every rule of seed 000 (the `rag` rubric), through the whole graph with a scripted judge.

By default claims are cut from the answer in code (`claim_extraction="sentences"`) and
similarity comes from the embedder (a deterministic fake in tests, see conftest). Tests that
script several claims through the `extract_claims` step run with `claim_extraction="model"`.

The rag item's context, as the numbered lines the claim checks show:
  [1] Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.
  [2] 24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.
"""

from __future__ import annotations

import json

import pytest

from judgegraph.graph.api import evaluate, run_evaluation
from tests.support import fakes
from tests.conftest import happy_scripts

SEED_KEYS = [
    "faithfulness", "faithfulness_explanation", "context_relevance", "context_relevance_explanation",
    "answer_relevance", "answer_relevance_explanation", "semantic_similarity",
    "semantic_similarity_explanation", "evaluation_status", "reason", "error",
]
FOUNDER_LINE, DOCUMENTARY_LINE = 1, 2


def run(item, **scripts):
    """Default settings: sentence claims, embedding similarity."""
    model = fakes.judge(**happy_scripts(**scripts))
    return evaluate(item, model=model), model


def run_model_claims(item, **scripts):
    """The judge lists the claims (`extract_claims` step), as scripted."""
    model = fakes.judge(**happy_scripts(**scripts))
    return evaluate(item, model=model, claim_extraction="model"), model


def test_output_has_exactly_the_seed_keys_in_seed_order(rag_item, happy_judge):
    result = evaluate(rag_item, model=happy_judge)
    assert list(result) == SEED_KEYS
    assert result["evaluation_status"] == "success"
    assert result["faithfulness"] == 1.0 and result["semantic_similarity"] == 1.0
    assert result["context_relevance"] == 1.0 and result["answer_relevance"] == 1.0


def test_default_run_cuts_claims_in_code_and_scores_similarity_without_a_call(rag_item, happy_judge):
    run_ = run_evaluation(rag_item, model=happy_judge)
    assert run_.claims.claims == ["Craig Newmark founded Craigslist in 1995."]
    assert happy_judge.count("extract_claims") == 0 and happy_judge.count("judge_semantic_similarity") == 0
    assert happy_judge.count("check_claim") == 1
    assert len(happy_judge.calls) == 3  # one claim check, context relevance, answer relevance


# --- context relevance: the seed's worked examples, through the graph -------------------------
# recall 1 / precision 0: the context holds the answer, no line is useful beyond it;
# recall 0 / precision 1: every line is "useful" but the answer is not there.

@pytest.mark.parametrize(
    ("reply", "goal", "expected"),
    [
        (fakes.context_relevance("yes", []), None, 0.5),
        (fakes.context_relevance("yes", []), "fact-checking", 0.8),
        (fakes.context_relevance("yes", []), "creative generation", 0.2),
        (fakes.context_relevance("no", [1, 2]), None, 0.5),
        (fakes.context_relevance("no", [1, 2]), "legal", 0.2),
        (fakes.context_relevance("no", [1, 2]), "safety-critical hallucination reduction", 0.8),
        (fakes.context_relevance("no", [1, 2]), "medical content", 0.2),
        (fakes.context_relevance("yes", [1, 2]), "fact-checking", 1.0),
        (fakes.context_relevance("no", []), None, 0.0),
    ],
)
def test_context_relevance_weights_recall_and_precision_by_goal(rag_item, reply, goal, expected):
    rag_item["evaluation_goal"] = goal
    result, _ = run(rag_item, judge_context_relevance=reply)
    assert result["context_relevance"] == expected


def test_empty_context_scores_context_relevance_zero_without_a_call(rag_item):
    rag_item["context"] = "   "
    result, model = run(rag_item)
    assert result["context_relevance"] == 0.0
    assert model.count("judge_context_relevance") == 0
    assert model.count("check_claim") == 0


# --- faithfulness ----------------------------------------------------------------------------

def test_faithfulness_is_supported_over_total(rag_item):
    rag_item["answer"] = ("Craig Newmark founded Craigslist, a classified advertisements website. "
                          "24 Hours on Craigslist is a documentary.")  # the listed claims come from the answer
    result, _ = run_model_claims(
        rag_item,
        extract_claims=fakes.claims(
            "Craig Newmark founded Craigslist.", "Craigslist is a classified advertisements website.",
            "24 Hours on Craigslist is a documentary.",
        ),
        check_claim=[
            fakes.verdict("supported", FOUNDER_LINE),
            fakes.verdict("supported", FOUNDER_LINE),
            fakes.verdict("not-in-context"),
        ],
    )
    assert result["faithfulness"] == 0.67
    assert "2 of 3 claims" in result["faithfulness_explanation"]
    assert "'24 Hours on Craigslist is a documentary.' (not-in-context)" in result["faithfulness_explanation"]


def test_sentence_claims_are_checked_one_call_each(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist; it is a classified advertisements website."
    result, model = run(
        rag_item, check_claim=[fakes.verdict("supported", FOUNDER_LINE), fakes.verdict("not-in-context")],
    )
    assert model.count("check_claim") == 2 and model.count("extract_claims") == 0
    assert result["faithfulness"] == 0.5


def test_critical_contradiction_gives_zero(rag_item):
    rag_item["answer"] = "Craigslist, a classified advertisements website, was founded by Jim Buckmaster."
    result, _ = run_model_claims(
        rag_item,
        extract_claims=fakes.claims("Craigslist was founded by Jim Buckmaster.", "Craigslist is a classified advertisements website."),
        check_claim=[fakes.verdict("contradicted", FOUNDER_LINE), fakes.verdict("supported", FOUNDER_LINE)],
    )
    assert result["faithfulness"] == 0.0
    explanation = result["faithfulness_explanation"]
    assert "critical fact" in explanation and "'Craigslist was founded by Jim Buckmaster.'" in explanation
    assert "founded in 1995 by Craig Newmark" in explanation  # the context line it rests on


def test_the_only_claim_is_critical(rag_item):
    result, _ = run(rag_item, check_claim=fakes.verdict("contradicted", FOUNDER_LINE))
    assert result["faithfulness"] == 0.0
    assert "critical fact" in result["faithfulness_explanation"]


def test_non_critical_contradiction_only_lowers_the_ratio(rag_item):
    """The second claim shares no content word with "Who founded Craigslist?": not critical."""
    rag_item["answer"] = "Craig Newmark founded Craigslist. The documentary is about a single week of posts."
    result, _ = run_model_claims(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "The documentary is about a single week of posts."),
        check_claim=[fakes.verdict("supported", FOUNDER_LINE), fakes.verdict("contradicted", DOCUMENTARY_LINE)],
    )
    assert result["faithfulness"] == 0.5
    assert "critical" not in result["faithfulness_explanation"]


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
    from judgegraph.text.refusals import states_inability

    assert states_inability(answer) is explicit


def test_empty_context_gives_zero_faithfulness(rag_item):
    rag_item["context"] = []
    result, model = run(rag_item)
    assert result["faithfulness"] == 0.0
    assert result["evaluation_status"] == "success"
    assert model.count("check_claim") == 0


def test_empty_context_with_explicit_inability_statement_gives_one(rag_item):
    rag_item["context"] = ""
    rag_item["answer"] = "I cannot answer from the provided context: it is empty."
    result, model = run(rag_item)
    assert result["faithfulness"] == 1.0
    assert "cannot answer" in result["faithfulness_explanation"]
    assert model.count("extract_claims") == 0 and model.count("check_claim") == 0


def test_empty_context_with_inability_flagged_by_the_model_extractor_gives_one(rag_item):
    rag_item["context"] = ""
    rag_item["answer"] = "I cannot answer from the provided context: it is empty."
    result, _ = run_model_claims(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] == 1.0


def test_answer_without_checkable_claims_is_null_not_one(rag_item):
    rag_item["answer"] = "Hello there!"
    result, model = run_model_claims(rag_item, extract_claims=fakes.claims())
    assert result["faithfulness"] is None
    assert "no checkable" in result["faithfulness_explanation"]
    assert result["evaluation_status"] == "success"
    assert model.count("check_claim") == 0


def test_answer_of_bare_punctuation_has_no_sentence_claims(rag_item):
    rag_item["answer"] = "..."
    result, model = run(rag_item)
    assert result["faithfulness"] is None
    assert "no checkable" in result["faithfulness_explanation"]
    assert model.count("check_claim") == 0


@pytest.mark.parametrize("answer", ["?!", "…"])
def test_wordless_answers_are_not_claims(rag_item, answer):
    rag_item["answer"] = answer
    result, model = run(rag_item)
    assert model.count("check_claim") == 0
    assert result["faithfulness"] is None


def test_pure_refusal_with_context_is_faithful_by_explicit_rule(rag_item):
    rag_item["answer"] = "I cannot answer that: the context does not mention who founded it."
    result, model = run(rag_item)
    assert result["faithfulness"] == 1.0
    assert "declines" in result["faithfulness_explanation"]
    assert model.count("check_claim") == 0


def test_pure_refusal_flagged_by_the_model_extractor(rag_item):
    rag_item["answer"] = "I cannot answer that: the context does not mention who founded it."
    result, _ = run_model_claims(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] == 1.0
    assert "declines" in result["faithfulness_explanation"]


def test_a_refusal_sentence_beside_a_claim_is_not_checked(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist. I don't know when the documentary came out."
    run_ = run_evaluation(rag_item, model=fakes.judge(**happy_scripts()))
    assert run_.claims.claims == ["Craig Newmark founded Craigslist."]
    assert run_.claims.declines_to_answer is True
    assert len(run_.verdicts) == 1 and run_.result["faithfulness"] == 1.0


@pytest.mark.parametrize("context", ["Craigslist was founded in 1995 by Craig Newmark.", ""])
def test_model_flagging_a_plain_answer_as_a_refusal_never_yields_one(rag_item, context):
    """Seen with the 1.5B judge: a substantive answer flagged as a refusal with no claims."""
    rag_item["context"] = context
    result, _ = run_model_claims(rag_item, extract_claims=fakes.claims(declines=True))
    assert result["faithfulness"] != 1.0


def test_duplicate_claims_are_checked_once(rag_item):
    _, model = run_model_claims(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "craig newmark founded  craigslist"),
    )
    assert model.count("check_claim") == 1


def test_repeated_sentences_are_checked_once(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist. Craig Newmark founded Craigslist."
    _, model = run(rag_item)
    assert model.count("check_claim") == 1


def test_batch_claim_check_mode_uses_one_call(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist in 1995; 24 Hours on Craigslist is a documentary."  # the listed claims come from the answer (claim_grounding)
    model = fakes.judge(**happy_scripts(
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "24 Hours on Craigslist is a documentary."),
        check_claims_batch={"checks": [
            {"claim": 1, **fakes.verdict("supported", FOUNDER_LINE)},
            {"claim": 2, **fakes.verdict("not-in-context")},
        ]},
    ))
    result = evaluate(rag_item, model=model, claim_check="batch", claim_extraction="model")
    assert result["faithfulness"] == 0.5
    assert model.count("check_claims_batch") == 1 and model.count("check_claim") == 0


def test_batch_mode_with_sentence_claims(rag_item):
    model = fakes.judge(**happy_scripts(check_claims_batch={"checks": [{"claim": 1, **fakes.verdict("supported", 1)}]}))
    run_ = run_evaluation(rag_item, model=model, claim_check="batch")
    assert run_.result["faithfulness"] == 1.0
    assert run_.verdicts[0].evidence == rag_item["context"][0]
    prompt = model.prompts_for("check_claims_batch")[0]
    assert "[1] Craigslist is a classified" in prompt and "[2] 24 Hours on Craigslist" in prompt


def test_batch_mode_reply_missing_a_claim_goes_through_repair(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist in 1995; 24 Hours on Craigslist is a documentary."  # the listed claims come from the answer (claim_grounding)
    good = {"checks": [
        {"claim": 1, **fakes.verdict("supported", FOUNDER_LINE)},
        {"claim": 2, **fakes.verdict("supported", DOCUMENTARY_LINE)},
    ]}
    bad = {"checks": good["checks"][:1]}
    model = fakes.judge(**happy_scripts(
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "24 Hours on Craigslist is a documentary."),
        check_claims_batch=[bad, good],
    ))
    result = evaluate(rag_item, model=model, claim_check="batch", claim_extraction="model")
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


# --- semantic similarity (embeddings: tests/nodes/rag/test_semantic_similarity.py) ----------------------

@pytest.mark.parametrize("reference", [None, "", "   ", "None", " none ", "NONE", "nOnE"])
@pytest.mark.parametrize("embeddings", [True, False])
def test_missing_reference_forms_give_null_similarity_without_a_call(rag_item, reference, embeddings,
                                                                     fake_default_embedder):
    rag_item["reference"] = reference
    model = fakes.judge(**happy_scripts())
    result = evaluate(rag_item, model=model, embeddings=embeddings)
    assert result["semantic_similarity"] is None
    assert result["semantic_similarity_explanation"] == "No reference answer provided."
    assert model.count("judge_semantic_similarity") == 0
    assert not any(rag_item["answer"] in texts and len(texts) == 2 for texts in fake_default_embedder.calls)
    assert result["evaluation_status"] == "success"


def test_absent_reference_key_gives_null_similarity(rag_item):
    del rag_item["reference"]
    result, _ = run(rag_item)
    assert result["semantic_similarity"] is None
    assert result["semantic_similarity_explanation"] == "No reference answer provided."


def test_similarity_scale_maps_to_unit_interval_without_embeddings(rag_item):
    model = fakes.judge(**happy_scripts(judge_semantic_similarity=fakes.similarity(3)))
    result = evaluate(rag_item, model=model, embeddings=False)
    assert result["semantic_similarity"] == 0.6
    assert "(similarity 3/5)" in result["semantic_similarity_explanation"]


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
    assert result["error"].startswith("faithfulness:")


def test_one_failed_check_among_several_makes_faithfulness_null(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist in 1995; 24 Hours on Craigslist is a documentary."  # the listed claims come from the answer (claim_grounding)
    result, _ = run_model_claims(
        rag_item,
        extract_claims=fakes.claims("Craig Newmark founded Craigslist.", "24 Hours on Craigslist is a documentary."),
        check_claim=[fakes.verdict("supported", FOUNDER_LINE), RuntimeError("server down")],
    )
    assert result["faithfulness"] is None
    assert "server down" in result["faithfulness_explanation"]
    assert result["context_relevance"] is not None  # the other metrics are kept


def test_failed_model_extraction_makes_faithfulness_null(rag_item):
    result, model = run_model_claims(rag_item, extract_claims=["no", "json", "here"])
    assert result["faithfulness"] is None
    assert "claim extraction failed" in result["faithfulness_explanation"]
    assert model.count("check_claim") == 0
    assert result["answer_relevance"] == 1.0


def test_scores_are_rounded_half_up_to_two_decimals(rag_item):
    """P(yes) 0.25 and no useful line: recall 0.25, precision 0, balanced: 0.125 -> 0.13."""
    reply = fakes.with_logprobs(fakes.context_relevance("no", []), "answer_in_context", {"yes": 0.25, "no": 0.75})
    result, _ = run(rag_item, judge_context_relevance=reply)
    assert result["context_relevance"] == 0.13
    assert json.loads(json.dumps(result)) == result


def test_numbers_keep_thousands_separators_apart_from_the_digits():
    from judgegraph.text.quotes import numbers_in

    assert numbers_in("It sold 1,500 copies in 1999.") == {"1500", "1999"}
    assert numbers_in("sold 15 copies, 3.5 times") == {"15", "3.5"}


def test_whole_item_validator_errors_read_cleanly():
    from pydantic import BaseModel, ValidationError, model_validator

    from judgegraph.graph.every_item.validate_input import describe_input_error

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
    """`quote_found` still decides liverag's support (and coverage's evidence)."""
    from judgegraph.text.quotes import quote_found

    context = ['"The quality of mercy" refers to a quote by Portia; it occurs during Act IV, Scene 1.']
    assert quote_found(quote, context) is found


def test_framing_lead_ins_are_not_part_of_a_claim(rag_item):
    """Seen with the 1.5B judge: 'The context states that ...' before a claim."""
    result, model = run_model_claims(
        rag_item,
        extract_claims=fakes.claims(
            "Craig Newmark founded Craigslist.", "The context states that Craig Newmark founded Craigslist."
        ),
        check_claim=fakes.verdict("supported", FOUNDER_LINE),
    )
    assert model.count("check_claim") == 1
    assert result["faithfulness"] == 1.0


@pytest.mark.parametrize("profile_id", ["default", "embedded-halueval"])
def test_the_seed_rules_hold_under_every_shipped_profile(rag_item, profile_id):
    """A profile decides what the signals mean, never the seeds' edge rules: a critical
    contradiction zeroes faithfulness, an empty context scores 0.0 without a call, a valid
    refusal scores answer relevance 1.0, and similarity without a reference is null."""
    from judgegraph.calibration.profile import shipped_profiles
    from judgegraph.run.context import JudgeContext

    profile = next(p for p in shipped_profiles() if p.id == profile_id)

    def judged(item, claim_extraction="sentences", **scripts):
        model = fakes.judge(**happy_scripts(**scripts))
        context = JudgeContext(model=model, model_id="scripted", calibration=profile, allow_profile_mismatch=True,
                               claim_extraction=claim_extraction)
        return run_evaluation(item, model=context).result, model

    contradicted = dict(rag_item, answer="Craigslist, a classified advertisements website, was founded by Jim Buckmaster.")
    result, _ = judged(contradicted, "model",
                       extract_claims=fakes.claims("Craigslist was founded by Jim Buckmaster.",
                                                   "Craigslist is a classified advertisements website."),
                       check_claim=[fakes.verdict("contradicted", FOUNDER_LINE), fakes.verdict("supported", FOUNDER_LINE)])
    assert result["faithfulness"] == 0.0 and "critical fact" in result["faithfulness_explanation"]

    empty = dict(rag_item, context=[])
    result, model = judged(empty)
    assert result["faithfulness"] == 0.0 and result["context_relevance"] == 0.0
    assert model.count("check_claim") == 0 and model.count("judge_context_relevance") == 0

    refusal = dict(rag_item, answer="I cannot answer: the context does not say who founded it.")
    valid_refusal = {"refusal": True, "reason": True, "category": "insufficient-context", "cites": True}
    if profile.answer_relevance_parameters.reply == "labels":
        reply = {"judge_answer_relevance_labels": fakes.answer_labels(**valid_refusal)}
    else:
        reply = {"judge_answer_relevance": fakes.answer_relevance(**valid_refusal)}
    result, _ = judged(refusal, **reply)
    assert result["answer_relevance"] == 1.0

    no_reference = dict(rag_item, reference=None)
    result, _ = judged(no_reference)
    assert result["semantic_similarity"] is None
