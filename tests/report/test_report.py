"""`judgegraph report` and `--details` / `--html`: what the page holds, escaping, and a real
batch run against the fake OpenAI-compatible server. Browser checks: tests/report/test_report_browser.py."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import markupsafe
import pytest

from judgegraph.commands import cli
from judgegraph.report import build_report, write_report
from judgegraph.report.charts import histogram
from judgegraph.report.highlight import segments
from tests.support.exit_codes import exit_for_records
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def batch_run(tmp_path_factory):
    """examples/batch.jsonl judged by `python cli.py` over HTTP by the demo judge, with --details and --html."""
    out_dir = tmp_path_factory.mktemp("run")
    results, page = out_dir / "results.jsonl", out_dir / "report.html"
    with FaultServer(reply=demo_reply) as server:
        proc = subprocess.run(
            [sys.executable, "cli.py", "evaluate", "examples/batch.jsonl", "--out", str(results), "--details",
             "--html", str(page), "--base-url", server.base_url, "--model", "demo-judge", "--concurrency", "2"],
            cwd=ROOT, capture_output=True, text=True, timeout=300)
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    # examples/batch.jsonl holds an invalid item on purpose (empty answer): judged with failures
    assert proc.returncode == exit_for_records(records) == 1, proc.stderr[-3000:]
    return results, page


def test_details_lines_carry_item_claims_verdicts_and_trace(batch_run):
    results, _ = batch_run
    records = {r["id"]: r for r in map(json.loads, results.read_text().splitlines())}
    craigslist = records["craigslist"]["details"]
    assert craigslist["item"]["question"].startswith("Who founded Craigslist")
    assert [v["claim"] for v in craigslist["verdicts"]] == [
        "Craig Newmark founded Craigslist in 1995.", "The documentary came out in 2007."]
    assert craigslist["verdicts"][0]["evidence_found"] is True
    assert {n["node"] for n in craigslist["nodes"]} >= {"validate_input", "extract_claims", "check_claim", "finalize"}
    assert all("duration_s" in n and "input_tokens" in n for n in craigslist["nodes"])
    assert "details" not in records["line-8"]  # a bad input line has nothing to detail


def test_default_lines_stay_small(tmp_path, rag_item):
    from tests.support.scripted_server import ScriptedEndpoint
    from tests.batch.test_batch_runner import rag_judge

    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(rag_item) + "\n")
    with ScriptedEndpoint(rag_judge()) as endpoint:
        assert cli.main(["evaluate", str(items), "--out", str(tmp_path / "r.jsonl"), *endpoint.flags]) == 0
    [record] = map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines())
    assert set(record) == {"id", "line", "rubric", "result", "usage", "provenance"}  # no details
    assert len(json.dumps(record["provenance"])) < 400  # which judge wrote it: a few fields, not a trace


def test_report_counts_each_metric_judged_not_applicable_failed(batch_run):
    results, _ = batch_run
    report = build_report(results)
    assert len(report.items) == 9
    metrics = {m.key: m for m in report.metrics}
    similarity = metrics["semantic_similarity"]
    # hostile and no-context have no reference; empty-answer and the bad line are invalid input
    assert (similarity.not_applicable, similarity.failed) == (2, 2)
    assert similarity.judged == 5
    for m in metrics.values():
        assert m.judged + m.not_applicable + m.failed == 9
        assert sum(b.count for b in m.bins) == len(m.values) == m.judged
    failed_ids = {item.id for item in report.items if item.failed}
    assert failed_ids == {"empty-answer", "line-8"}
    assert report.totals["calls"] > 0 and report.totals["input_tokens"] > 0


def test_page_is_self_contained_and_escapes_user_text(batch_run):
    _, page = batch_run
    text = page.read_text(encoding="utf-8")
    assert "<script>document.title" not in text and "&lt;script&gt;document.title" in text
    assert "onerror=\"window" not in text
    assert len(re.findall(r"<script\b", text)) == 1  # only the report's own script
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", text)  # nothing fetched from anywhere
    assert "Content-Security-Policy" in text and "script-src 'sha256-" in text
    assert text.count("<svg") == 4  # one distribution per rag metric
    assert "<mark>founded in 1995 by Craig Newmark</mark>" in text or "<mark>Craigslist is a classified" in text


def test_template_syntax_in_user_text_is_shown_not_evaluated(tmp_path):
    record = {"id": "{{ 7*7 }}", "line": 1, "rubric": "rag", "usage": {"calls": 0},
              "result": {"faithfulness": None, "faithfulness_explanation": "{% raw %}x{{ 7*7 }}",
                         "evaluation_status": "success", "reason": None, "error": None}}
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(record) + "\n")
    write_report(results, tmp_path / "r.html")
    text = html.unescape((tmp_path / "r.html").read_text())
    assert "{{ 7*7 }}" in text and "{% raw %}x{{ 7*7 }}" in text and ">49<" not in text


def test_report_command_and_errors(batch_run, tmp_path, capsys):
    results, _ = batch_run
    out = tmp_path / "again.html"
    assert cli.main(["report", str(results), "-o", str(out), "--title", "Nightly <run>"]) == 0
    assert "<title>Nightly &lt;run&gt; · judgegraph report</title>" in out.read_text()
    assert "9 items, 2 failed" in capsys.readouterr().err
    assert cli.main(["report", str(tmp_path / "missing.jsonl"), "-o", str(out)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_highlight_segments_cover_the_text_and_mark_quotes():
    text = "Craigslist was founded in 1995 by Craig   Newmark. It is big."
    parts = segments(text, ["founded in 1995 by craig newmark", "", "absent quote"])
    assert "".join(p for p, _ in parts) == text
    assert [p for p, marked in parts if marked] == ["founded in 1995 by Craig   Newmark"]


def test_histograms_bin_by_scale():
    # issue 54: the top of the scale is a bar of its own (1.0 was drawn in the bar labelled 0.9)
    assert [b.count for b in histogram([0.0, 0.05, 0.5, 1.0, 1.0], (0, 1))] == [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2]
    assert [(b.label, b.count) for b in histogram([-1, 2, 2], (-1, 2))] == [("-1", 1), ("0", 0), ("1", 0), ("2", 2)]
    assert [b.label for b in histogram([3, 5], (0, 5))] == ["0", "1", "2", "3", "4", "5"]


def test_a_labels_reply_run_is_recorded_and_reported(tmp_path):
    """A profile asking answer relevance's labels reply: the record's details carry the labels and
    their probabilities, and the page shows the explanation code wrote, escaped."""
    items, results, page = tmp_path / "items.jsonl", tmp_path / "r.jsonl", tmp_path / "report.html"
    items.write_text(json.dumps({"id": "paris", "question": "What is the capital of France?", "context": "Paris is.",
                                 "answer": f"Paris. {HOSTILE}", "metrics": ["answer_relevance"]}) + "\n")
    profile = tmp_path / "labels.json"
    profile.write_text(json.dumps({"id": "labels", "answer_relevance": {"parameters": {
        "directness_factor": {"direct": 1.0, "partial": 0.75, "evasive": 0.5}, "reply": "labels",
        "answered_from": "probabilities"}}}))
    with FaultServer(reply=demo_reply) as server:
        code = cli.main(["evaluate", str(items), "--out", str(results), "--details", "--html", str(page),
                         "--calibration", str(profile), "--base-url", server.base_url, "--model", "demo-judge"])
    assert code == 0
    [record] = map(json.loads, results.read_text(encoding="utf-8").splitlines())
    [step] = [n for n in record["details"]["nodes"] if n["node"] == "judge_answer_relevance"]
    assert step["detail"]["reply"] == "labels" and step["detail"]["refusal"] is None
    assert step["detail"]["probabilities"]["answered"] == [1.0]  # the demo judge sends no log-probabilities
    explanation = record["result"]["answer_relevance_explanation"]
    assert record["result"]["answer_relevance"] == 1.0 and explanation.startswith("Answers 1 of 1 part")
    text = page.read_text(encoding="utf-8")
    assert str(markupsafe.escape(explanation)) in text  # as the report's autoescape writes it
    assert "<script>document.title" not in text
