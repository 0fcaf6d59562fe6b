"""Claims and context lines cut in code (`text.segmentation`), and refusal sentences."""

from __future__ import annotations

import pytest

from judgegraph.graph.api import run_evaluation
from judgegraph.text.segmentation import MAX_CLAIMS, answer_claims, context_lines, split_sentences
from tests.support import fakes
from tests.conftest import happy_scripts


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Paris is big. It is old! Really?", ["Paris is big.", "It is old!", "Really?"]),
        ("One line only", ["One line only"]),
        ("A  b.\n\nC   d.", ["A b.", "C d."]),                       # whitespace collapsed
        ("The film (2005). It won.", ["The film (2005).", "It won."]),
        ("The price rose 3.5% in 2020. Sales fell.", ["The price rose 3.5% in 2020.", "Sales fell."]),
        ("", []),
        ("   ", []),
    ],
)
def test_sentences(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ('The film is "I Love You, Man".I Love You was its working title.',
         ['The film is "I Love You, Man".', "I Love You was its working title."]),
        ("It ended.Next it began.", ["It ended.", "Next it began."]),
    ],
)
def test_glued_sentences_are_split(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Dr. Smith works at the U.S. Navy. He was born in 1950.", ["Dr. Smith works at the U.S. Navy.", "He was born in 1950."]),
        ("J. R. R. Tolkien wrote it. It sold well.", ["J. R. R. Tolkien wrote it.", "It sold well."]),
        ("Mt. Everest is high. It is in Nepal.", ["Mt. Everest is high.", "It is in Nepal."]),
        ("Born in Jan. 1950 in Ohio.", ["Born in Jan. 1950 in Ohio."]),
        ("See e.g. the list. Done.", ["See e.g. the list.", "Done."]),
        ("Version 2.5 is out.", ["Version 2.5 is out."]),
    ],
)
def test_abbreviations_initials_and_decimals_do_not_end_a_sentence(text, sentences):
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("It rained; it poured.", ["It rained.", "It poured."]),              # ";" always splits
        ("Craigslist was founded by Craig Newmark, and the documentary came out in 2007.",
         ["Craigslist was founded by Craig Newmark.", "The documentary came out in 2007."]),
        ("Craig Newmark founded the website, but he did not run it for long.",
         ["Craig Newmark founded the website.", "He did not run it for long."]),
        ("The old dog slept soundly, while the young cat played outside.",
         ["The old dog slept soundly.", "The young cat played outside."]),
        ("Apples, pears, and plums grow here.", ["Apples, pears, and plums grow here."]),  # a list
        ("Craig founded it, and Jim ran the company for years.",                          # short side
         ["Craig founded it, and Jim ran the company for years."]),
        ("Prices rose, while wages fell.", ["Prices rose, while wages fell."]),
        ("I Love You, Man", ["I Love You, Man"]),                               # a short answer is one claim
        ("J. R. R. Tolkien wrote it; it was published in 1954.", ["J. R. R. Tolkien wrote it.", "It was published in 1954."]),
    ],
)
def test_independent_clauses_become_claims(answer, claims):
    assert answer_claims(answer) == claims


@pytest.mark.parametrize(("text", "first"), [('He said "yes." Then he left.', 'He said "yes."'),
                                             ("It ended (at last.) Then it began.", "It ended (at last.)")])
def test_a_closing_quote_after_the_full_stop_stays_with_its_sentence(text, first):
    assert split_sentences(text)[0] == first


def test_a_list_ending_in_a_long_item_is_not_split():
    answer = "It is usually found in Indonesian waters, the Philippines, and the Sea of Japan."
    assert answer_claims(answer) == [answer]


def test_claims_are_capped():
    answer = " ".join(f"Claim number {i} holds." for i in range(20))
    claims = answer_claims(answer)
    assert len(claims) == MAX_CLAIMS
    assert claims[0] == "Claim number 0 holds." and claims[-1] == f"Claim number {MAX_CLAIMS - 1} holds."


def test_context_lines_are_every_sentence_of_every_passage_in_order():
    passages = ["First one. Second one.", "", "Third one", "Dr. Who is fourth. Fifth!"]
    assert context_lines(passages) == ["First one.", "Second one.", "Third one", "Dr. Who is fourth.", "Fifth!"]


# --- through the graph: refusal sentences are not claims ---------------------------------------

@pytest.mark.parametrize(
    ("answer", "claims", "declines"),
    [
        ("Craig Newmark founded Craigslist in 1995.", ["Craig Newmark founded Craigslist in 1995."], False),
        ("I cannot answer from the provided context.", [], True),
        ("I don't know.", [], True),
        ("Craig Newmark founded Craigslist. I don't know when the documentary came out.",
         ["Craig Newmark founded Craigslist."], True),
        ("The context does not mention the founder.", [], True),
        ("Nobody can deny that Craig Newmark founded it.", ["Nobody can deny that Craig Newmark founded it."], False),
        ("The context states that Craig Newmark founded Craigslist.", ["Craig Newmark founded Craigslist."], False),
    ],
)
def test_sentence_claims_and_refusals_through_the_graph(rag_item, answer, claims, declines):
    rag_item["answer"] = answer
    model = fakes.judge(**happy_scripts())
    run = run_evaluation(rag_item, model=model)
    assert run.claims.claims == claims
    assert run.claims.declines_to_answer is declines
    assert model.count("extract_claims") == 0
    assert model.count("check_claim") == len(claims)
    extraction = next(e for e in run.trace if e.node == "extract_claims")
    assert extraction.calls == 0 and extraction.detail["method"] == "sentences"


def test_model_extraction_is_still_available(rag_item):
    model = fakes.judge(**happy_scripts(extract_claims=fakes.claims("Craig Newmark founded Craigslist.")))
    run = run_evaluation(rag_item, model=model, claim_extraction="model")
    assert model.count("extract_claims") == 1
    assert run.claims.claims == ["Craig Newmark founded Craigslist."]
    extraction = next(e for e in run.trace if e.node == "extract_claims")
    assert extraction.calls == 1 and extraction.detail["method"] == "model"
