"""`compare` and the HTML report read a conversation file's turn records: turns pair by their
ids, and each shows the conversations with their mean and worst turn per metric."""

from __future__ import annotations

import json
from pathlib import Path

from judgegraph.commands import cli
from judgegraph.comparison.compare_runs import compare_runs
from judgegraph.report.build import build_report
from tests.batch.test_conversation_batch import conversation_judge, conversation
from tests.batch.test_batch_runner import run_cli, write_lines
from tests.support import fakes
from tests.support.scripted_server import ScriptedEndpoint


def judged(tmp_path: Path, name: str, second_turn_verdict: str) -> Path:
    """The conversation judged by a scripted judge whose claim check gives `second_turn_verdict`
    to every claim after the first (the first turn's claim is supported)."""
    items = write_lines(tmp_path / "conversations.jsonl", [conversation("c1")])
    out = tmp_path / name
    judge = conversation_judge()
    judge.scripts["ClaimCheck"] = [fakes.verdict("supported", 1)]
    judge.default["ClaimCheck"] = fakes.verdict(second_turn_verdict, 0 if second_turn_verdict != "supported" else 1)
    with ScriptedEndpoint(judge) as endpoint:
        run_cli(items, "--out", out, "--concurrency", "1", "--details", *endpoint.flags)
    return out


def test_compare_pairs_turns_by_id_and_shows_each_conversation(tmp_path, capsys):
    before = judged(tmp_path, "before.jsonl", "supported")
    after = judged(tmp_path, "after.jsonl", "not-in-context")
    comparison = compare_runs(before, after)
    assert sorted(comparison.shared) == ["c1/turn-1", "c1/turn-2"]
    [conv] = comparison.conversations
    faithfulness = next(m for m in conv.metrics if m.metric == "faithfulness")
    assert (faithfulness.before, faithfulness.after) == (1.0, 0.5)
    assert faithfulness.worst_turn_after == 2 and faithfulness.change == -0.5
    assert cli.main(["compare", str(before), str(after), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["conversations"][0]["id"] == "c1"
    assert {m["metric"]: m["worst_turn_after"] for m in data["conversations"][0]["metrics"]}["faithfulness"] == 2


def test_the_report_lists_turns_and_conversations(tmp_path):
    out = judged(tmp_path, "results.jsonl", "not-in-context")
    report = build_report(out)
    assert sorted(item.id for item in report.items) == ["c1/turn-1", "c1/turn-2"]
    [conv] = report.conversations
    assert conv.worst("faithfulness") == (2, 0.0) and conv.judged == 2
    page = tmp_path / "report.html"
    assert cli.main(["report", str(out), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="conversations-table"' in html and 'data-conversation="c1"' in html
    assert "worst: turn 2 (0.00)" in html
    assert "write_standalone_question" in html  # turn 2's trace shows its standalone question
