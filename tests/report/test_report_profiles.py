"""The HTML report names the calibration profile that scored each item."""

from __future__ import annotations

from judgegraph.commands.cli import main
from tests.support.calibration_items import labelled_rows, write_jsonl
from tests.support.calibration_items import scripted_resolution  # noqa: F401 - fixtures


def test_the_html_report_names_the_profile_that_scored_each_item(tmp_path, scripted_resolution):
    from judgegraph.report import write_report

    items = write_jsonl(tmp_path / "items.jsonl", [{k: v for k, v in row.items() if k != "human"}
                                                    | {"metrics": ["faithfulness"]} for row in labelled_rows(2)])
    out, html = tmp_path / "out.jsonl", tmp_path / "report.html"
    assert main(["evaluate", str(items), "--out", str(out), "--details"]) == 0
    write_report(out, html)
    assert html.read_text(encoding="utf-8").count("calibration profile <code>default</code>") == 2
