"""Smaller hostile shapes from issue #29, through the real entry points against a fake judge on
127.0.0.1: a judge listing context lines that do not exist, and batch ids that collide."""

from __future__ import annotations

import json
from pathlib import Path

from judgegraph.commands import cli
from tests.support.fault_server import FaultServer, default_reply

ROOT = Path(__file__).resolve().parents[2]
ITEM = json.loads((ROOT / "examples" / "rag_item.json").read_text(encoding="utf-8"))


def lines_that_do_not_exist(step: str, schema: dict, body: dict):
    if step == "ContextRelevanceJudgment":
        return {"answer_in_context": "yes", "useful_lines": [2, 7, 99]}
    return default_reply(step, schema, body)


def test_context_relevance_explains_only_lines_the_context_has(tmp_path, capsys):
    path = tmp_path / "item.json"
    path.write_text(json.dumps(dict(ITEM, metrics=["context_relevance"])), encoding="utf-8")  # two lines
    with FaultServer(reply=lines_that_do_not_exist) as server:
        code = cli.main(["evaluate", str(path), "--base-url", server.base_url, "--model", "fake",
                         "--no-embeddings"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["evaluation_status"] == "success"
    explanation = result["context_relevance_explanation"]
    assert "useful lines: 2. Recall" in explanation and "99" not in explanation


def test_an_explicit_id_spelled_like_an_automatic_one_takes_no_other_lines_id(tmp_path):
    """`"line-3"` on line 1 and an id-less line 3: line 3 was skipped as a duplicate and never
    judged. Now line 1 is a failed record naming the clash (under its own line-1), line 3 is judged."""
    items = tmp_path / "items.jsonl"
    item = {k: v for k, v in ITEM.items()}
    items.write_text("\n".join([json.dumps(dict(item, id="line-3")), json.dumps(dict(item, id="a")),
                                json.dumps(item), json.dumps(dict(item, id="line-4"))]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with FaultServer() as server:
        code = cli.main(["evaluate", str(items), "--out", str(out), "--base-url", server.base_url,
                         "--model", "fake", "--no-embeddings"])
    records = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert sorted(records) == ["a", "line-1", "line-3", "line-4"]
    assert records["line-3"]["line"] == 3 and "input_error" not in records["line-3"]  # judged
    assert records["line-3"]["result"]["evaluation_status"] == "success"
    assert "id 'line-3' is the automatic id of line 3" in records["line-1"]["input_error"]
    assert "input_error" not in records["line-4"]  # on its own line, line-4 is its own id
    assert code in (0, 1)  # the exit code of a batch with a failed line is issue #28's
