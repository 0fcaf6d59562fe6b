"""A cited answer's sentences in the HTML report: each sentence with its markers and verdicts,
and user text (markup, ANSI escapes) shown as text, never interpreted. The `--trace` view of
the same run is tested in tests/console/test_trace_view.py."""

from __future__ import annotations

import json

import pytest

from judgegraph.graph.api import run_evaluation
from judgegraph.report import build_report, write_report
from judgegraph.report.build import ReportError
from judgegraph.report.citation_view import SentenceView, citation_views
from tests.conftest import happy_scripts
from tests.support import fakes

HOSTILE = "<script>alert(1)</script> [bold red]loud[/] \x1b[31mred\x1b[0m"
ITEM = {
    "question": "What is the capital of France?",
    "answer": f"Paris is the capital of France {HOSTILE} [1]. Berlin lies on the Spree [2].",
    "context": ["Paris is the capital of France.", "Berlin lies on the river Spree."],
}


def _verdict(prompt: str) -> dict:
    """Line 2 (Berlin's) for the Berlin claim, line 1 for the other: the claim is the prompt's last part."""
    return fakes.verdict("supported", 2 if prompt.rfind("Berlin lies") > prompt.rfind("<script>") else 1)


def judged():
    return run_evaluation(ITEM, model=fakes.judge(**happy_scripts(check_claim=_verdict)))


def test_the_report_shows_each_sentence_with_its_markers_and_verdicts_escaped(tmp_path):
    run = judged()
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"id": "cited", "rubric": "rag", "result": run.result}) + "\n", encoding="utf-8")
    page = tmp_path / "report.html"
    write_report(results, page)
    html = page.read_text(encoding="utf-8")
    assert "<h4>Citations</h4>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    # the judge supports both (the default takes its verdicts), so both citations support their sentence
    assert "[2] → passage 2: supports" in html and "[1] → passage 1: supports" in html


def test_a_citations_block_of_another_shape_is_refused_by_name(tmp_path):
    """A results file is untrusted: its citations block is validated like the rest of the result."""
    results = tmp_path / "results.jsonl"
    odd = {"faithfulness": 1.0, "citations": {"sentences": [{"sentence": 5, "markers": "x"}]}}
    results.write_text(json.dumps({"id": "odd", "rubric": "rag", "result": odd}) + "\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"result\.citations\.sentences\[0\]\.sentence"):
        build_report(results)
    assert citation_views({"citations": {"sentences": ["not a sentence", {"sentence": 5, "markers": "x"}]}}) == [
        SentenceView(sentence="5", markers="(none)", supported=None)]
