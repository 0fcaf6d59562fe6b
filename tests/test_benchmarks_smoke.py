"""Smoke test of the benchmark harness: 3 items per set, a scripted judge, figures checked.

A scripted *perfect* judge (it reads the human label of the item in the prompt) must get
AUROC 1.0, balanced accuracy 1.0, Spearman 1.0 and pairwise accuracy 1.0 from both methods;
a judge that always fails must be counted, not crash. The real benchmark never runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgegraph.benchmarks import stats
from judgegraph.benchmarks.agreement import main
from judgegraph.benchmarks.datasets import DEFAULT_DATA_ROOT, SETS, hallucinated, load_rows, sample_path, select_rows, set_for_path
from judgegraph.benchmarks.overhead import orchestration, throughput
from judgegraph.graph.context import JudgeContext
from tests import fakes

pytestmark = pytest.mark.skipif(
    not all(sample_path(name).is_file() for name in SETS),
    reason=f"bench-data samples not found under {DEFAULT_DATA_ROOT}",
)
LIMIT = 3


def selected_rows() -> list[dict]:
    rows = []
    for bench in SETS.values():
        rows += select_rows(load_rows(sample_path(bench.name)), bench, LIMIT)
    return rows


def row_in(prompt: str, rows: list[dict]) -> dict:
    """The benchmark row a prompt is about: its answer and the start of its context appear."""
    found = [
        row for row in rows
        if (row["answer"] is None or row["answer"][:60] in prompt)
        and (not row["context"] or row["context"][:60] in prompt)
    ]
    assert len(found) == 1, f"{len(found)} rows match the prompt"
    return found[0]


def human_score(row: dict) -> float:
    """The human label as a 0..1 score (1 = faithful / similar / relevant)."""
    human = row["human"]
    if "score_0_1" in human:
        return human["score_0_1"]
    if "relevant" in human:
        return float(human["relevant"])
    return 0.0 if hallucinated(row) else 1.0


def perfect_judge(rows: list[dict]) -> fakes.ScriptedJudge:
    def check(prompt: str) -> dict:
        row = row_in(prompt, rows)
        quote = " ".join(row["context"].split()[:6])  # whole words: quotes must match word for word
        if hallucinated(row):
            return fakes.verdict("contradicted", quote, critical=True)
        return fakes.verdict("supported", quote)

    return fakes.judge(
        extract_claims=lambda prompt: fakes.claims("The answer states one fact."),
        check_claim=check,
        judge_context_relevance=lambda prompt: fakes.context_relevance(*[human_score(row_in(prompt, rows))] * 2),
        judge_semantic_similarity=lambda prompt: fakes.similarity(round(row_in(prompt, rows)["human"]["score_0_5"])),
        BaselineJudgment=lambda prompt: {"reasoning": "r", "score": human_score(row_in(prompt, rows))},
    )


def run_suite(tmp_path: Path, model) -> dict:
    context = JudgeContext(model=model, model_id="scripted")
    assert main(["--all", "--limit", str(LIMIT), "--out-dir", str(tmp_path), "--concurrency", "1"], context) == 0
    return json.loads((tmp_path / "benchmarks.json").read_text(encoding="utf-8"))


def by_set(report: dict) -> dict[str, dict]:
    return {entry["set"]: entry["methods"] for entry in report["sets"]}


def test_a_perfect_scripted_judge_gets_perfect_figures_from_both_methods(tmp_path):
    report = run_suite(tmp_path, perfect_judge(selected_rows()))
    sets = by_set(report)
    for method in ("graph", "baseline"):
        for name in ("halueval_qa", "faithbench"):
            figures = sets[name][method]["agreement"]
            assert figures["auroc"] == 1.0 and figures["balanced_accuracy"] == 1.0, (name, method, figures)
            assert figures["balanced_accuracy_best"] == 1.0
        assert sets["stsb"][method]["agreement"]["spearman"] == 1.0
        assert sets["msmarco_ctxrel"][method]["agreement"]["pairwise_accuracy"] == 1.0
        assert sets["msmarco_ctxrel"][method]["agreement"]["auroc"] == 1.0
    assert "strata" in sets["halueval_qa"]["graph"]["agreement"]
    graph_cost = sets["halueval_qa"]["graph"]["cost"]
    assert graph_cost["judged"] == LIMIT and graph_cost["failed"] == 0
    assert graph_cost["calls_per_item"] == 2  # one extraction, one claim check
    assert sets["halueval_qa"]["baseline"]["cost"]["calls_per_item"] == 1
    assert sets["stsb"]["graph"]["cost"]["calls_per_item"] == 1  # only semantic_similarity is judged
    assert graph_cost["input_tokens"] > 0 and graph_cost["seconds_per_item"] >= 0
    markdown = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert "| halueval_qa (faithfulness) | graph | 3 / 0 | BA 1.00" in markdown
    assert (tmp_path / "items-stsb.jsonl").is_file()
    if (tmp_path / "benchmarks.png").exists():
        assert (tmp_path / "benchmarks.png").read_bytes()[:4] == b"\x89PNG"


def test_failures_are_counted_not_raised(tmp_path):
    broken = fakes.judge(
        extract_claims=RuntimeError("server down"), judge_context_relevance="not json at all",
        judge_semantic_similarity=RuntimeError("server down"), BaselineJudgment="{\"score\": 7}",
    )
    sets = by_set(run_suite(tmp_path, broken))
    for methods in sets.values():
        for data in methods.values():
            assert data["cost"]["judged"] == 0 and data["cost"]["failed"] == data["cost"]["items"] > 0
    assert sets["halueval_qa"]["graph"]["agreement"]["auroc"] is None
    assert sets["stsb"]["baseline"]["agreement"]["spearman"] is None
    items = (tmp_path / "items-halueval_qa.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["error"] for line in items)


def test_small_limits_stay_balanced_and_pairs_stay_whole():
    halueval = select_rows(load_rows(sample_path("halueval_qa")), SETS["halueval_qa"], 6)
    assert sum(hallucinated(row) for row in halueval) == 3
    msmarco = select_rows(load_rows(sample_path("msmarco_ctxrel")), SETS["msmarco_ctxrel"], 3)
    assert len(msmarco) == 4 and len({row["meta"]["pair_id"] for row in msmarco}) == 2
    stsb = select_rows(load_rows(sample_path("stsb")), SETS["stsb"], 5)
    assert sorted(min(int(row["human"]["score_0_5"]), 4) for row in stsb) == [0, 1, 2, 3, 4]
    assert set_for_path(Path("../shared/bench-data/stsb/sample.jsonl")).metric == "semantic_similarity"


def test_statistics_match_known_values():
    assert stats.auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    assert stats.auroc([1, 1, 0], [True, False, False]) == 0.75  # a tie counts one half
    assert stats.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(0.8207826816681233)
    assert stats.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert stats.pearson([1, 1, 1], [1, 2, 3]) is None
    assert stats.pairwise_accuracy([(1, 0), (0.5, 0.5), (0, 1)]) == 0.5
    assert stats.best_threshold([1, 1, 0.5, 0, 1], [False, False, True, True, True]) == (1, pytest.approx(5 / 6))


def test_overhead_runs_with_a_fake_model():
    assert orchestration(items=2, claims=2)["calls_per_item"] == 6  # extract, 2 checks, 3 judgments
    levels = throughput(0.001, 1, [1, 2])["levels"]
    assert [row["concurrency"] for row in levels] == [1, 2] and all(row["items_per_s"] > 0 for row in levels)
