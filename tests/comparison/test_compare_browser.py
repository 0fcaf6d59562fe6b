"""The compare page in a real browser: two batches of examples/batch.jsonl judged by the demo
judge over HTTP (the second with changed answers, one of them hostile), compared by the CLI;
headless Chromium loads the page and the test checks what is rendered, and that markup in
answers, claims and ids shows as text and runs nothing.

Skipped when chromium is absent, unless JUDGEGRAPH_REQUIRE_BROWSER=1 (CI sets it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.exit_codes import exit_for_records
from tests.support.browser import Browser, find_chromium
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_ANSWER = ("<script>document.title='pwned';window.__pwned=1</script>"
                  "<img src=x onerror=\"window.__pwned=2\"> Python was created by Guido van Rossum.")
HOSTILE_ID = "<b id=injected>bold</b>"

if find_chromium() is None:
    if os.environ.get("JUDGEGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail("JUDGEGRAPH_REQUIRE_BROWSER=1 but chromium is not installed (apt-get install -y chromium)",
                    pytrace=False)
    pytest.skip("chromium is not installed (apt-get install -y chromium); CI installs it", allow_module_level=True)


def changed_items(tmp_path: Path) -> tuple[Path, Path]:
    """examples/batch.jsonl as it is, and a copy with some answers changed (one hostile) plus
    an item with a hostile id in both."""
    lines = (ROOT / "examples" / "batch.jsonl").read_text(encoding="utf-8").splitlines()
    extra = {"id": HOSTILE_ID, "question": "Who wrote Hamlet?", "context": "Hamlet was written by Shakespeare.",
             "answer": "Shakespeare wrote Hamlet."}
    before = [*lines, json.dumps(extra)]
    after = []
    for line in before:
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            after.append(line)
            continue
        if item.get("id") == "python":
            item["answer"] = HOSTILE_ANSWER
        if item.get("id") == "craigslist":
            item["answer"] = "Craig Newmark founded Craigslist in 1995."
        if item.get("id") == HOSTILE_ID:
            item["answer"] = "Marlowe wrote Hamlet."
        after.append(json.dumps(item))
    first, second = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    first.write_text("\n".join(before) + "\n", encoding="utf-8")
    second.write_text("\n".join(after) + "\n", encoding="utf-8")
    return first, second


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("compare")
    items_before, items_after = changed_items(out)
    with FaultServer(reply=demo_reply) as server:
        for items, results in ((items_before, out / "r1.jsonl"), (items_after, out / "r2.jsonl")):
            proc = subprocess.run(
                [sys.executable, "cli.py", "evaluate", str(items), "--out", str(results), "--details",
                 "--base-url", server.base_url, "--model", "demo"],
                cwd=ROOT, capture_output=True, text=True, timeout=300)
            records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
            assert proc.returncode == exit_for_records(records), proc.stderr[-3000:]  # docs/exit-codes.md
    proc = subprocess.run(
        [sys.executable, "cli.py", "compare", str(out / "r1.jsonl"), str(out / "r2.jsonl"), "-o", str(out / "c.html"),
         "--fail-if-worse", "faithfulness:0.02"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "faithfulness" in proc.stdout
    return out / "c.html"


@pytest.fixture(scope="module")
def browser(page):
    with Browser(width=1280, height=900) as b:
        b.open(page.as_uri())
        yield b


def test_the_page_shows_metrics_intervals_and_differences(browser):
    assert browser.evaluate("document.getElementById('count-shared').textContent") == "10"
    metrics = browser.evaluate("[...document.querySelectorAll('#metrics-table tbody tr')].map(r => r.dataset.metric)")
    assert metrics == ["faithfulness", "context_relevance", "answer_relevance", "semantic_similarity"]
    paired = browser.evaluate("document.querySelector('tr[data-metric=faithfulness] td.paired').textContent")
    assert int(paired) >= 7
    assert browser.evaluate("document.querySelectorAll('svg.interval line.ci').length") == 4
    assert browser.evaluate("document.querySelectorAll('svg.interval line.margin').length") == 1  # gated metric
    drawn = browser.evaluate("[...document.querySelectorAll('svg.chart rect.bar')].filter(r => r.getBBox().height > 0).length")
    assert drawn >= 4
    gate = browser.evaluate("document.querySelector('p.gate[data-metric=faithfulness]').textContent")
    assert gate.startswith("faithfulness: ")


def test_moved_items_show_both_answers_side_by_side(browser):
    moved = "document.querySelector('div.metric-detail[data-metric=faithfulness] details.moved[data-id=python]')"
    assert browser.evaluate(f"!!{moved}")
    browser.evaluate(f"{moved}.open = true")
    before = browser.evaluate(f"{moved}.querySelector('.before .field .text').textContent")
    after = browser.evaluate(f"{moved}.querySelector('.after .field .text').textContent")
    assert before == "Guido van Rossum created Python. It was first released in 1991."
    assert after == HOSTILE_ANSWER  # the markup is the text the user sees
    assert browser.evaluate(f"{moved}.getBoundingClientRect().height") > 100


def test_hostile_answers_claims_and_ids_show_as_text_and_run_nothing(browser):
    assert browser.evaluate("window.__pwned === undefined")
    assert not browser.evaluate("document.title").startswith("pwned")
    assert browser.evaluate("document.getElementById('injected') === null")  # the id's <b> was not parsed
    assert browser.evaluate("document.querySelectorAll('script').length") == 0
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    page_text = browser.evaluate("document.body.textContent")
    assert HOSTILE_ID in page_text and "<img src=x onerror=" in page_text
    csp = browser.evaluate("document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
    assert "script-src 'none'" in csp and "default-src 'none'" in csp
