"""The citation benchmark on a tiny made-up snapshot in AttributionBench's format, never the real
data: its loader (markers, distractors, labels, what is left out), its scoring, and both methods
run end to end with a scripted judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import citation_agreement as bench
from benchmarks.judging import ItemOutcome
from benchmarks.split import part_of
from judgegraph.run.context import JudgeContext
from judgegraph.text.citation_markers import find_markers, resolve
from tests.support import fakes
from tests.support.snapshot_mirror import commit_snapshot


def record(n: int, claim: str, references: list[str], label: str, source: str = "ExpertQA") -> dict:
    return {"question": f"Question {n}?", "claim": claim, "claim_raw_string": claim, "response": claim,
            "references": references, "citation_links": [], "webpage_references": [], "attribution_label": label,
            "src_dataset": source, "id": f"{source}_{n}"}


RECORDS = [
    record(1, "The Blue Tower is 212 metres tall [4].", ["The Blue Tower is 212 metres tall."], "attributable"),
    record(2, "The Green River flooded in 1911[2]. It flooded again in 1950.",
           ["The Green River flooded in 1911 and in 1950.", "A second page."], "attributable"),
    record(3, "The Red Guild was founded by painters in 1820.", ["The Red Guild meets in the old town hall."],
           "not attributable", "Stanford-GenSearch"),
    record(4, "The silver fern grows to ten metres.", ["The silver fern is native to an island nation."],
           "not attributable", "Stanford-GenSearch"),
    record(5, "No reference here.", [], "not attributable"),
    record(6, "An odd label.", ["Some text."], "partially attributable"),
]
ATTRIBUTABLE = ("Blue Tower is 212 metres", "Green River flooded in 1911", "It flooded again in 1950")


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    """Intervals from 100 resamples instead of 1,000: the figures' code is the same, the test quicker."""
    from benchmarks import figures
    from judgegraph import stats

    def interval(statistic, units):
        found = stats.bootstrap_interval(statistic, units, resamples=100)
        return None if found is None else [round(found[0], 3), round(found[1], 3)]

    monkeypatch.setattr(figures, "_interval", interval)


@pytest.fixture
def snapshot(tmp_path, monkeypatch) -> Path:
    """A mirror root whose AttributionBench snapshot holds RECORDS; the module reads it at its commit."""
    records = "".join(json.dumps(r) + "\n" for r in RECORDS)
    mirror, commit = commit_snapshot(tmp_path, bench.REPO, {bench.FILES["id"]: records})
    monkeypatch.setattr(bench, "COMMIT", commit)
    return mirror


def test_the_loader_cites_every_reference_from_every_sentence_and_adds_an_uncited_distractor(snapshot):
    rows, left_out = bench.load_rows("id", 1, snapshot)
    assert left_out == 2  # no reference; a label other than the two
    by_id = {row["id"]: row for row in rows}
    flood = by_id["attributionbench_citations:ExpertQA_2"]
    # the claim's own "[2]" (the original answer's numbering) is gone; each sentence cites both references
    assert flood["answer"] == "The Green River flooded in 1911 [1, 2]. It flooded again in 1950 [1, 2]."
    assert flood["context"][:2] == RECORDS[1]["references"] and len(flood["context"]) == 3
    assert flood["context"][2] == RECORDS[2]["references"][0]  # the next usable record's first reference
    assert flood["human"]["binary_faithful"] == 1
    markers = find_markers(flood["answer"])
    assert {p for m in markers for p in resolve(m, [None] * 3, 3).passages} == {0, 1}  # never the distractor
    assert by_id["attributionbench_citations:Stanford-GenSearch_3"]["human"]["binary_faithful"] == 0
    assert bench.to_item(flood)["metrics"] == ["citation_recall"]
    plain, _ = bench.load_rows("id", 0, snapshot)
    assert all(len(row["context"]) == row["meta"]["cited"] for row in plain)


def test_the_split_is_by_row_id():
    row = {"id": "attributionbench_citations:ExpertQA_1"}
    assert part_of(bench.SET_NAME, row, 0) == part_of(bench.SET_NAME, row, 99)


def test_scoring_uses_the_fixed_decision_rules():
    rows = [{"id": str(n), "human": {"binary_faithful": label}, "meta": {"source": source}}
            for n, (label, source) in enumerate([(1, "A"), (1, "A"), (0, "B"), (0, "B")])]
    graph = [ItemOutcome(str(n), score, False) for n, score in enumerate([1.0, 1.0, 0.5, 0.0])]
    figures = bench.agreement_figures("graph", rows, graph)
    assert figures["decision_rule"] == "citation recall < 1.0"
    assert figures["balanced_accuracy_decision"] == 1.0 and figures["auroc"] == 1.0
    assert figures["balanced_accuracy_decision_ci"] == [1.0, 1.0] and "auroc_ci" in figures
    assert figures["sources"]["A"]["n"] == 2
    # the baseline's rule is score < 0.5: its 0.5 for a not-attributable row is a miss
    baseline = bench.agreement_figures("baseline", rows, graph)
    assert baseline["decision_rule"] == "score < 0.5" and baseline["balanced_accuracy_decision"] == 0.75
    # a failed item is left out of the figures
    failed = bench.agreement_figures("graph", rows, [*graph[:3], ItemOutcome("3", None, True, "boom")])
    assert failed["n"] == 3


def test_both_methods_run_on_the_same_rows_with_a_scripted_judge(snapshot, tmp_path, capsys):
    def attributable(prompt: str) -> bool:
        claim = prompt.rsplit("<claim>", 1)[-1] if "<claim>" in prompt else prompt[-400:]
        return any(fact in claim for fact in ATTRIBUTABLE)

    judge = fakes.judge(
        check_claim=lambda prompt: fakes.verdict("supported" if attributable(prompt) else "not-in-context", 1),
        answer_from_context={"answer": "unknown"},
        BaselineJudgment=lambda prompt: {"reasoning": "r", "score": 1.0 if any(f in prompt for f in ATTRIBUTABLE) else 0.0},
    )
    context = JudgeContext(model=judge, model_id="scripted", embeddings=False)
    out = tmp_path / "out"
    summaries = {}
    for part in ("tune", "report"):
        argv = ["--part", part, "--limit", "0", "--mirror-root", str(snapshot), "--out-dir", str(out)]
        assert bench.main(argv, context) == 0
        summaries[part] = json.loads(capsys.readouterr().out)
    assert sum(s["items"] for s in summaries.values()) == 4  # every usable row in exactly one part
    for summary in summaries.values():
        for method in ("graph", "baseline"):
            figures = summary["methods"][method]
            assert figures["failed"] == 0, summary
            assert figures["auroc"] in (None, 1.0)  # None when a part holds one class only
        assert summary["methods"]["baseline"]["calls_per_item"] == 1
    rows, _ = bench.load_rows("id", 1, snapshot)
    graph_items = [json.loads(line) for part in ("tune", "report") for line in
                   (out / f"items-attributionbench_citations-id-{part}-graph.jsonl").read_text().splitlines()]
    scores = {item["id"]: item["score"] for item in graph_items}
    labels = {row["id"]: row["human"]["binary_faithful"] for row in rows}
    assert scores == {key: float(value) for key, value in labels.items()}
    # the graph's calls are the claim checks (one per sentence) plus second readings of one-claim refusals
    assert judge.count("check_claim") == sum(row["answer"].count("[") for row in rows)
