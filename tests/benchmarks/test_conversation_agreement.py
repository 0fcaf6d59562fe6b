"""The standalone-question benchmark on a tiny made-up TREC CAsT snapshot and a fake judge,
never the real data or model: the loader, the split by conversation, the rule fixed before any
run, the three methods and their figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks import conversation_agreement as bench
from benchmarks.split import part_of
from judgegraph.run.context import JudgeContext
from tests.support import fakes
from tests.support.snapshot_mirror import commit_snapshot

TOPICS_2021 = [
    {"number": 101, "turn": [
        {"number": 1, "raw_utterance": "What is lobular carcinoma?", "manual_rewritten_utterance": "What is lobular carcinoma?",
         "passage": "Lobular carcinoma starts in the lobules of the breast."},
        {"number": 2, "raw_utterance": "How deadly is it?",
         "manual_rewritten_utterance": "How deadly is lobular carcinoma?", "passage": "It is rarely deadly."},
        {"number": 3, "raw_utterance": "What are the treatments for breast cancer?",
         "manual_rewritten_utterance": "What are the treatments for breast cancer?", "passage": "Surgery."},
    ]},
]
TOPICS_2022 = [  # a tree flattened into two branches that repeat turn 1-1
    {"number": "7", "turn": [
        {"number": "7-1", "utterance": "Tell me about the Glasgow summit.",
         "manual_rewritten_utterance": "Tell me about the Glasgow summit.", "response": "COP26 was a climate summit."},
        {"number": "7-2", "utterance": "Who hosted it?", "manual_rewritten_utterance": "Who hosted the COP26 summit?",
         "response": "The United Kingdom."},
    ]},
    {"number": "7", "turn": [
        {"number": "7-1", "utterance": "Tell me about the Glasgow summit.",
         "manual_rewritten_utterance": "Tell me about the Glasgow summit.", "response": "COP26 was a climate summit."},
        {"number": "7-2", "utterance": "Who hosted it?", "manual_rewritten_utterance": "Who hosted the COP26 summit?",
         "response": "The United Kingdom."},
    ]},
]


@pytest.fixture
def snapshot(tmp_path, monkeypatch) -> Path:
    """A mirror root whose treccastweb snapshot holds the two topic files, read at its commit."""
    files = {path: json.dumps(topics) for (_, path, _, _), topics in zip(bench.SOURCES, (TOPICS_2021, TOPICS_2022))}
    mirror, commit = commit_snapshot(tmp_path, bench.REPO, files)
    monkeypatch.setattr(bench, "COMMIT", commit)
    return mirror


def test_rows_are_follow_ups_with_the_history_before_them(snapshot):
    rows = bench.load_rows(snapshot)
    assert [row["id"] for row in rows] == ["cast2021:101:2", "cast2021:101:3", "cast2022:7:7-2"]
    second = rows[0]
    assert second["followup"] == "How deadly is it?" and second["rewrite"] == "How deadly is lobular carcinoma?"
    assert second["history"] == [{"role": "user", "content": "What is lobular carcinoma?"},
                                 {"role": "assistant", "content": "Lobular carcinoma starts in the lobules of the breast."}]
    assert len(rows[1]["history"]) == 4 and rows[2]["meta"]["conversation"] == "cast2022:7"


def test_a_conversation_is_in_one_part():
    rows = [{"id": f"c:{n}", "meta": {"conversation": "c"}} for n in range(5)]
    assert len({part_of(bench.SET_NAME, row, n) for n, row in enumerate(rows)}) == 1


@pytest.mark.parametrize("question, keeps", [
    ("How deadly is lobular carcinoma?", True),          # the human rewrite
    ("How deadly is lobular breast carcinoma?", True),   # more words, the same meaning
    ("How deadly is it?", False),                        # the last turn alone: nothing resolved
    ("How deadly is breast cancer?", False),             # resolved to the wrong thing
    ("What is lobular carcinoma?", False),               # the resolved words, another question
    (None, False),                                       # a failed reply
])
def test_the_rule_keeps_what_the_rewrite_added_and_kept(question, keeps):
    assert bench.keeps_meaning(question, "How deadly is it?", "How deadly is lobular carcinoma?") is keeps


def test_a_follow_up_that_already_stood_alone_must_keep_its_words():
    followup = rewrite = "What are the treatments for breast cancer?"
    assert bench.keeps_meaning(followup, followup, rewrite)
    assert not bench.keeps_meaning("What are the treatments?", followup, rewrite)


def test_the_three_methods_on_the_same_rows_with_a_fake_judge(snapshot, tmp_path, capsys):
    rewrites = {"How deadly is it?": "How deadly is lobular carcinoma?",
                "What are the treatments for breast cancer?": "What are the treatments for breast cancer?",
                "Who hosted it?": "Who hosted the Glasgow summit?"}

    def reply(prompt: str) -> dict:
        """The rewrite of the question asked last: after "Follow-up question:" (baseline) or
        in the <question> section (graph)."""
        asked = re.search(r"Follow-up question: (.*)|<question>\n(.*)\n</question>", prompt)
        return {"question": rewrites[asked.group(1) or asked.group(2)]}

    judge = fakes.judge(StandaloneQuestionReply=reply)
    context = JudgeContext(model=judge, model_id="scripted", embeddings=False)
    part = part_of(bench.SET_NAME, {"meta": {"conversation": "cast2021:101"}}, 0)
    out = tmp_path / "out"
    argv = ["--part", part, "--limit", "0", "--mirror-root", str(snapshot), "--out-dir", str(out)]
    assert bench.main(argv, context=context) == 0
    entry = json.loads(capsys.readouterr().out)
    methods = entry["methods"]
    assert set(methods) == {"last_turn", "baseline", "graph"}
    rows = entry["rows"]
    assert methods["last_turn"]["calls_per_row"] == 0 and methods["graph"]["calls_per_row"] == 1
    assert methods["graph"]["keeps_meaning"] >= methods["last_turn"]["keeps_meaning"]
    graph_rows = [json.loads(line) for line in (out / f"{bench.SET_NAME}-{part}-graph.jsonl").read_text().splitlines()]
    assert len(graph_rows) == rows and all("keeps" in row for row in graph_rows)
    calls = len(judge.calls)
    assert bench.main(argv, context=context) == 0  # resumed: no call again
    assert len(judge.calls) == calls
    assert (out / f"agreement-{bench.SET_NAME}-{part}.md").read_text().startswith("# Standalone question")
