"""Issue 54's papercuts, through the CLI: `--version`, a missing input named as missing, a
`--rubric` typo as a usage error (exit 2) whatever the item says, the report's top bar holding
the perfect scores, and the report and CSV table in input order whatever order items finished in."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.schemas.version import __version__
from tests.support import demo_judge
from tests.support.fault_server import FaultServer


@pytest.fixture(scope="module")
def demo():
    with FaultServer(reply=demo_judge.reply) as server:
        yield server


def item(question: str, **extra) -> dict:
    return {"question": question, "answer": "Craigslist was founded in 1995 by Craig Newmark.",
            "context": "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.", **extra}


def test_version(capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"judgegraph {__version__}"


@pytest.mark.parametrize("name", ["items.jsonl", "items.csv", "item.json", "items.jsonl.gz"])
def test_a_missing_input_is_named_as_missing_with_or_without_out(tmp_path, capsys, name):
    missing = tmp_path / name
    for extra in ([], ["--out", str(tmp_path / "out.jsonl")]):
        assert cli.main(["evaluate", str(missing), *extra]) == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines() == [f"judgegraph: cannot read {missing}: No such file or directory"]
        assert "--out" not in err


@pytest.mark.parametrize("named", [False, True], ids=["keys-say-rag", "item-names-rag"])
def test_a_rubric_typo_is_exit_2_whether_or_not_the_item_names_its_rubric(tmp_path, capsys, demo, named):
    path = tmp_path / "item.json"
    path.write_text(json.dumps(item("Who founded Craigslist?", **({"rubric": "rag"} if named else {}))))
    asked = demo.requests
    code = cli.main(["evaluate", str(path), "--rubric", "rga", "--base-url", demo.base_url, "--model", "demo"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "judgegraph: --rubric: unknown rubric 'rga' (known: coverage, expected_output, liverag, rag)"]
    assert demo.requests == asked  # refused before the judge is asked anything


def first_finishes_last(out: Path):
    """The demo judge, holding back the item that comes first in the input until the other two
    items are written to the results file, so it finishes last whatever the machine's load."""
    def reply(step: str, schema: dict, body: dict):
        if "first in the input" in json.dumps(body):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
                time.sleep(0.05)
        return demo_judge.reply(step, schema, body)
    return reply


def test_the_report_and_the_csv_table_are_in_input_order_and_1_0_has_its_own_bar(tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    lines = [{"id": "a-first", **item("Which question is first in the input?")},
             {"id": "b-second", **item("Who founded Craigslist?")},
             {"id": "c-third", **item("When was Craigslist founded?")}]
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, page = tmp_path / "out.jsonl", tmp_path / "report.html"
    with FaultServer(reply=first_finishes_last(out)) as server:
        code = cli.main(["evaluate", str(items), "--out", str(out), "--format", "csv", "--html", str(page),
                         "--base-url", server.base_url, "--model", "demo", "--concurrency", "3", "--no-embeddings"])
    assert code == 0, capsys.readouterr().err
    finished = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert finished[-1] == "a-first"  # the results file: completion order (appended as items finish)
    with out.with_suffix(".csv").open(newline="") as handle:
        assert [row["id"] for row in csv.DictReader(handle)] == ["a-first", "b-second", "c-third"]
    html = page.read_text(encoding="utf-8")
    positions = [html.index(f">{name}<") for name in ("a-first", "b-second", "c-third")]
    assert positions == sorted(positions)
    # every item is faithful: the three scores of 1.0 are in the top bar, labelled 1.0
    assert "<title>1.0: 3</title>" in html and "<title>0.9: 0</title>" in html
