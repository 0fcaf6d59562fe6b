"""The follow-up relevance benchmark on a tiny made-up TREC CAsT 2021 snapshot and a scripted
judge, never the real data or model: the pairs (own vs another turn's passage, identical ones
skipped), which items carry history, the figures, and resume."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import conversation_agreement as conversations
from benchmarks import followup_relevance as bench
from benchmarks.split import part_of
from judgegraph.run.context import JudgeContext
from tests.support import fakes
from tests.support.snapshot_mirror import commit_snapshot

TOPICS_2021 = [
    {"number": 101, "turn": [
        {"number": 1, "raw_utterance": "What is lobular carcinoma?", "manual_rewritten_utterance": "What is lobular carcinoma?",
         "passage": "Lobular carcinoma starts in the lobules of the breast."},
        {"number": 2, "raw_utterance": "How deadly is it?",
         "manual_rewritten_utterance": "How deadly is lobular carcinoma?", "passage": "Lobular carcinoma is rarely deadly."},
        {"number": 3, "raw_utterance": "How is it treated?",
         "manual_rewritten_utterance": "How is lobular carcinoma treated?",
         "passage": "Lobular carcinoma is treated with surgery."},
        {"number": 4, "raw_utterance": "And what does surgery cost?",
         "manual_rewritten_utterance": "What does lobular carcinoma surgery cost?",
         "passage": "Lobular carcinoma is treated with surgery."},  # the same passage as turn 3
    ]},
    {"number": 102, "turn": [
        {"number": 1, "raw_utterance": "Tell me about the Glasgow summit.",
         "manual_rewritten_utterance": "Tell me about the Glasgow summit.", "passage": "COP26 was a climate summit."},
        {"number": 2, "raw_utterance": "Who hosted it?", "manual_rewritten_utterance": "Who hosted the Glasgow summit?",
         "passage": "The United Kingdom hosted COP26."},
    ]},
]


@pytest.fixture
def snapshot(tmp_path, monkeypatch) -> Path:
    """A mirror root whose treccastweb snapshot holds the 2021 topic file, read at its commit."""
    path = next(source[1] for source in conversations.SOURCES if source[0] == "cast2021")
    mirror, commit = commit_snapshot(tmp_path, conversations.REPO, {path: json.dumps(TOPICS_2021)})
    monkeypatch.setattr(conversations, "COMMIT", commit)
    return mirror


def test_a_pair_is_the_turns_own_passage_against_the_next_else_the_previous_turns(snapshot):
    loaded = bench.load_pairs(snapshot)
    by_id = {pair["id"]: pair for pair in loaded["pairs"]}
    # turn 101:3's next passage (turn 4's) is its own text, and turn 4's previous (turn 3's) is
    # its own text: both pairs say nothing and are skipped, counted; no fallback to another turn
    assert list(by_id) == ["cast2021:101:2", "cast2021:102:2"]
    assert loaded["identical"] == 2 and loaded["no_other"] == 0
    second = by_id["cast2021:101:2"]
    assert second["own"] == "Lobular carcinoma is rarely deadly."
    assert (second["other_turn"], second["other"]) == ("cast2021:101:3", "Lobular carcinoma is treated with surgery.")
    last = by_id["cast2021:102:2"]  # the topic's last turn: the previous turn's passage
    assert (last["other_turn"], last["other"]) == ("cast2021:102:1", "COP26 was a climate summit.")
    assert second["rewrite"] == "How deadly is lobular carcinoma?" and second["followup"] == "How deadly is it?"
    assert second["history"] == [{"role": "user", "content": "What is lobular carcinoma?"},
                                 {"role": "assistant", "content": "Lobular carcinoma starts in the lobules of the breast."}]
    rows = bench.item_rows(second)
    assert [(row["id"], row["passage"], row["human"]["relevant"]) for row in rows] == [
        ("cast2021:101:2:own", second["own"], 1), ("cast2021:101:2:other", second["other"], 0)]
    assert {row["meta"]["pair_id"] for row in rows} == {"cast2021:101:2"}


def test_only_the_graph_method_hands_the_judge_the_history(snapshot):
    pair = bench.load_pairs(snapshot)["pairs"][0]
    own, other = bench.item_rows(pair)
    items = {method: [bench.to_item(method)(row) for row in (own, other)] for method in bench.METHODS}
    for method, (first, second) in items.items():
        assert first["rubric"] == second["rubric"] == "rag" and first["metrics"] == ["context_relevance"]
        assert (first["context"], second["context"]) == ([pair["own"]], [pair["other"]])
        assert first["question"] == second["question"]  # both items of a pair: the same question
    assert items["graph"][0]["history"] == items["graph"][1]["history"] == pair["history"]
    assert "history" not in items["last_turn"][0] and "history" not in items["rewrite"][0]
    assert items["last_turn"][0]["question"] == items["graph"][0]["question"] == "How deadly is it?"
    assert items["rewrite"][0]["question"] == "How deadly is lobular carcinoma?"


def test_the_split_is_the_standalone_question_benchmarks_by_conversation(snapshot):
    pairs = bench.load_pairs(snapshot)["pairs"]
    for part in ("tune", "report"):
        expected = [p["id"] for n, p in enumerate(pairs) if part_of(conversations.SET_NAME, p, n) == part]
        assert [p["id"] for p in bench.pairs_of_part(pairs, part, None)] == expected
    assert len(bench.pairs_of_part(pairs, "tune", None)) + len(bench.pairs_of_part(pairs, "report", None)) == len(pairs)


def section(prompt: str, name: str) -> str:
    return re.search(rf"<{name}>\n(.*?)\n</{name}>", prompt, flags=re.DOTALL).group(1)


def test_the_figures_for_a_judge_that_knows_the_resolved_question_and_resume(snapshot, tmp_path, capsys):
    """The scripted judge finds a passage relevant only to the question it answers written out
    (a rewrite); a bare follow-up gets "partly" for any passage: last_turn ties every pair,
    graph (whose standalone question the judge writes as the rewrite) and rewrite rank every
    pair right."""
    turns = [turn for topic in TOPICS_2021 for turn in topic["turn"]]
    passage_of = {turn["manual_rewritten_utterance"]: turn["passage"] for turn in turns}
    rewrite_of = {turn["raw_utterance"]: turn["manual_rewritten_utterance"] for turn in turns}

    def relevance(prompt: str) -> dict:
        question = section(prompt, "question")
        if question not in passage_of:
            return fakes.context_relevance("partly", [])
        return fakes.context_relevance("yes", [1]) if passage_of[question] in prompt else fakes.context_relevance("no", [])

    judge = fakes.judge(judge_context_relevance=relevance,
                        write_standalone_question=lambda prompt: fakes.standalone(rewrite_of[section(prompt, "question")]))
    context = JudgeContext(model=judge, model_id="scripted", embeddings=False)
    out = tmp_path / "out"
    by_part = {part: bench.pairs_of_part(bench.load_pairs(snapshot)["pairs"], part, None) for part in ("tune", "report")}
    part = max(by_part, key=lambda p: len(by_part[p]))
    pairs = len(by_part[part])
    argv = ["--part", part, "--limit", "0", "--mirror-root", str(snapshot), "--out-dir", str(out)]
    assert bench.main(argv, context=context) == 0
    summary = json.loads(capsys.readouterr().out)
    methods = summary["methods"]
    assert list(methods) == ["last_turn", "graph", "rewrite"] and summary["pairs"] == pairs >= 1
    assert methods["last_turn"]["pairwise_accuracy"] == 0.5  # ties count half
    assert methods["graph"]["pairwise_accuracy"] == methods["rewrite"]["pairwise_accuracy"] == 1.0
    assert methods["graph"]["auroc"] == 1.0 and methods["last_turn"]["auroc"] == 0.5
    assert methods["graph"]["minus_last_turn"]["difference"] == 0.5
    assert methods["graph"]["minus_last_turn"]["pairs"] == pairs
    assert all(m["failed"] == 0 for m in methods.values())
    assert methods["graph"]["calls_per_item"] == 2 and methods["last_turn"]["calls_per_item"] == 1  # + the standalone question
    assert judge.count("write_standalone_question") == 2 * pairs
    report = json.loads((out / f"agreement-{bench.SET_NAME}-{part}.json").read_text())
    assert report["sets"][0]["skipped_identical"] == 2
    assert "Paired difference" in (out / f"agreement-{bench.SET_NAME}-{part}.md").read_text()
    # resume: drop one judged item of the graph's file; the same command judges only that one
    graph_file = out / f"items-{bench.SET_NAME}-{part}-graph.jsonl"
    kept = graph_file.read_text().splitlines()
    assert len(kept) == 2 * pairs
    graph_file.write_text("\n".join(kept[:-1]) + "\n")
    calls = len(judge.calls)
    assert bench.main(argv, context=context) == 0
    assert len(judge.calls) - calls == 2  # one graph item: its standalone question and its judgment
    assert json.loads(capsys.readouterr().out)["methods"] == methods


def test_a_dry_run_counts_pairs_without_a_model(snapshot, capsys):
    assert bench.main(["--dry-run", "--limit", "0", "--mirror-root", str(snapshot)]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["pairs_all_parts"] == 2 and counts["skipped_identical"] == 2


def test_unknown_methods_are_a_usage_error(snapshot):
    assert bench.main(["--methods", "graph,baseline", "--mirror-root", str(snapshot)]) == 2
