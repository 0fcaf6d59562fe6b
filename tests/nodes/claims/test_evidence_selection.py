"""Which context lines a claim check shows the judge (`nodes.claims.evidence`)."""

from __future__ import annotations

import pytest

from judgegraph.graph.api import run_evaluation
from judgegraph.nodes.claims.evidence import FULL_CONTEXT_WORDS, TOP_LINES, claim_query, select_evidence
from judgegraph.text.tokens import content_words
from tests.support import fakes

BIRTH = "Ada Lovelace was born in London in 1815."
WORK = "Ada Lovelace worked with Charles Babbage on the Analytical Engine."
FILLERS = [
    f"Filler sentence {word} describes weather patterns, ocean tides, mountain ranges and distant galaxies in great detail."
    for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                 "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo")
]
LONG_LINES = FILLERS[:7] + [BIRTH] + FILLERS[7:14] + [WORK] + FILLERS[14:]
LONG_CONTEXT = [" ".join(LONG_LINES[:10]), " ".join(LONG_LINES[10:])]
QUESTION = "Where was Ada Lovelace born?"


def test_the_long_context_is_long():
    assert sum(len(line.split()) for line in LONG_LINES) > FULL_CONTEXT_WORDS
    assert len(LONG_LINES) == 20


@pytest.mark.parametrize("embedder", [None, fakes.HashEmbedder()], ids=["lexical", "embedder"])
def test_a_short_context_is_shown_whole(embedder):
    passages = ["Craigslist was founded in 1995 by Craig Newmark. It is a website.", "A 2005 documentary exists."]
    evidence = select_evidence("Craig Newmark founded Craigslist.", "Who founded Craigslist?", passages, embedder)
    assert evidence.whole_context
    assert evidence.lines == ["Craigslist was founded in 1995 by Craig Newmark.", "It is a website.", "A 2005 documentary exists."]
    assert len(evidence.closeness) == 3
    assert evidence.best_line == "Craigslist was founded in 1995 by Craig Newmark."


@pytest.mark.parametrize("embedder", [None, fakes.HashEmbedder()], ids=["lexical", "embedder"])
def test_a_long_context_is_cut_to_the_closest_lines_in_context_order(embedder):
    evidence = select_evidence("Ada Lovelace was born in London.", QUESTION, LONG_CONTEXT, embedder)
    assert not evidence.whole_context
    assert len(evidence.lines) == TOP_LINES
    assert BIRTH in evidence.lines and WORK in evidence.lines
    positions = [LONG_LINES.index(line) for line in evidence.lines]
    assert positions == sorted(positions)  # original order kept, not closeness order
    assert evidence.best_line == BIRTH


def test_few_lines_are_shown_whole_however_long():
    long_line = " ".join(["word"] * 400) + "."
    evidence = select_evidence("A claim about words.", "Q?", [long_line, "Second."], None)
    assert evidence.whole_context and len(evidence.lines) == 2


def test_limits_can_be_set():
    evidence = select_evidence("Ada Lovelace was born in London.", QUESTION, LONG_CONTEXT, None,
                               full_context_words=10_000)
    assert evidence.whole_context and evidence.lines == LONG_LINES
    evidence = select_evidence("Ada Lovelace was born in London.", QUESTION, LONG_CONTEXT, None, top_lines=1)
    assert evidence.lines == [BIRTH]


def test_no_context_gives_no_lines():
    evidence = select_evidence("Anything.", "Q?", [], None)
    assert evidence.lines == [] and evidence.whole_context and evidence.best_line == ""


def test_short_claims_are_ranked_with_the_question():
    assert claim_query("London.", QUESTION) == f"{QUESTION} London."
    long_claim = "Ada Lovelace was born in London in the year 1815."
    assert claim_query(long_claim, QUESTION) == long_claim
    # "London." alone shares no word with the birth line's neighbours; with the question it finds it
    evidence = select_evidence("London.", QUESTION, LONG_CONTEXT, None, top_lines=1)
    assert evidence.lines == [BIRTH]


def test_content_words_drop_stopwords_and_plural_s():
    assert content_words("The cats were in the Houses of Parliament, and it is glass.") == [
        "cat", "house", "parliament", "glass"]


def test_the_judge_sees_only_the_selected_lines_and_its_line_number_refers_to_them(fake_default_embedder):
    claim = "Ada Lovelace was born in London."
    item = {"question": QUESTION, "context": LONG_CONTEXT, "answer": claim}
    shown = select_evidence(claim, QUESTION, LONG_CONTEXT, fake_default_embedder).lines
    number = shown.index(BIRTH) + 1
    assert number != LONG_LINES.index(BIRTH) + 1  # numbering is of the shown lines
    model = fakes.judge(check_claim=fakes.verdict("supported", number),
                        judge_context_relevance=fakes.context_relevance("yes", [8]),
                        judge_answer_relevance=fakes.answer_relevance())
    run = run_evaluation(item, model=model)
    prompt = model.prompts_for("check_claim")[0]
    for n, line in enumerate(shown, 1):
        assert f"[{n}] {line}" in prompt
    assert f"[{TOP_LINES + 1}]" not in prompt
    assert all(line not in prompt for line in LONG_LINES if line not in shown)
    assert run.verdicts[0].evidence == BIRTH and run.verdicts[0].evidence_found
    assert run.result["faithfulness"] == 1.0
    event = next(e for e in run.trace if e.node == "check_claim")
    assert event.detail["lines_shown"] == TOP_LINES and event.detail["whole_context"] is False


def test_an_out_of_range_line_number_falls_back_to_the_closest_line(rag_item):
    model = fakes.judge(check_claim=fakes.verdict("supported", 9),
                        judge_context_relevance=fakes.context_relevance("yes", [1]),
                        judge_answer_relevance=fakes.answer_relevance())
    run = run_evaluation(rag_item, model=model)
    assert run.verdicts[0].evidence == rag_item["context"][0]  # the founding line, closest to the claim
    assert run.verdicts[0].evidence_found and run.result["faithfulness"] == 1.0
