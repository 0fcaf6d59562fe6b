"""The citation rule (`nodes/citations/support.py`), decided from claim checks alone: each rule
of its docstring on a hand-built item, and the two metrics' decisions."""

from __future__ import annotations

from judgegraph.nodes.citations.sentences import answer_sentences, assign_claims
from judgegraph.nodes.citations.support import CitationParameters, CitationSignals, judge_citations
from judgegraph.nodes.rag.citations import decide_citation_precision, decide_citation_recall
from judgegraph.schemas.claims import CheckedClaim
from judgegraph.text.citation_markers import find_markers, strip_markers

PASSAGES = [
    "Paris is the capital and largest city of France.",
    "The city of Paris has about 2.1 million inhabitants.",
    "Berlin lies on the river Spree.",
]
QUESTION = "Tell me about Paris."


def checked(index: int, claim: str, evidence: str, supported: bool = True, verdict: str = "supported") -> CheckedClaim:
    return CheckedClaim(index=index, claim=claim, verdict=verdict, model_verdict=verdict, supported=supported,
                        support=1.0 if supported else 0.0, evidence=evidence, evidence_found=bool(evidence))


def signals(answer: str, verdicts: list[CheckedClaim], passages=PASSAGES, named=None, ids=None) -> CitationSignals:
    claims = [v.claim for v in sorted(verdicts, key=lambda v: v.index)]
    return CitationSignals(answer=answer, question=QUESTION, passages=passages,
                           passage_ids=ids or [None] * len(passages), claims=claims, verdicts=verdicts,
                           named_lines=named or {})


def test_a_sentence_whose_deciding_line_is_in_its_cited_passage_is_supported():
    outcome = judge_citations(signals("Paris is the capital of France [1].",
                                      [checked(0, "Paris is the capital of France.", PASSAGES[0])]))
    (sentence,) = outcome.report.sentences
    assert sentence.supported and sentence.claims[0].support == "cited_line"
    assert [(c.passage, c.role) for c in sentence.citations] == [(1, "supports")]
    assert (outcome.sentences_supported, outcome.sentences_counted) == (1, 1)
    assert (outcome.citations_precise, outcome.citations_counted) == (1, 1)


def test_a_deciding_line_in_an_uncited_passage_is_a_wrong_citation_naming_the_passage_that_supports_it():
    outcome = judge_citations(signals("Paris has about 2.1 million inhabitants [3].",
                                      [checked(0, "Paris has about 2.1 million inhabitants.", PASSAGES[1])]))
    (sentence,) = outcome.report.sentences
    assert sentence.supported is False and sentence.claims[0].support == "elsewhere"
    (wrong,) = outcome.report.wrong
    assert wrong.cited == [3] and wrong.supporting_passage == 2
    assert [c.role for c in sentence.citations] == ["irrelevant"]
    assert outcome.citations_precise == 0


def test_a_fact_stated_in_the_cited_passage_too_is_supported_by_its_words():
    passages = [PASSAGES[0], "Paris, the capital of France, is a large city."]
    outcome = judge_citations(signals("Paris is the capital of France [2].",
                                      [checked(0, "Paris is the capital of France.", passages[0])], passages))
    assert outcome.report.sentences[0].claims[0].support == "cited_words"
    assert outcome.sentences_supported == 1 and not outcome.report.wrong


def test_a_claim_supported_with_no_line_named_rests_on_the_words_of_its_cited_passages():
    # the judge named no line: the recorded evidence is code's closest line, not trusted by default
    answer = "Paris is the capital of France [3]."
    verdicts = [checked(0, "Paris is the capital of France.", PASSAGES[2])]
    not_named = judge_citations(signals(answer, verdicts, named={0: False}))
    assert not_named.report.sentences[0].claims[0].support == "elsewhere"
    assert not_named.report.sentences[0].claims[0].judge_named_line is False
    trusted = judge_citations(signals(answer, verdicts, named={0: False}), CitationParameters(trust_closest_line=True))
    assert trusted.report.sentences[0].claims[0].support == "cited_line"
    # the words decide when the cited passage holds them
    words = judge_citations(signals("Paris is the capital of France [1].",
                                    [checked(0, "Paris is the capital of France.", PASSAGES[2])], named={0: False}))
    assert words.report.sentences[0].claims[0].support == "cited_words"


def test_a_claim_the_context_does_not_support_makes_its_sentence_unsupported_and_its_citations_imprecise():
    outcome = judge_citations(signals("Paris has 9 million inhabitants [2].",
                                      [checked(0, "Paris has 9 million inhabitants.", PASSAGES[1], supported=False,
                                               verdict="contradicted")]))
    (sentence,) = outcome.report.sentences
    assert sentence.supported is False and sentence.claims[0].support == "unsupported"
    assert outcome.citations_precise == 0 and outcome.citations_counted == 1
    assert not outcome.report.wrong  # not a citation error: the claim itself is unsupported


def test_a_sentence_without_citation_is_listed_with_the_passage_that_supports_it():
    answer = "Paris is the capital of France [1]. It has about 2.1 million inhabitants."
    outcome = judge_citations(signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0]),
                                               checked(1, "It has about 2.1 million inhabitants.", PASSAGES[1])]))
    (uncited,) = outcome.report.uncited
    assert uncited.sentence == "It has about 2.1 million inhabitants." and uncited.supporting_passage == 2
    assert (outcome.sentences_supported, outcome.sentences_counted) == (1, 2)
    assert decide_citation_recall(signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0]),
                                                   checked(1, "It has about 2.1 million inhabitants.", PASSAGES[1])])
                                  ).score == 0.5


def test_a_marker_that_points_at_no_passage_is_listed_and_counts_as_an_imprecise_citation():
    answer = "Paris is the capital of France [1][2020]."
    outcome = judge_citations(signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0])]))
    (unresolved,) = outcome.report.unresolved
    assert unresolved.marker == "[2020]" and unresolved.parts == ["2020"]
    assert [c.role for c in outcome.report.sentences[0].citations] == ["supports", "points_nowhere"]
    assert (outcome.citations_precise, outcome.citations_counted) == (1, 2)
    score = decide_citation_precision(signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0])]))
    assert score.score == 0.5 and "[2020] (2020)" in score.explanation


def test_an_extra_citation_that_holds_nothing_is_irrelevant():
    answer = "Paris is the capital of France [1][3]."
    outcome = judge_citations(signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0])]))
    assert [(c.passage, c.role) for c in outcome.report.sentences[0].citations] == [(1, "supports"), (3, "irrelevant")]
    assert outcome.sentences_supported == 1 and (outcome.citations_precise, outcome.citations_counted) == (1, 2)
    assert "Not needed: [3]" in decide_citation_precision(
        signals(answer, [checked(0, "Paris is the capital of France.", PASSAGES[0])])).explanation


def test_citations_that_only_together_hold_a_claim_are_both_needed():
    passages = ["Marie Curie discovered polonium.", "Radium was found in Warsaw.", "Unrelated text here."]
    answer = "Marie Curie found polonium and radium in Warsaw [1, 2]."
    outcome = judge_citations(signals(answer, [checked(0, "Marie Curie found polonium and radium in Warsaw.",
                                                       "Unrelated text here.")], passages, named={0: True}))
    (sentence,) = outcome.report.sentences
    assert sentence.claims[0].support == "cited_words"
    assert [c.role for c in sentence.citations] == ["needed", "needed"]
    assert outcome.citations_precise == 2


def test_a_marker_opening_a_sentence_closes_the_sentence_before_it():
    answer = "Paris is the capital of France. [1] It has about 2.1 million inhabitants [2]."
    sentences = answer_sentences(answer, find_markers(answer))
    assert [[m.text for m in s.markers] for s in sentences] == [["[1]"], ["[2]"]]


def test_claims_are_given_to_the_sentence_that_makes_them():
    answer = "Paris [1] is the capital of France. It has about 2.1 million inhabitants [2]."
    sentences = answer_sentences(answer, find_markers(answer))
    claims = [strip_markers(s.text) for s in sentences][::-1] + ["Inhabitants of Paris: 2.1 million"]
    assign_claims(sentences, claims)
    assert [s.claims for s in sentences] == [[1], [0, 2]]


def test_a_failed_claim_check_fails_both_metrics_and_no_claim_means_not_applicable():
    failed = CheckedClaim(index=0, claim="Paris is the capital of France.", error="model call failed: boom")
    item = signals("Paris is the capital of France [1].", [failed])
    recall, precision = decide_citation_recall(item), decide_citation_precision(item)
    assert recall.score is None and recall.error == "model call failed: boom" and precision.error == recall.error
    empty = CitationSignals(answer="I hope this helps [1].", question=QUESTION, passages=PASSAGES,
                            passage_ids=[None] * 3, claims=[], verdicts=[])
    assert decide_citation_recall(empty).score is None and decide_citation_recall(empty).error is None
    assert "does not apply" in decide_citation_precision(empty).explanation
    no_extraction = CitationSignals(answer="x [1].", question=QUESTION, passages=PASSAGES, passage_ids=[None] * 3,
                                    claims=None, extraction_error="claim extraction failed: boom")
    assert decide_citation_recall(no_extraction).error == "claim extraction failed: boom"


def test_passages_named_by_id_are_judged_like_numbered_ones():
    ids = ["paris-capital", "paris-people", "berlin"]
    outcome = judge_citations(signals("Paris has about 2.1 million inhabitants [paris-people].",
                                      [checked(0, "Paris has about 2.1 million inhabitants.", PASSAGES[1])], ids=ids))
    assert outcome.report.sentences[0].supported
    assert [(c.written, c.passage) for c in outcome.report.sentences[0].citations] == [("paris-people", 2)]
