"""Cited answers written as attackers and real tools write them, judged through the public API
with a judge that supports every claim: citation text never becomes claim text (so never a
number conflict), passages keep the user's numbering, repeated sentences each get their
verdict, and ids that do not line up with their passages are refused."""

from __future__ import annotations

import collections
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgegraph.graph.api import evaluate
from judgegraph.text.citation_markers import find_markers, resolve, strip_markers
from judgegraph.text.numbers import numbers_in
from tests.conftest import happy_scripts
from tests.support import fakes

CONTEXT = [
    "Paris is the capital and largest city of France.",
    "The city of Paris has about 2.1 million inhabitants.",
    "Berlin lies on the river Spree.",
]
QUESTION = "How many people live in Paris, and what is it the capital of?"
PEOPLE, CAPITAL = "Paris has about 2.1 million inhabitants", "It is the capital of France"


def supporting_judge():
    """Every claim supported, no line named: only the cited passages' words decide citations."""
    return fakes.judge(**happy_scripts(check_claim=fakes.verdict("supported", 0)))


def judged(answer: str, context=CONTEXT, **extra) -> dict:
    return evaluate({"question": QUESTION, "answer": answer, "context": context, **extra}, model=supporting_judge())


SHAPES = {
    "sources list (Perplexity)": f"{PEOPLE} [2]. {CAPITAL} [1].\n\nSources:\n[1] Paris - Wikipedia 2023\n[2] Population of Paris 2021",
    "sources heading inline": f"{PEOPLE} [2]. {CAPITAL} [1].\n\nSources: [1] Wikipedia 2023; [2] INSEE 2021",
    "source lines without heading": f"{PEOPLE} [2]. {CAPITAL} [1].\n\n[1] https://en.wikipedia.org/wiki/Paris\n[2] https://insee.fr/2021",
    "footnote definitions": f"{PEOPLE}[^2]. {CAPITAL}[^1].\n\n[^1]: Wikipedia, 2023.\n[^2]: INSEE census 2021.",
    "link definitions": f"{PEOPLE} [2]. {CAPITAL} [1].\n\n[1]: https://en.wikipedia.org/wiki/Paris\n[2]: https://insee.fr/7",
    "doubled brackets": f"{PEOPLE} [[2]]. {CAPITAL} [[1]].",
    "caret": f"{PEOPLE}^2. {CAPITAL}^1.",
    "superscript": f"{PEOPLE}². {CAPITAL}¹.",
    "inline code": f"{PEOPLE} `[2]`. {CAPITAL} `[1]`.",
}


@pytest.mark.parametrize("answer", SHAPES.values(), ids=SHAPES.keys())
def test_a_supported_cited_answer_stays_faithful_whatever_its_citations_look_like(answer):
    result = judged(answer)
    assert result["faithfulness"] == 1.0, result["faithfulness_explanation"]
    assert result["citation_recall"] == 1.0 and result["citation_precision"] == 1.0
    claims = [c["claim"] for s in result["citations"]["sentences"] for c in s["claims"]]
    assert claims == [f"{PEOPLE}.", f"{CAPITAL}."]


def test_a_signed_number_in_brackets_is_a_citation_that_points_nowhere():
    result = judged(f"{PEOPLE} [-1]. {CAPITAL} [1].")
    assert result["faithfulness"] == 1.0  # "-1" is not a number the claim states
    assert result["citation_recall"] == 0.5
    assert [(u["marker"], u["parts"]) for u in result["citations"]["unresolved"]] == [("[-1]", ["-1"])]


def test_passage_ids_of_another_count_are_refused_with_the_counts():
    result = judged(f"{PEOPLE} [doc2]. {CAPITAL} [doc1].", context_ids=["doc1", "doc2"])
    assert result["evaluation_status"] == "failed" and result["faithfulness"] is None
    assert "'context_ids' gives 2 ids for 3 passages" in result["reason"]
    whole = judged(f"{PEOPLE} [doc2]. {CAPITAL} [doc1].", context_ids=["doc1", "doc2", None])
    assert whole["faithfulness"] == 1.0 and whole["citation_recall"] == 1.0


def test_a_blank_passage_keeps_its_number_and_supports_nothing():
    context = [CONTEXT[0], "   ", CONTEXT[1]]
    right = judged(f"{PEOPLE} [3]. {CAPITAL} [1].", context=context)
    assert right["citation_recall"] == 1.0 and right["citations"]["unresolved"] == []
    blank = judged(f"{PEOPLE} [2]. {CAPITAL} [1].", context=context)
    assert blank["citation_recall"] == 0.5
    [people, _] = blank["citations"]["sentences"]
    assert people["supported"] is False and [c["passage"] for c in people["citations"]] == [2]


def test_repeated_sentences_each_get_their_verdict_in_either_order():
    repeated = f"{PEOPLE} [2]. " * 3
    wrong = f"{CAPITAL} [3]."
    first, last = judged(repeated + wrong), judged(wrong + " " + repeated)
    assert first["citation_recall"] == last["citation_recall"] == 0.75
    for result in (first, last):
        verdicts = collections.Counter(s["supported"] for s in result["citations"]["sentences"])
        assert verdicts == {True: 3, False: 1}


def test_three_thousand_repeated_sentences_are_all_judged_in_bounded_time():
    answer = f"{PEOPLE} [2]. {CAPITAL} [1]. " * 1_500
    started = time.process_time()
    result = judged(answer)
    assert time.process_time() - started < 60
    verdicts = collections.Counter(s["supported"] for s in result["citations"]["sentences"])
    assert verdicts == {True: 3_000}
    assert result["citation_recall"] == 1.0


# -- properties of the marker families --------------------------------------------------------

NUMBERS = st.integers(min_value=1, max_value=30)
FAMILIES = {
    "bracket": lambda n: f" [{n}]",
    "caret-bracket": lambda n: f"[^{n}]",
    "doubled": lambda n: f" [[{n}]]",
    "caret": lambda n: f"^{n}",
    "code": lambda n: f" `[{n}]`",
    "fullwidth": lambda n: f"【{n}】",
    "source word": lambda n: f" (Source {n})",
    "signed": lambda n: f" [-{n}]",
}
WORDS = st.sampled_from(["Paris", "capital", "inhabitants", "river", "France", "Berlin", "tower"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(WORDS, min_size=1, max_size=6), family=st.sampled_from(sorted(FAMILIES)), number=NUMBERS,
       passages=st.integers(min_value=0, max_value=5))
def test_every_marker_family_is_read_and_leaves_no_digit_in_the_claim(words, family, number, passages):
    sentence = " ".join(words)
    text = f"{sentence}{FAMILIES[family](number)}."
    [marker] = find_markers(text, [None] * passages)
    resolved = resolve(marker, [None] * passages, passages)
    names_a_passage = family != "signed" and number <= passages
    assert bool(resolved.passages) == names_a_passage and bool(resolved.unresolved) != names_a_passage
    assert strip_markers(text) == f"{sentence}."
    assert numbers_in(strip_markers(text)) == set()


@settings(max_examples=100, deadline=None)
@given(words=st.lists(WORDS, min_size=1, max_size=6), sources=st.lists(NUMBERS, min_size=1, max_size=5),
       heading=st.sampled_from(["Sources:", "**References**", "## Sources", "Citations:", None]),
       definitions=st.booleans())
def test_a_source_list_never_reaches_the_claim_text(words, sources, heading, definitions):
    sentence = " ".join(words) + " [1]."
    if definitions:
        listing = "\n".join(f"[^{n}]: Source {n}, {2000 + n}" for n in sources)
    else:
        listing = "\n".join(filter(None, [heading] + [f"[{n}] Title {n} - {2000 + n}" for n in sources]))
    text = f"{sentence}\n\n{listing}"
    assert strip_markers(text) == " ".join(words) + "."
    assert [m.text for m in find_markers(text, [None] * 3)] == ["[1]"]


def test_sentences_past_the_claim_cap_are_named_not_silently_left_out():
    answer = " ".join(f"Paris has about 2.1 million inhabitants, says survey {chr(97 + n % 26)}{n} [2]."
                      for n in range(40))
    result = judged(answer)
    sentences = result["citations"]["sentences"]
    assert sum(s["supported"] is not None for s in sentences) == 12
    assert "28 more sentences are not counted: their claims come after the 12 claims checked per answer." \
        in result["citation_recall_explanation"]
