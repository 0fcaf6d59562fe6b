"""The standing regression check (benchmarks/regression.py): which code a side is, and the paired
figures and flips it prints, on synthetic per-item outcomes (no judge, no model)."""

from __future__ import annotations

import subprocess

from benchmarks import regression
from benchmarks.judging import ItemOutcome
from judgegraph import stats


def _row(item_id: str, hallucinated: bool) -> dict:
    return {"id": item_id, "human": {"hallucination": "yes" if hallucinated else "no"}}


def _outcome(item_id: str, score: float, support: float | None = None) -> ItemOutcome:
    detail = None if support is None else {"claims": [{"support": support}]}
    return ItemOutcome(id=item_id, score=score, failed=False, calls=2, input_tokens=700, output_tokens=20,
                       detail=detail)


def test_binary_comparison_gives_both_figures_on_the_rows_both_judged_and_lists_each_flip():
    rows = {f"r{i}": _row(f"r{i}", i % 2 == 0) for i in range(40)}
    base = {i: _outcome(i, 0.2 if r["human"]["hallucination"] == "yes" else 0.8) for i, r in rows.items()}
    candidate = dict(base)
    candidate["r0"] = _outcome("r0", 0.9)      # a hallucinated row let through: broke
    candidate["r1"] = _outcome("r1", 0.1)      # a faithful row flagged: broke
    base["r3"] = _outcome("r3", 0.1)           # flagged by the base, cleared by the candidate: fixed
    candidate["r5"] = ItemOutcome(id="r5", score=None, failed=True, error="judge down")  # not both judged
    del candidate["r7"]

    result = regression.binary_comparison(rows, base, candidate)

    assert result["units"] == 38
    ids = [i for i in rows if i not in ("r5", "r7")]
    truth = [rows[i]["human"]["hallucination"] == "yes" for i in ids]
    ba_base = stats.balanced_accuracy([base[i].score < 0.5 for i in ids], truth)
    ba_candidate = stats.balanced_accuracy([candidate[i].score < 0.5 for i in ids], truth)
    ba = result["figures"][0]
    assert ba["base"] == round(ba_base, 3) and ba["working_tree"] == round(ba_candidate, 3)
    assert ba["difference"] == round(round(ba_candidate, 3) - round(ba_base, 3), 3)
    low, high = ba["interval"]
    assert low <= ba["difference"] <= high
    auroc = result["figures"][1]
    assert auroc["base"] == round(stats.auroc([base[i].score for i in ids], [not t for t in truth]), 3)
    flips = {(f["id"], f["change"]) for f in result["flips"]}
    assert flips == {("r0", "broke"), ("r1", "broke"), ("r3", "fixed")}


def test_the_decision_is_the_graphs_rule_a_claim_under_half_support_flags_the_item():
    rows = {"a": _row("a", True), "b": _row("b", False)}
    # a mean score of 0.7 with one claim at 0.4: flagged, as benchmarks.figures.flagged says
    base = {"a": _outcome("a", 0.7, support=0.4), "b": _outcome("b", 0.9, support=0.9)}
    candidate = {"a": _outcome("a", 0.7, support=0.6), "b": _outcome("b", 0.9, support=0.9)}
    result = regression.binary_comparison(rows, base, candidate)
    assert [(f["id"], f["change"]) for f in result["flips"]] == [("a", "broke")]


def test_ranking_comparison_counts_a_pair_whose_order_changed():
    rows = {}
    for pair in range(10):
        rows[f"p{pair}+"] = {"id": f"p{pair}+", "human": {"relevant": 1}, "meta": {"pair_id": f"q{pair}"}}
        rows[f"p{pair}-"] = {"id": f"p{pair}-", "human": {"relevant": 0}, "meta": {"pair_id": f"q{pair}"}}
    base = {i: _outcome(i, 0.8 if i.endswith("+") else 0.3) for i in rows}
    candidate = dict(base, **{"p0+": _outcome("p0+", 0.3)})   # a tie now: 1 -> 0.5
    result = regression.ranking_comparison(rows, base, candidate)
    assert result["units"] == 10
    assert result["figures"][0]["base"] == 1.0 and result["figures"][0]["working_tree"] == 0.95
    assert result["flips"] == [{"id": "q0", "label": "pair", "change": "broke", "base": 1.0, "working_tree": 0.5}]


def _git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def test_a_sides_key_follows_the_code_not_the_docs_and_the_working_tree_is_snapshotted(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "nodes").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "nodes" / "rule.py").write_text("THRESHOLD = 0.5\n")
    (repo / "docs" / "page.md").write_text("before\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    monkeypatch.setattr(regression, "REPO_ROOT", repo)

    base = regression.base_side("HEAD")
    assert regression.working_tree_side().key == base.key           # nothing changed: one side

    (repo / "docs" / "page.md").write_text("after\n")
    assert regression.working_tree_side().key == base.key           # docs cannot change a judgement

    (repo / "nodes" / "new_rule.py").write_text("THRESHOLD = 0.6\n")  # untracked code counts
    changed = regression.working_tree_side()
    assert changed.key != base.key
    assert "new_rule.py" in _git(repo, "ls-tree", "-r", "--name-only", changed.commit)
    assert _git(repo, "status", "--porcelain")                       # the user's index is untouched
    assert "new_rule.py" not in _git(repo, "diff", "--cached", "--name-only")
