"""Smoke test of the benchmark harness: 3 items per set, a scripted judge, figures checked.

A scripted *perfect* judge (it reads the human label of the item in the prompt: a claim check
says "supported" or "contradicted" per the row's label, context relevance says "yes" with every
line useful or "no" with none, similarity gives the human 0-5 score) must get perfect figures
from both methods; a judge that always fails must be counted, not crash. The real benchmark
never runs here.

Similarity: the main run uses `JudgeContext(embeddings=False)`, so STS-B is judged by the
scripted 0-5 step and its Spearman must be 1.0; a second run scores STS-B with the (fake)
default embedder and only checks that the figures are computed with no model call.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks.agreement import main
from benchmarks.datasets import (
    DEFAULT_DATA_ROOT, PLACEHOLDER_ANSWER, SETS, hallucinated, load_rows, sample_path, select_rows, set_for_path,
)
from benchmarks.overhead import item_latency, orchestration, throughput
from judgegraph.run.context import JudgeContext
from tests.support import fakes

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


def squash(text: str) -> str:
    return " ".join(str(text).split())


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def section(prompt: str, name: str) -> str | None:
    found = re.search(rf"<{name}>\n(.*?)\n</{name}>", prompt, flags=re.DOTALL)
    return found.group(1) if found else None


def context_lines(prompt: str) -> list[str]:
    """The numbered context lines a step shows, else the raw context section."""
    context = section(prompt, "context") or ""
    if context.startswith("(empty:"):
        return []
    return re.findall(r"^\[\d+\] (.*)$", context, flags=re.MULTILINE) or ([context] if context else [])


def row_in(prompt: str, rows: list[dict]) -> dict:
    """The benchmark row a prompt is about, from what the prompt shows: the whole answer (or,
    for a claim check of a one-claim answer, the claim), the context lines, the question."""
    answer, claim, text = section(prompt, "answer"), section(prompt, "claim"), squash(prompt)

    lines = context_lines(prompt)

    def shows(row: dict) -> bool:
        seen = []  # what of the row the prompt shows; every part it has must match
        if answer is not None and answer != PLACEHOLDER_ANSWER:
            seen.append(bool(row["answer"]) and squash(answer) == squash(row["answer"]))
        elif claim is not None:
            seen.append(bool(row["answer"]) and words(claim) <= words(row["answer"]))
        if lines:
            seen.append(bool(row["context"]) and all(squash(line) in squash(row["context"]) for line in lines))
        if row["question"]:
            seen.append(squash(row["question"]) in text)
        return bool(seen) and all(seen)

    found = [row for row in rows if shows(row)]
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
        return fakes.verdict("contradicted" if hallucinated(row_in(prompt, rows)) else "supported", 0)

    def relevance(prompt: str) -> dict:
        if human_score(row_in(prompt, rows)) >= 0.5:
            return fakes.context_relevance("yes", range(1, len(context_lines(prompt)) + 1))
        return fakes.context_relevance("no", [])

    return fakes.judge(
        extract_claims=lambda prompt: fakes.claims("The answer states one fact."),
        check_claim=check,
        judge_context_relevance=relevance,
        judge_semantic_similarity=lambda prompt: fakes.similarity(round(row_in(prompt, rows)["human"]["score_0_5"])),
        BaselineJudgment=lambda prompt: {"reasoning": "r", "score": human_score(row_in(prompt, rows))},
    )


def run_suite(tmp_path: Path, model, *args: str, **settings) -> dict:
    context = JudgeContext(model=model, model_id="scripted", **settings)
    argv = ["--all", "--limit", str(LIMIT), "--out-dir", str(tmp_path), "--concurrency", "1", *args]
    assert main(argv, context) == 0
    return json.loads((tmp_path / "benchmarks.json").read_text(encoding="utf-8"))


def by_set(report: dict) -> dict[str, dict]:
    return {entry["set"]: entry["methods"] for entry in report["sets"]}


def items_file(tmp_path: Path, name: str, method: str, part: str = "report") -> list[dict]:
    path = tmp_path / f"items-{name}-{part}-{method}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_perfect_scripted_judge_gets_perfect_figures_from_both_methods(tmp_path):
    report = run_suite(tmp_path, perfect_judge(selected_rows()), embeddings=False)
    sets = by_set(report)
    for method in ("graph", "baseline"):
        for name in ("halueval_qa", "faithbench"):
            figures = sets[name][method]["agreement"]
            assert figures["auroc"] == 1.0 and figures["balanced_accuracy_05"] == 1.0, (name, method, figures)
            assert figures["balanced_accuracy_best"] == 1.0, (name, method, figures)
            for key in ("auroc_ci", "balanced_accuracy_05_ci"):
                assert figures[key] in (None, [1.0, 1.0]), (name, method, key, figures[key])
            if (name, method) != ("faithbench", "graph"):
                assert figures["balanced_accuracy"] == 1.0, (name, method, figures)
            if "balanced_accuracy_decision" in figures:  # the method's own decision rule
                assert figures["balanced_accuracy_decision"] == 1.0, (name, method, figures)
        assert sets["stsb"][method]["agreement"]["spearman"] == 1.0
        assert sets["msmarco_ctxrel"][method]["agreement"]["pairwise_accuracy"] == 1.0
        assert sets["msmarco_ctxrel"][method]["agreement"]["auroc"] == 1.0
    assert "strata" in sets["halueval_qa"]["graph"]["agreement"]
    assert report["settings"]["embeddings"] is False and report["settings"]["part"] == "report"
    assert report["settings"]["claim_extraction"] == "sentences"
    graph_cost = sets["halueval_qa"]["graph"]["cost"]
    assert graph_cost["judged"] == LIMIT and graph_cost["failed"] == 0
    # claims are cut in code: one claim check per claim, no extraction call; the default profile
    # asks no second reading (nodes/claims/second_reading.py: its band is closed)
    for record in items_file(tmp_path, "halueval_qa", "graph"):
        claims = record["detail"]["claims"]
        assert record["calls"] == len(claims) >= 1
        assert all(claim["verdict"] in ("supported", "contradicted") for claim in record["detail"]["claims"])
    # a perfectly judged faithful summary: every claim's support is the judge's P(supported) (the
    # default profile does not scale it by grounding), so the score is their mean.
    for record in items_file(tmp_path, "faithbench", "graph"):
        claims = record["detail"]["claims"]
        if all(claim["verdict"] == "supported" for claim in claims):
            assert 0.5 <= record["score"] <= 1.0
            assert record["score"] == pytest.approx(sum(c["support"] for c in claims) / len(claims), abs=0.006)
        else:
            assert record["score"] == 0.0
    assert sets["halueval_qa"]["baseline"]["cost"]["calls_per_item"] == 1
    assert sets["stsb"]["graph"]["cost"]["calls_per_item"] == 1  # only semantic_similarity is judged
    assert graph_cost["input_tokens"] > 0 and graph_cost["seconds_per_item"] >= 0
    for name, methods in sets.items():
        for method, data in methods.items():
            assert data["items_file"] == f"items-{name}-report-{method}.jsonl"
            assert (tmp_path / data["items_file"]).is_file()
    markdown = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    row = next(line for line in markdown.splitlines() if line.startswith("| halueval_qa (faithfulness) | graph | 3 / 0 |"))
    assert "BA@0.5 1.00" in row and "AUROC 1.00" in row
    assert "split part: report" in markdown
    if (tmp_path / "benchmarks.png").exists():
        assert (tmp_path / "benchmarks.png").read_bytes()[:4] == b"\x89PNG"


def test_similarity_from_embeddings_is_computed_without_model_calls(tmp_path, fake_default_embedder):
    report = run_suite(tmp_path, fakes.judge(), "--sets", "stsb")  # the judge has no script at all
    stsb = by_set(report)["stsb"]["graph"]
    assert stsb["cost"]["failed"] == 0 and stsb["cost"]["calls_per_item"] == 0
    assert stsb["agreement"]["spearman"] is not None and -1.0 <= stsb["agreement"]["spearman"] <= 1.0
    for record in items_file(tmp_path, "stsb", "graph"):
        assert record["detail"]["judge_semantic_similarity"]["model_id"] == fake_default_embedder.model_id
    assert report["settings"]["embeddings"] is True


def test_failures_are_counted_not_raised(tmp_path):
    broken = fakes.judge(
        extract_claims=RuntimeError("server down"), check_claim=RuntimeError("server down"),
        judge_context_relevance="not json at all",
        judge_semantic_similarity=RuntimeError("server down"), BaselineJudgment="{\"score\": 7}",
    )
    sets = by_set(run_suite(tmp_path, broken, embeddings=False))
    for methods in sets.values():
        for data in methods.values():
            assert data["cost"]["judged"] == 0 and data["cost"]["failed"] == data["cost"]["items"] > 0
    assert sets["halueval_qa"]["graph"]["agreement"]["auroc"] is None
    assert sets["stsb"]["baseline"]["agreement"]["spearman"] is None
    items = items_file(tmp_path, "halueval_qa", "graph")
    assert items and all(record["error"] and "server down" in record["error"] for record in items)


def test_small_limits_stay_balanced_and_pairs_stay_whole():
    halueval = select_rows(load_rows(sample_path("halueval_qa")), SETS["halueval_qa"], 6)
    assert sum(hallucinated(row) for row in halueval) == 3
    msmarco = select_rows(load_rows(sample_path("msmarco_ctxrel")), SETS["msmarco_ctxrel"], 3)
    assert len(msmarco) == 4 and len({row["meta"]["pair_id"] for row in msmarco}) == 2
    stsb = select_rows(load_rows(sample_path("stsb")), SETS["stsb"], 5)
    assert sorted(min(int(row["human"]["score_0_5"]), 4) for row in stsb) == [0, 1, 2, 3, 4]
    assert set_for_path(Path("../shared/bench-data/stsb/sample.jsonl")).metric == "semantic_similarity"


def test_overhead_runs_with_a_fake_model():
    # the fake item's answer has 3 sentences: 3 claim checks, context and answer relevance;
    # claims are cut in code and similarity comes from the (fake) embedder: no calls
    assert orchestration(items=2, claims=2)["calls_per_item"] == 5
    levels = throughput(0.001, 1, [1, 2])["levels"]
    assert [row["concurrency"] for row in levels] == [1, 2] and all(row["items_per_s"] > 0 for row in levels)
    latency = item_latency(0.001, 1, [1, 2], repeats=1)["levels"]
    assert [row["concurrency"] for row in latency] == [1, 2]
    assert all(row["critical_path_ms"] == 2.0 and row["slowest_ms"] >= row["median_ms"] > 0 for row in latency)
    slow = item_latency(0.001, 1, [1], repeats=1, judgment_latency_s=0.005)["levels"]
    assert slow[0]["critical_path_ms"] == 5.0 and slow[0]["median_ms"] >= 5.0


def test_framework_floor_runs_the_tasks_of_the_graph_with_send_tasks():
    # the real graph, 7 calls for 3 claims: validate_input, embed_item, 4 parallel nodes (the
    # claims node checks its 3 claims itself) and finalize once; the floor keeps the layout the
    # graph had with the claim checks as Send tasks (3 check_claim tasks, finalize twice: a no-op
    # while they are pending, then for real), the baseline issue 56 measures against
    from benchmarks.framework_floor import framework_floor, tasks_per_item
    from benchmarks.overhead import SEVEN_CALLS
    from judgegraph.graph.api import default_graph
    from tests.support.latency_judge import FixedLatencyJudge, item as fake_item

    context = JudgeContext(model=FixedLatencyJudge(latency_s=0.0, claims=3), model_id="fake", **SEVEN_CALLS)
    nodes_run = []
    for chunk in default_graph().stream({"item": fake_item()}, context=context, stream_mode="tasks"):
        if "result" not in chunk:  # a task's start, not its end
            nodes_run.append(chunk["name"])
    assert len(nodes_run) == 7 and tasks_per_item(3) == 11
    assert nodes_run.count("finalize") == 1 and nodes_run.count("check_claim") == 0
    floor = framework_floor(claims=3, calls=7, items=3, repeats=1)
    assert floor["tasks_per_item"] == 11 and floor["calls_per_item"] == 7
    assert floor["floor_cpu_ms"] > 0 and floor["langgraph_cpu_ms"] > 0 and floor["langchain_cpu_ms"] > 0
    assert floor["separate_cpu_ms"] == pytest.approx(floor["langgraph_cpu_ms"] + floor["langchain_cpu_ms"], abs=0.011)
    with pytest.raises(ValueError, match="makes 7 calls for 3 claims, not 6"):
        framework_floor(claims=3, calls=6, items=1, repeats=1)


def test_the_floor_graph_makes_one_call_in_each_node_that_judges_in_ours():
    """The floor's calls are made where ours are (inside the nodes, so LangChain copies the node's
    config into each, as for ours), one per judging node: 7 for 3 claims, in the same 11 tasks."""
    import asyncio

    from benchmarks.framework_floor import graph_of_the_same_shape, tasks_per_item
    from tests.support.latency_judge import FixedLatencyJudge

    model = FixedLatencyJudge(latency_s=0.0, claims=3)
    inside = []

    class Watching(FixedLatencyJudge):
        async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs):
            inside.append(run_manager.parent_run_id is not None)
            return await model._agenerate(messages, stop, run_manager, **kwargs)

    output = asyncio.run(graph_of_the_same_shape(3, Watching(claims=3)).ainvoke({"item": {}, "done": []}))
    assert len(output["done"]) == tasks_per_item(3) == 11
    assert output["done"].count("check_claim") == 3 and output["done"].count("judgment") == 3
    assert inside == [True] * 7 and model.counts["async"] == 7
    empty = asyncio.run(graph_of_the_same_shape(3).ainvoke({"item": {}, "done": []}))
    assert sorted(empty["done"]) == sorted(output["done"])


def test_the_floor_throughput_runs_every_item():
    import asyncio

    from benchmarks.framework_floor import graph_of_the_same_shape, run_floor_item
    from benchmarks.overhead import items_per_s
    from tests.support.latency_judge import FixedLatencyJudge

    model = FixedLatencyJudge(latency_s=0.001, claims=3)
    graph = graph_of_the_same_shape(3, model)
    assert asyncio.run(items_per_s(lambda: run_floor_item(graph, 3), 2, 4)) > 0
    assert model.counts["async"] == 4 * 7


def test_instructions_per_item_is_the_difference_over_the_extra_items(monkeypatch, capsys):
    """`benchmarks.instructions`: each side's children run as written (here without callgrind),
    and the figure is (count for more items - count for few) / (more - few), start-up cancelled."""
    from benchmarks import instructions

    for side in ("ours", "floor", "floor_apart"):
        instructions.SIDES[side](1)
    counts = {("ours", 5): 1_000_000_000, ("ours", 25): 1_600_000_000,
              ("floor", 5): 900_000_000, ("floor", 25): 1_300_000_000,
              ("floor_apart", 5): 800_000_000, ("floor_apart", 25): 1_100_000_000}
    monkeypatch.setattr(instructions.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(instructions, "instructions", lambda side, items, workdir: counts[(side, items)])
    assert instructions.main(["--items", "5,25"]) == 0
    assert capsys.readouterr().out.strip() == (
        "ours 30.00 M instructions per item, the frameworks' floor 20.00 M: 1.50x "
        "(the floor's graph and calls measured apart: 15.00 M, 2.00x)")


def test_instructions_without_valgrind_says_what_to_install(monkeypatch, capsys):
    from benchmarks import instructions

    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.main([]) == 2
    assert "apt-get install valgrind" in capsys.readouterr().err
