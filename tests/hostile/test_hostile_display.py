"""User text holding terminal escapes, carriage returns or bidi overrides reaches no terminal
and no page raw: `compare`'s table, `--trace`'s claims table and the HTML report and compare
page show each such character as its escape (`\\x1b`, `\\u202e`), with the text still all there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from judgegraph.commands import cli
from judgegraph.text.visible import visible
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer
from tests.support.result_records import rag, write_results

ROOT = Path(__file__).resolve().parents[2]
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
RLO = "\u202e"
HOSTILE = f"{TITLE}{CLEAR}fake ok\rgpj{RLO}exe.jpg"
RAW = ("\x1b", "\x07", "\r", RLO)


def assert_shown_escaped(text: str) -> None:
    assert not any(char in text for char in RAW), [char for char in RAW if char in text]
    assert "\\x1b]0;pwned\\x07" in text and "\\x1b[2J" in text


def test_visible_writes_out_controls_and_bidi_and_keeps_the_rest():
    assert visible(HOSTILE) == "\\x1b]0;pwned\\x07\\x1b[2Jfake ok\\x0dgpj\\u202eexe.jpg"
    assert visible("a\nb\tc\u2067d\u0085", keep="\n\t") == "a\nb\tc\\u2067d\\x85"
    assert visible("Craig Newmark, 1995 — ok ✓ 日本語") == "Craig Newmark, 1995 — ok ✓ 日本語"


def hostile_runs(tmp_path: Path) -> list[str]:
    before = rag(HOSTILE, 1.0)
    after = rag(HOSTILE, 0.0)
    after["result"]["faithfulness_explanation"] = f"explained {HOSTILE}"
    return [str(write_results(tmp_path / "before.jsonl", [before, rag("q1", 0.5)])),
            str(write_results(tmp_path / "after.jsonl", [after, rag("q1", 0.5)]))]


def test_compare_table_shows_ids_and_explanations_escaped(tmp_path):
    proc = subprocess.run([sys.executable, "cli.py", "compare", *hostile_runs(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "explained" in proc.stdout
    assert_shown_escaped(proc.stdout + proc.stderr)


def test_compare_page_and_report_show_bidi_and_controls_escaped(tmp_path, capsys):
    files = hostile_runs(tmp_path)
    page = tmp_path / "compare.html"
    assert cli.main(["compare", *files, "-o", str(page)]) == 0
    record = rag("q0", 0.5, details={"item": {"question": "Q?", "answer": f"answer {HOSTILE}",
                                              "context": f"context {HOSTILE}"}})
    report = tmp_path / "report.html"
    assert cli.main(["report", str(write_results(tmp_path / "r.jsonl", [record])), "-o", str(report)]) == 0
    capsys.readouterr()
    for html in (page.read_text(encoding="utf-8"), report.read_text(encoding="utf-8")):
        assert_shown_escaped(html)
        assert "\\u202eexe.jpg" in html


def test_trace_claims_table_shows_answers_escaped(tmp_path):
    item = json.loads((ROOT / "examples" / "rag_item.json").read_text(encoding="utf-8"))
    item["answer"] = f"Craigslist was founded by Craig Newmark {HOSTILE}. The documentary came out in 2005."
    path = tmp_path / "item.json"
    path.write_text(json.dumps(item), encoding="utf-8")
    with FaultServer(reply=demo_reply) as server:
        proc = subprocess.run(
            [sys.executable, "cli.py", "evaluate", str(path), "--trace", "--base-url", server.base_url,
             "--model", "demo-judge", "--no-embeddings"],
            cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "400"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Claims and verdicts" in proc.stderr
    assert_shown_escaped(proc.stderr)


def test_an_id_kept_json_escaped_with_a_lone_surrogate_is_shown_escaped_everywhere(tmp_path, capsys):
    """The batch writes an unjudgeable id holding U+D800 JSON-escaped (docs/untrusted-input.md);
    `compare` read it back and stopped with an encoding traceback on the page, `--json` and the table."""
    before = write_results(tmp_path / "before.jsonl", [rag("bad\ud800id", 0.5), rag("ok", 0.5)])
    after = write_results(tmp_path / "after.jsonl", [rag("bad\ud800id", 0.0), rag("ok", 0.5)])
    page = tmp_path / "compare.html"
    proc = subprocess.run([sys.executable, "cli.py", "compare", str(before), str(after), "-o", str(page)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "bad\\ud800id" in proc.stdout and "bad\\ud800id" in page.read_text(encoding="utf-8")
    assert cli.main(["compare", str(before), str(after), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metrics"][0]["moved"][0]["id"] == "bad\ud800id"  # the same string, read back
