"""The comparison's statistics against cases computed by hand, and the pairing rules (status
changes apart, multi-rubric items, kinds from the rubric declarations)."""

from __future__ import annotations

import pytest

from judgegraph.comparison import compare_runs
from judgegraph.comparison.paired_stats import label_stats, ordinal_stats, score_stats, sign_test, wilcoxon_p
from tests.support.result_records import (
    categorical,
    coverage,
    liverag_result,
    rag,
    record,
    rag_result,
    write_results,
)


def test_score_stats_by_hand():
    # 8 items: 6 up (by 0.25 or 0.5), 2 unchanged; values exact in binary, so sums are exact
    before = [0.5, 0.25, 0.0, 0.5, 0.25, 0.0, 1.0, 0.75]
    after = [0.75, 0.5, 0.5, 1.0, 0.5, 0.25, 1.0, 0.75]
    s = score_stats(before, after)
    assert (s.n, s.wins, s.losses, s.ties) == (8, 6, 0, 2)
    assert s.mean_before == pytest.approx(3.25 / 8) and s.mean_after == pytest.approx(5.25 / 8)
    assert s.mean_difference == pytest.approx(2.0 / 8)  # 0.25+0.25+0.5+0.5+0.25+0.25
    # sign test: 6 wins of 6 -> two-sided 2 * (1/2)^6
    assert s.sign_test_p == pytest.approx(2 / 64)
    low, high = s.interval
    assert 0 <= low <= s.mean_difference <= high <= 0.5  # within the smallest and largest change
    assert low < high


def test_a_constant_change_has_a_point_interval_and_no_change_has_no_sign_test():
    same = score_stats([0.25, 0.5, 0.75], [0.5, 0.75, 1.0])
    assert same.interval == (0.25, 0.25) and same.sign_test_p == pytest.approx(0.25)  # 3 of 3: 2/8
    none = score_stats([0.5, 0.5], [0.5, 0.5])
    assert none.interval == (0.0, 0.0) and none.sign_test_p is None and none.ties == 2
    assert sign_test(0, 0) is None


def test_wilcoxon_on_ordinal_steps_by_hand():
    # coverage 0..5: changes +1 +2 +3 -4 +5 -> ranks 1..5, W- = 4; exact two-sided
    # p = 2 * #{subsets of 1..5 summing to <= 4} / 2^5 = 2 * 7 / 32
    o = ordinal_stats([0, 0, 0, 4, 0], [1, 2, 3, 0, 5], (0, 5))
    assert (o.n, o.up, o.down, o.same) == (5, 4, 1, 0)
    assert o.wilcoxon_p == pytest.approx(14 / 32)
    assert o.net_share_improved == pytest.approx(3 / 5)
    assert -1 <= o.interval[0] <= 0.6 <= o.interval[1] <= 1
    assert o.steps == [0, 1, 2, 3, 4, 5]
    assert o.transitions[(4.0, 0.0)] == 1 and o.transitions[(0.0, 5.0)] == 1
    assert wilcoxon_p([0, 0]) is None  # nothing changed: undefined, not NaN


def test_mcnemar_per_label_by_hand():
    # "Good": lost by 1 item, gained by 7 -> exact binomial 2 * P(X <= 1 | n=8) = 2 * 9 / 256
    before = ["Good"] + ["Poor"] * 7 + ["Fair", "Fair"]
    after = ["Poor"] + ["Good"] * 7 + ["Fair", "Good"]
    stats = label_stats(before, after)
    assert stats.n == 10 and stats.changed == 9
    tests = {t.label: t for t in stats.tests}
    assert (tests["Poor"].lost, tests["Poor"].gained) == (7, 1)
    assert tests["Poor"].p == pytest.approx(18 / 256)
    assert (tests["Good"].lost, tests["Good"].gained) == (1, 8)
    assert tests["Good"].p == pytest.approx(2 * 10 / 512)  # 1 of 9
    assert stats.transitions[("Poor", "Good")] == 7 and stats.transitions[("Fair", "Fair")] == 1


def test_status_changes_are_counted_apart_never_in_the_means(tmp_path):
    before = write_results(tmp_path / "a.jsonl", [
        rag("q1", 0.5), rag("q2", 1.0), rag("q3", None, error="faithfulness: the judge never gave a valid reply"),
        rag("q4", 0.0), rag("q5", None)])
    after = write_results(tmp_path / "b.jsonl", [
        rag("q1", 0.75), rag("q2", None, error="faithfulness: timeout"), rag("q3", 0.25),
        rag("q4", 0.0), rag("q5", None)])
    comparison = compare_runs(before, after)
    faith = comparison.metric("faithfulness")
    assert faith.score.n == 2  # q1 and q4 only
    assert faith.score.mean_before == pytest.approx(0.25) and faith.score.mean_after == pytest.approx(0.375)
    assert faith.pairs.status_changes == {("judged", "failed"): 1, ("failed", "judged"): 1}
    assert faith.pairs.status_change_ids[("judged", "failed")] == ["q2"]
    assert faith.pairs.not_judged_in_both == 1  # q5: not applicable twice


def test_kinds_come_from_the_declarations_and_multi_rubric_items_pair_per_metric(tmp_path):
    multi_before = record("m", ["rag", "liverag"], {"rag": rag_result(faithfulness=0.5),
                                                    "liverag": liverag_result(1, 0)})
    multi_after = record("m", ["rag", "liverag"], {"rag": rag_result(faithfulness=1.0),
                                                   "liverag": liverag_result(2, 1)})
    before = write_results(tmp_path / "a.jsonl", [multi_before, rag("r", 0.0), coverage("c", 2), categorical("e", "Poor")])
    after = write_results(tmp_path / "b.jsonl", [multi_after, rag("r", 0.5), coverage("c", 4), categorical("e", "Good")])
    comparison = compare_runs(before, after)
    kinds = {m.key: m.pairs.kind for m in comparison.metrics}
    assert kinds == {"faithfulness": "score", "context_relevance": "score", "answer_relevance": "score",
                     "semantic_similarity": "score", "liverag_relevance": "ordinal",
                     "liverag_faithfulness": "ordinal", "coverage": "ordinal", "expected_output": "score"}
    assert comparison.metric("context_relevance").pairs.not_judged_in_both == 2  # null twice: not applicable
    assert comparison.metric("faithfulness").score.n == 2  # the multi-rubric item's rag part and "r"
    assert comparison.metric("liverag_relevance").ordinal.up == 1
    assert comparison.metric("coverage").ordinal.transitions == {(2.0, 4.0): 1}
    labels = comparison.metric("expected_output").labels
    assert labels.transitions == {("Poor", "Good"): 1} and comparison.metric("expected_output").score is None
    assert comparison.metric("liverag_relevance").pairs.scale == (-1, 2)


def test_a_rubric_changed_between_runs_is_a_status_change(tmp_path):
    before = write_results(tmp_path / "a.jsonl", [rag("x", 0.5), rag("y", 0.5)])
    after = write_results(tmp_path / "b.jsonl", [rag("x", 0.5), coverage("y", 3)])
    comparison = compare_runs(before, after)
    assert comparison.metric("faithfulness").pairs.status_changes == {("judged", "absent"): 1}
    assert comparison.metric("coverage").pairs.status_changes == {("absent", "judged"): 1}


def test_moved_items_show_both_explanations_fields_and_flipped_claims(tmp_path):
    def details(answer, verdicts):
        return {"item": {"question": "Q?", "answer": answer},
                "verdicts": [{"claim": c, "effective_verdict": v, "support": 1.0 if v == "supported" else 0.0,
                              "error": None} for c, v in verdicts]}

    before = write_results(tmp_path / "a.jsonl", [
        rag("a", 1.0, details=details("A. B.", [("A.", "supported"), ("B.", "supported")])),
        rag("b", 0.5), rag("c", 0.5)])
    after = write_results(tmp_path / "b.jsonl", [
        rag("a", 0.5, details=details("A. C.", [("A.", "contradicted"), ("C.", "supported")])),
        rag("b", 0.75), rag("c", 0.5)])
    faith = compare_runs(before, after, top=5).metric("faithfulness")
    assert [(m.id, m.change) for m in faith.moved] == [("a", -0.5), ("b", 0.25)]  # c did not move
    moved = faith.moved[0]
    assert [(f.claim, f.before, f.after, f.now_counts) for f in moved.flips] == [("A.", "supported", "contradicted", False)]
    assert moved.claims_only_before == ["B."] and moved.claims_only_after == ["C."]
    assert moved.fields == [("answer", "A. B.", "A. C.")] and moved.same_fields == [("question", "Q?")]
    assert moved.explanation_before == "faithfulness explanation"
    assert len(compare_runs(before, after, top=1).metric("faithfulness").moved) == 1
