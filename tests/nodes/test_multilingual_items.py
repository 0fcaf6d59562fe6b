"""Items in other languages through the whole graph, with scripted judges: a faithful claim the
judge calls supported counts as supported in every script, its hallucinated twin with another
number is still caught, refusals are recognised, prompts state the language, and a language
without figures is judged and flagged, never failed."""

from __future__ import annotations

import pytest

from judgegraph.graph.api import run_evaluation
from tests.conftest import happy_scripts
from tests.support import fakes

# (language, question, context, faithful answer, hallucinated twin: another number)
ITEMS = [
    ("zh", "这家公司是哪一年成立的？", ["这家公司成立于2005年，总部设在上海。它有三百名员工。"],
     "该公司成立于２００５年。", "该公司成立于２００７年。"),
    ("ja", "東京の人口は何人ですか？", ["東京は日本の首都です。人口は約1400万人です。"],
     "東京の人口は約1400万人です。", "東京の人口は約１５００万人です。"),
    ("de", "Wie viele Einwohner hat die Stadt?", ["Die Stadt liegt am Rhein. Sie hat 3,7 Millionen Einwohner."],
     "Die Stadt hat 3,7 Millionen Einwohner.", "Die Stadt hat 4,2 Millionen Einwohner."),
    ("ru", "Сколько жителей в городе?", ["Город стоит на реке. В нём живут 3,7 млн человек."],
     "В городе живут 3,7 млн человек.", "В городе живут 4,2 млн человек."),
    ("es", "¿Cuántos habitantes tiene la ciudad?", ["La ciudad está junto al río. Tiene 3,7 millones de habitantes."],
     "La ciudad tiene 3,7 millones de habitantes.", "La ciudad tiene 4,2 millones de habitantes."),
]

LIVERAG_RELEVANCE = {"reasoning": "judged", "addresses_question": True, "no_answer": False, "answers_correctly": True,
                     "contains_irrelevant_content": False, "irrelevant_content_harms_usefulness": False}


def _item(question, context, answer, **extra):
    return {"question": question, "context": context, "answer": answer, **extra}


def _judge():
    """The judge says "supported" (p 0.9) for every claim, as the 1.5B judge did for the
    faithful zh and ja answers of issue #22; code alone must tell the twin apart."""
    return fakes.judge(**happy_scripts(check_claim=fakes.graded_verdict({"supported": 0.9, "not": 0.1}, line=1)))


@pytest.mark.parametrize(("language", "question", "context", "faithful", "_twin"), ITEMS, ids=[i[0] for i in ITEMS])
def test_a_faithful_claim_the_judge_supports_counts_as_supported(language, question, context, faithful, _twin):
    run = run_evaluation(_item(question, context, faithful), model=_judge())
    (verdict,) = run.verdicts
    assert verdict.grounding > 0.5, verdict  # was 0.0 for zh and ja: a sentence was one "word"
    assert verdict.counts_as_supported and verdict.conflict is None
    assert run.result["faithfulness"] == round(verdict.support, 2) >= 0.5
    assert run.result["evaluation_status"] == "success" and run.result["reason"] is None
    extraction = next(e for e in run.trace if e.node == "extract_claims")
    assert extraction.detail["language"] == language


@pytest.mark.parametrize(("language", "question", "context", "_faithful", "twin"), ITEMS, ids=[i[0] for i in ITEMS])
def test_the_hallucinated_twin_is_caught_by_the_number_check(language, question, context, _faithful, twin):
    run = run_evaluation(_item(question, context, twin), model=_judge())
    (verdict,) = run.verdicts
    assert verdict.model_verdict == "supported" and verdict.verdict == "contradicted"
    assert verdict.conflict and verdict.critical
    assert run.result["faithfulness"] == 0.0


def test_the_german_conflict_names_both_values():
    _, question, context, _, twin = ITEMS[2]
    run = run_evaluation(_item(question, context, twin), model=_judge())
    assert run.verdicts[0].conflict == "the claim says 4200000, the context says 3700000"


@pytest.mark.parametrize(
    "answer",
    ["Ich kann die Frage anhand des Kontexts nicht beantworten.", "根据上下文无法回答这个问题。",
     "Je ne peux pas répondre à cette question."],
)
def test_a_refusal_in_another_language_with_empty_context_is_faithful(answer):
    run = run_evaluation(_item("Wer hat die Firma gegründet?", [], answer), model=_judge())
    assert run.claims.declines_to_answer is True and run.claims.claims == []
    assert run.result["faithfulness"] == 1.0


def test_prompts_state_a_non_english_language_and_english_prompts_stay_as_they_were():
    _, question, context, faithful, _ = ITEMS[0]
    model = _judge()
    run_evaluation(_item(question, context, faithful), model=model, embeddings=False)
    for step in ("check_claim", "judge_semantic_similarity"):
        for prompt in model.prompts_for(step):
            assert "The item is written in Chinese (zh)." in prompt
    english = _judge()
    run_evaluation(_item("Who founded Craigslist?", ["Craig Newmark founded Craigslist in 1995."],
                         "Craig Newmark founded it.", reference="Craig Newmark."), model=english, embeddings=False)
    assert english.calls and all("The item is written in" not in prompt for _, prompt, _ in english.calls)


def test_the_item_language_field_wins_over_detection():
    model = _judge()
    run = run_evaluation(_item("Who?", ["Er wohnt in Berlin."], "Er wohnt in Berlin.", language="de-AT"), model=model)
    assert next(e for e in run.trace if e.node == "extract_claims").detail["language"] == "de"
    assert "The item is written in German (de)." in model.prompts_for("check_claim")[0]


def test_an_unmeasured_language_is_judged_and_flagged_never_failed():
    item = _item("Chi ha fondato l'azienda?", ["L'azienda è stata fondata da Mario Rossi nel 1990."],
                 "L'azienda è stata fondata da Mario Rossi.")
    run = run_evaluation(item, model=_judge())
    assert run.result["evaluation_status"] == "success"
    assert run.result["faithfulness"] is not None
    assert "Italian (it, detected) is not among the measured languages" in run.result["reason"]
    live = run_evaluation(
        {"question": item["question"], "answer": item["answer"], "documents": item["context"], "language": "it"},
        model=fakes.judge(check_claim=fakes.verdict("supported", 1), LiveRagRelevanceJudgment=LIVERAG_RELEVANCE),
        rubric="liverag",
    )
    assert live.result["faithfulness_score"] == 1
    assert "Italian (it, given by the item) is not among the measured languages" in live.result["evaluation_notes"]


@pytest.mark.parametrize("language", ["german!", "{{ 7*7 }}", "", 42])
def test_a_malformed_language_field_fails_cleanly_with_one_line(language):
    model = _judge()
    run = run_evaluation(_item("Who?", ["Ctx."], "Him.", language=language), model=model)
    assert run.result["evaluation_status"] == "failed"
    assert run.result["reason"].startswith("Input parsing error") and "'language'" in run.result["reason"]
    assert "\n" not in run.result["reason"] and not model.calls
