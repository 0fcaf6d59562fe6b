"""`judgegraph report RESULTS --labels LABELS`: the page shows each metric's label-corrected
estimate with its interval beside the judge's mean, the very numbers `judgegraph.estimate`
returns; a labels file `estimate` refuses is refused the same way (exit 2, one line)."""

from __future__ import annotations

import random
import re
import warnings

import judgegraph
from tests.estimates.test_estimate_command import population, run, write_labels, write_results


def _files(tmp_path, extra_label: dict | None = None):
    rows = population(120, seed=3)
    results = write_results(tmp_path / "results.jsonl", rows)
    sample = random.Random(9).sample(rows, 40)
    labels = [{"id": i, "human": {"faithfulness": y}} for i, _, y, _ in sample]
    if extra_label is not None:
        labels.append(extra_label)
    return results, write_labels(tmp_path / "labels.jsonl", labels)


def _row(page: str, metric: str) -> str:
    table = page.split('id="estimates-table"', 1)[1].split("</table>", 1)[0]
    return re.search(rf'<tr data-metric="{metric}">(.*?)</tr>', table, re.S).group(1)


def _cell(row: str, name: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(rf'<td class="n {name}">(.*?)</td>', row, re.S).group(1)).strip()


def test_the_page_shows_the_estimate_commands_numbers(tmp_path):
    results, labels = _files(tmp_path)
    page = tmp_path / "report.html"
    code, _, err = run(["report", str(results), "--labels", str(labels), "-o", str(page)])
    assert code == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        [expected] = judgegraph.estimate(results, labels)
    row = _row(page.read_text(encoding="utf-8"), "faithfulness")
    assert _cell(row, "judge-mean") == f"{expected['judge_mean']:,.3f}"
    for name, key in (("corrected", "corrected"), ("labels-only", "labels_only")):
        shown = expected[key]
        assert _cell(row, name) == f"{shown['estimate']:,.3f} [{shown['low']:,.3f}, {shown['high']:,.3f}]"
    assert expected["corrected"]["estimate"] != expected["judge_mean"]  # the page would not tell them apart


def test_without_labels_the_page_has_no_estimates(tmp_path):
    results, _ = _files(tmp_path)
    page = tmp_path / "report.html"
    assert run(["report", str(results), "-o", str(page)])[0] == 0
    assert "estimates-table" not in page.read_text(encoding="utf-8")


def test_user_text_in_the_notes_is_escaped(tmp_path):
    hostile = "<script>alert(1)</script>"
    results, labels = _files(tmp_path, {"id": hostile, "human": {"faithfulness": 1}})
    page = tmp_path / "report.html"
    code, _, err = run(["report", str(results), "--labels", str(labels), "-o", str(page)])
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert hostile not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text.split('id="estimates-table"', 1)[1]


def test_a_bad_labels_file_exits_2_with_one_line_and_writes_nothing(tmp_path):
    results, labels = _files(tmp_path)
    labels.write_text(labels.read_text() + '{"id": "q1", "human": {"faithfulness": 1}}\n'
                      '{"id": "q1", "human": {"faithfulness": 0}}\n', encoding="utf-8")
    page = tmp_path / "report.html"
    code, out, err = run(["report", str(results), "--labels", str(labels), "-o", str(page)])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "labelled twice" in err
    assert not page.exists()


def test_too_few_labels_is_refused_as_estimate_refuses_it(tmp_path):
    rows = population(50)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": y} for i, _, y, _ in rows[:4]])
    code, _, err = run(["report", str(results), "--labels", str(labels), "--metric", "faithfulness",
                        "-o", str(tmp_path / "r.html")])
    assert code == 2 and "at least 10" in err and len(err.strip().splitlines()) == 1
