"""`judgegraph label --terminal`, driven through the CLI by scripted input: labels, a note, skip,
undo, the judge's scores shown only after the answer, resume, markup and escapes in an answer
shown as text, and the one-line refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.labelling_results import results_record, scored_results, write_results

ROOT = Path(__file__).resolve().parents[2]


def label(results: Path, labels: Path, script: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "cli.py", "label", str(results), "--labels", str(labels), "--terminal",
                           *flags], input=script, cwd=ROOT, capture_output=True, text=True, timeout=120)


def rows(labels: Path) -> list[dict]:
    return [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]


def test_scripted_labelling_resumes_and_writes_the_same_lines_as_the_page(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.0, 0.3, 0.6, 0.9])
    labels = tmp_path / "labels.jsonl"
    # item 1: faithful, with a note; item 2: skipped, then undone and labelled 0; then stop
    proc = label(results, labels, "n first one\n1\ns\nu\n0\nq\n", "--metric", "faithfulness", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    design, *entries = rows(labels)
    order = [e["id"] for e in entries if "human" in e]
    assert design["design"]["metrics"] == ["faithfulness"] and design["design"]["seed"] == 3
    assert entries[0]["human"] == 1 and entries[0]["note"] == "first one" and entries[0]["position"] == 0
    assert entries[1] == {"id": entries[1]["id"], "skipped": True, "position": 1}
    assert entries[2] == {"id": entries[1]["id"], "undo": True}
    assert entries[3]["id"] == entries[1]["id"] and entries[3]["human"] == 0 and entries[3]["position"] == 1
    assert "judgegraph: 2 labels in" in proc.stderr
    # the judge's scores: after each answer, never before the first one
    first_prompt = proc.stdout.index("faithfulness? ")
    assert "the judge's scores" not in proc.stdout[:first_prompt]
    assert proc.stdout.count("the judge's scores") == 2
    # again: resumes at the third item; the end of the input stops it like q
    again = label(results, labels, "1\n")
    assert again.returncode == 0, again.stderr
    assert "2 labelled, 0 skipped so far" in again.stderr
    assert "item 3 of 4" in again.stdout
    assert [e["position"] for e in rows(labels)[1:] if "human" in e] == [0, 1, 2]
    assert len({*order, rows(labels)[-1]["id"]}) == 3


def test_several_metrics_and_scales_are_asked_in_turn(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.5])
    labels = tmp_path / "labels.jsonl"
    proc = label(results, labels, "x\n0\n1\n1\n", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert "not a key here: x" in proc.stdout
    assert rows(labels)[1]["human"] == {"faithfulness": 0, "context_relevance": 1, "answer_relevance": 1}
    assert "Every item has a label or a skip: 1 labels" in proc.stdout


def test_an_answer_with_markup_and_escapes_is_shown_as_text(tmp_path):
    answer = "[bold red]not markup[/] \x1b]0;retitled\x07 \u202eevil"
    results = write_results(tmp_path / "results.jsonl", [results_record(0, 1.0, answer=answer)])
    proc = label(results, tmp_path / "labels.jsonl", "q\n", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert "[bold red]not markup[/]" in proc.stdout
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\x1b]0;retitled\\x07" in proc.stdout and "\\u202eevil" in proc.stdout


def test_refusals_are_one_line_exit_2(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", [0.5, 0.2])
    labels = tmp_path / "labels.jsonl"
    assert label(results, labels, "q\n", "--seed", "1").returncode == 0
    scored_results(results, [0.5, 0.3])
    proc = label(results, labels, "q\n")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "was started on other results" in proc.stderr
    proc = label(results, tmp_path / "other.jsonl", "q\n", "--metric", "semantic_similarity")
    assert proc.returncode == 2 and "cannot label semantic_similarity" in proc.stderr
    proc = label(tmp_path / "missing.jsonl", tmp_path / "x.jsonl", "q\n")
    assert proc.returncode == 2 and "cannot read" in proc.stderr and "Traceback" not in proc.stderr


def test_the_terminal_is_blind_until_the_label_is_saved(tmp_path):
    """Issue 55: the item's fields and context first, the judge's claims, verdicts, evidence and
    scores only after "saved"; `v` does not show them sooner; `--show-judge` shows them first."""
    results = scored_results(tmp_path / "results.jsonl", [0.0, 0.5])
    proc = label(results, tmp_path / "labels.jsonl", "v\n1\nq\n", "--metric", "faithfulness", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    before, after = proc.stdout.split("saved (1 labelled)", 1)
    assert "How long is river" in before and "Fact " in before
    for judge_text in ("the answer's claims", "supported", "the judge's scores", "explanation"):
        assert judge_text not in before and judge_text in after
    assert "shown once the label is saved" in before
    shown = label(results, tmp_path / "shown.jsonl", "1\nq\n", "--metric", "faithfulness", "--seed", "3", "--show-judge")
    assert shown.returncode == 0, shown.stderr
    assert "supported" in shown.stdout.split("faithfulness? ", 1)[0]
    assert rows(tmp_path / "shown.jsonl")[1]["judge_shown"] is True and "judge_shown" not in rows(tmp_path / "labels.jsonl")[1]
