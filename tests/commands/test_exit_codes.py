"""The exit-code table (docs/exit-codes.md), row by row, for `evaluate`, `report`, `compare` and
`calibrate`: 0 judged, 1 judged with failures or a failed gate, 2 usage / input / judge set-up,
each non-zero code with its reason on stderr in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judgegraph.commands import cli
from tests.support.result_records import rag, write_results
from tests.support.scripted_server import ScriptedEndpoint
from tests.batch.test_batch_runner import rag_item, rag_judge, write_lines

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ("evaluate", "report", "compare", "calibrate")


def test_the_table_names_every_command_and_code():
    text = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| code |"))
    assert all(f"`{command}`" in header for command in COMMANDS)
    codes = [int(m) for m in re.findall(r"^\| (\d+) \|", text, flags=re.MULTILINE)]
    assert codes == [0, 1, 2, 130]


def _main(argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.main(argv)
    return code, capsys.readouterr().err


@pytest.fixture
def endpoint():
    with ScriptedEndpoint(rag_judge()) as served:
        yield served


def test_evaluate_one_item(tmp_path, capsys, endpoint):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(rag_item()))
    bad.write_text(json.dumps({"answer": "x"}))
    assert _main(["evaluate", str(good), *endpoint.flags], capsys)[0] == 0
    code, err = _main(["evaluate", str(bad), *endpoint.flags], capsys)
    assert code == 1 and "the item was not judged" in err
    code, err = _main(["evaluate", str(tmp_path / "missing.json"), *endpoint.flags], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_evaluate_a_batch(tmp_path, capsys, endpoint):
    mixed = write_lines(tmp_path / "mixed.jsonl", [rag_item("a"), {"id": "b", "answer": "x"}])
    invalid = write_lines(tmp_path / "invalid.jsonl", [{"id": "b", "answer": "x"}])
    assert _main(["evaluate", str(mixed), "--out", str(tmp_path / "m.jsonl"), *endpoint.flags], capsys)[0] == 1
    assert _main(["evaluate", str(invalid), "--out", str(tmp_path / "i.jsonl"), *endpoint.flags], capsys)[0] == 1
    code, err = _main(["evaluate", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "x.jsonl"),
                       *endpoint.flags], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1



@pytest.mark.parametrize("name, content", [
    ("items.json", "[]"),
    ("items.json", " [ ]\n"),
    ("items.csv", "id,question,answer,context\r\n"),
    ("items.csv", "question,answer,context\n,,\n"),
])
def test_an_input_without_items_is_a_usage_error_not_a_run_of_none(tmp_path, capsys, endpoint, name, content):
    """Like an empty file: a CI job must not pass on a batch that judged nothing."""
    items = tmp_path / name
    items.write_text(content)
    out = tmp_path / "out.jsonl"
    for dry_run in ([], ["--dry-run"]):
        code, err = _main(["evaluate", str(items), "--out", str(out), *endpoint.flags, *dry_run], capsys)
        assert code == 2 and err == f"judgegraph: {items} holds no item: no item to judge\n"
    assert not out.exists() and endpoint.judge.calls == []


def test_a_csv_header_error_stops_the_run_before_out_is_created(tmp_path, capsys, endpoint):
    items = tmp_path / "items.csv"
    items.write_text("question,answer,question\nq,a,q2\n")
    out = tmp_path / "out.jsonl"
    code, err = _main(["evaluate", str(items), "--out", str(out), *endpoint.flags], capsys)
    assert code == 2 and "the header repeats column(s) 'question'" in err
    assert not out.exists()


@pytest.mark.parametrize("name, encoding", [
    ("items.jsonl", "utf-16"), ("items.csv", "utf-16"), ("items.jsonl", "utf-32"), ("item.json", "utf-16")])
def test_a_utf16_input_is_one_line_naming_its_encoding(tmp_path, capsys, endpoint, name, encoding):
    """Windows PowerShell's `>` writes UTF-16 with a byte-order mark: each line then failed on
    its own as "not UTF-8" or "a key holds a lone surrogate (U+DCFF)", never naming the cause."""
    items = tmp_path / name
    text = "id,question,answer,context\na,q,a,c\n" if name.endswith(".csv") else json.dumps(rag_item("a")) + "\n"
    items.write_bytes(text.encode(encoding))
    out = tmp_path / "out.jsonl"
    batch = [] if name == "item.json" else ["--out", str(out)]
    code, err = _main(["evaluate", str(items), *batch, *endpoint.flags], capsys)
    mark = encoding.upper()
    assert code == 2 and err == (f"judgegraph: cannot read {items}: it is {mark} text (it starts with a {mark} "
                                 "byte-order mark); judgegraph reads UTF-8: save it as UTF-8\n")
    assert not out.exists() and endpoint.judge.calls == []


def test_a_csv_header_that_is_not_utf8_is_one_line_not_a_failed_row_each(tmp_path, capsys, endpoint):
    items = tmp_path / "items.csv"
    items.write_bytes("id,qu\u00e9stion,answer,context\na,q,a,c\nb,q,a,c\n".encode("latin-1"))
    out = tmp_path / "out.jsonl"
    code, err = _main(["evaluate", str(items), "--out", str(out), *endpoint.flags], capsys)
    assert code == 2 and err == f"judgegraph: cannot read {items} as CSV: the header is not UTF-8 text; save the file as UTF-8\n"
    assert not out.exists()

def test_report(tmp_path, capsys):
    results = write_results(tmp_path / "results.jsonl", [rag("q1", 0.5)])
    assert _main(["report", str(results), "-o", str(tmp_path / "r.html")], capsys)[0] == 0
    code, err = _main(["report", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "r.html")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_compare(tmp_path, capsys):
    before = write_results(tmp_path / "before.jsonl", [rag(f"q{i}", 0.9) for i in range(10)])
    after = write_results(tmp_path / "after.jsonl", [rag(f"q{i}", 0.5) for i in range(10)])
    assert _main(["compare", str(before), str(before)], capsys)[0] == 0
    code, err = _main(["compare", str(before), str(after), "--fail-if-worse", "faithfulness:0.02"], capsys)
    assert code == 1 and "faithfulness" in err
    code, err = _main(["compare", str(before), str(tmp_path / "missing.jsonl")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_calibrate(tmp_path, capsys, endpoint):
    code, err = _main(["calibrate", str(tmp_path / "missing.jsonl"), "--metric", "faithfulness",
                       "-o", str(tmp_path / "p.json"), *endpoint.flags], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    labels = write_lines(tmp_path / "labels.jsonl", [{"id": f"l{i}", "answer": "x", "human": i % 2}
                                                     for i in range(12)])  # enough to fit; no item can be judged
    code, err = _main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
                       *endpoint.flags], capsys)
    assert code == 1 and "no metric of any record this run wrote could be judged" in err
    assert not (tmp_path / "p.json").exists()
