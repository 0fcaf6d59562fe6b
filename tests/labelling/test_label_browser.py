"""The labelling page in a real browser (Debian's headless chromium, as the report's test): five
items labelled with the keyboard, the page closed and the command stopped with Ctrl-C, started
again: it resumes at item 6, the file holds 5 labels, `judgegraph calibrate` reads it, and a
`<script>` in an answer shows as text and runs nothing; the page is blind: the judge's verdicts, evidence,
explanations and scores of an item are in the DOM only once its label is saved.

Skipped when chromium is absent, unless JUDGEGRAPH_REQUIRE_BROWSER=1 (CI sets it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from judgegraph.labelling.design import build_design
from judgegraph.labelling.results_index import index_results
from judgegraph.report.build import item_view
from tests.support.browser import Browser, find_chromium
from tests.support.demo_judge import reply as demo_reply
from tests.support.exit_codes import exit_for_records
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
METRICS = ["faithfulness", "context_relevance", "answer_relevance"]

if find_chromium() is None:
    if os.environ.get("JUDGEGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail("JUDGEGRAPH_REQUIRE_BROWSER=1 but chromium is not installed (apt-get install -y chromium)",
                    pytrace=False)
    pytest.skip("chromium is not installed (apt-get install -y chromium); CI installs it", allow_module_level=True)


@pytest.fixture(scope="module")
def judge():
    with FaultServer(reply=demo_reply) as server:
        yield server


@pytest.fixture(scope="module")
def results(tmp_path_factory, judge) -> Path:
    out = tmp_path_factory.mktemp("label-browser") / "results.jsonl"
    proc = subprocess.run([sys.executable, "cli.py", "evaluate", "examples/batch.jsonl", "--out", str(out),
                           "--details", "--base-url", judge.base_url, "--model", "demo"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert proc.returncode == exit_for_records(records), proc.stderr[-3000:]
    return out


def seed_with_hostile_early(results: Path) -> int:
    """A seed whose order shows the item with markup in its answer among the first five."""
    index = index_results(results)
    return next(seed for seed in range(1000)
                if "hostile" in [r.id for r in build_design(index, METRICS, "uniform", seed).order[:5]])


def _ctrl_c_reaches_it() -> None:
    """In the child before exec: SIGINT neither ignored nor blocked, as in a user's terminal."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class LabelCommand:
    def __init__(self, results: Path, labels: Path, *flags: str) -> None:
        # Ctrl-C must reach it even when the tests run in the background (a shell's `&` and nohup
        # start them with SIGINT ignored, and a child inherits that: Python then installs no
        # KeyboardInterrupt handler and `stop` would wait for nothing)
        self.process = subprocess.Popen(
            [sys.executable, "cli.py", "label", str(results), "--labels", str(labels), "--no-browser", *flags],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_ctrl_c_reaches_it)
        self.url = self.process.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.process.stderr.read()

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a person stops it."""
        self.process.send_signal(signal.SIGINT)
        _, stderr = self.process.communicate(timeout=30)
        return self.process.returncode, stderr


JUDGE_ELEMENTS = "document.querySelectorAll('#judge-scores, #toggle-scores, main table.claims, main mark').length"
"""What shows the judge's side of the item being labelled (with --show-judge only)."""


def wait_for_item(browser: Browser, position: int) -> None:
    browser.wait_for(f"document.body && document.body.dataset.labelReady === '1' "
                     f"&& document.body.dataset.position === '{position}'")


def test_label_five_with_the_keyboard_stop_resume_at_six_and_calibrate(results, judge, tmp_path):
    labels = tmp_path / "labels.jsonl"
    seed = seed_with_hostile_early(results)
    command = LabelCommand(results, labels, "--seed", str(seed))
    given: list[tuple[str, int]] = []
    try:
        with Browser(width=1200, height=900) as browser:
            browser.open(command.url)
            for position in range(5):
                wait_for_item(browser, position)
                item_id = browser.evaluate("document.getElementById('item-id').textContent")
                if item_id == "hostile":
                    shown = browser.evaluate("document.querySelector('dd.field-answer').textContent")
                    assert shown.startswith("<script>document.title='pwned'") and 'onerror="window.__pwned=2"' in shown
                    assert browser.evaluate("document.querySelectorAll('main script, main img').length") == 0
                    assert browser.evaluate("document.scripts.length") == 1
                    assert browser.evaluate("window.__pwned === undefined")
                    assert not browser.evaluate("document.title").startswith("pwned")
                # blind (issue 55): nothing of the judge's in the page before the label is saved; the
                # judge's side of the item labelled before is shown above it
                assert browser.evaluate(JUDGE_ELEMENTS) == 0
                if position:
                    assert browser.evaluate("document.getElementById('judge-after').dataset.position") == str(position - 1)
                faithful = position % 2  # both values, so the fit has two classes
                browser.press(str(faithful))
                browser.press("1")
                browser.press("0")
                assert browser.evaluate(JUDGE_ELEMENTS) == 0
                checked = browser.evaluate(
                    "[...document.querySelectorAll('input[type=radio]:checked')].map(i => i.name + '=' + i.value)")
                assert checked == [f"m:faithfulness={faithful}", "m:context_relevance=1", "m:answer_relevance=0"]
                browser.press("Enter")
                given.append((item_id, faithful))
            wait_for_item(browser, 5)
            assert browser.evaluate("document.getElementById('progress').textContent").startswith("5 labelled, 0 skipped")
            browser.open("about:blank")  # the page is closed
    finally:
        code, stderr = command.stop()
    assert code == 0 and "stopped; 5 labels in" in stderr

    written = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert "design" in written[0] and written[0]["design"]["seed"] == seed
    assert [(row["id"], row["human"]["faithfulness"]) for row in written[1:]] == given
    assert all(row["human"]["context_relevance"] == 1 and row["human"]["answer_relevance"] == 0 for row in written[1:])

    again = LabelCommand(results, labels)
    try:
        with Browser(width=1200, height=900) as browser:
            browser.open(again.url)
            wait_for_item(browser, 5)  # item 6
            assert browser.evaluate("document.title").startswith("item 6 of 7")
            assert browser.evaluate("document.getElementById('item-id').textContent") not in {i for i, _ in given}
    finally:
        code, _ = again.stop()
    assert code == 0
    assert len(labels.read_text(encoding="utf-8").splitlines()) == 6  # the design and 5 labels, nothing more

    # both commands read the page's file: each counts its 5 labels, and refuses to fit or
    # estimate on so few (calibrate needs 8 for 2 folds, estimate 10), naming how many it read
    profile = tmp_path / "profile.json"
    proc = subprocess.run([sys.executable, "cli.py", "calibrate", str(labels), "--metric", "faithfulness",
                           "-o", str(profile), "--base-url", judge.base_url, "--model", "demo", "--folds", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "5 labelled item(s)" in proc.stderr, proc.stderr[-3000:]
    assert not profile.exists()
    proc = subprocess.run([sys.executable, "cli.py", "estimate", str(results), "--labels", str(labels),
                           "--metric", "faithfulness"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "5" in proc.stderr and "10" in proc.stderr, proc.stderr[-3000:]


def judge_texts(results: Path, item_id: str) -> tuple[list[str], list[str]]:
    """What the judge said about `item_id` (its verdicts and explanations), and the scores as the
    page prints them, that the item's own text does not hold."""
    record = next(r for r in map(json.loads, results.read_text(encoding="utf-8").splitlines()) if str(r["id"]) == item_id)
    view = item_view(1, record)
    own = " ".join(text for _, text in view.fields) + json.dumps(record["details"]["item"], ensure_ascii=False)
    said = [c.verdict for c in view.claims] + [m.comment for m in view.metrics if m.comment]
    said = [" ".join(text.split()) for text in said if text and text not in own]
    scores = [f"{m.score:.2f}" for m in view.metrics if isinstance(m.score, float)]
    return said, scores


def test_the_page_is_blind_until_the_label_is_saved(results, tmp_path):
    command = LabelCommand(results, tmp_path / "labels.jsonl", "--seed", "3")
    try:
        with Browser(width=1200, height=900) as browser:
            browser.open(command.url)
            wait_for_item(browser, 0)
            item_id = browser.evaluate("document.getElementById('item-id').textContent")
            said, scores = judge_texts(results, item_id)
            assert said, "the demo judge explains its scores"
            text = " ".join(browser.evaluate("document.documentElement.textContent").split())
            assert [phrase for phrase in said if phrase in text] == []
            assert browser.evaluate(JUDGE_ELEMENTS) == 0 and browser.evaluate("document.getElementById('judge-after')") is None
            for key in ("1", "1", "0"):
                browser.press(key)
            assert " ".join(browser.evaluate("document.documentElement.textContent").split()).count(said[0]) == 0
            browser.press("Enter")
            wait_for_item(browser, 1)
            after = " ".join(browser.evaluate("document.getElementById('judge-after').textContent").split())
            assert [phrase for phrase in said if phrase not in after] == []
            assert [score for score in scores if score not in after] == []
            assert browser.evaluate("document.getElementById('judge-after').dataset.position") == "0"
            assert browser.evaluate(JUDGE_ELEMENTS) == 0  # and the next item is blind again
    finally:
        code, _ = command.stop()
    assert code == 0
