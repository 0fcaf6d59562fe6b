"""No output of a command may be written over its input, its results file or another of its
outputs (`schemas.output_paths`): each clash is one line naming both paths, exit 2, before any
judge call, and every file is left as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from judgegraph.commands import cli
from tests.batch.test_batch_runner import rag_item, records, run_cli, scripted, write_lines  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
ITEM = {"question": "What is the capital of France?", "context": "Paris is the capital of France.",
        "answer": "Paris."}


def refused(argv: list[str], capsys, *paths: Path) -> str:
    """Run the CLI; assert exit 2, one stderr line naming `paths`, and return that line."""
    before = {path: path.read_bytes() if path.exists() else None for path in paths}
    code = cli.main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert "would replace" in err or "written over" in err, err  # refused for the clash, not another reason
    for path in paths:
        assert path.name in err
        assert (path.read_bytes() if path.exists() else None) == before[path]  # nothing written
    return err


def test_out_csv_with_format_csv_never_replaces_the_results(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "results.csv"
    out.write_text(json.dumps({"id": "old", "result": {}}) + "\n")  # a results file already there
    err = refused(["evaluate", str(items), "--out", str(out), "--format", "csv", "--model", "x",
                   "--base-url", "http://127.0.0.1:9/v1"], capsys, out)
    assert "--format csv" in err and ".jsonl" in err


def test_the_csv_table_may_not_replace_a_csv_input(tmp_path, capsys):
    items = tmp_path / "items.csv"
    items.write_text("id,question,answer,context\na,q,a,c\n")
    out = tmp_path / "items.jsonl"
    refused(["evaluate", str(items), "--out", str(out), "--format", "csv"], capsys, items)
    assert not out.exists()


@pytest.mark.parametrize("spelling", ["same", "dot-slash", "symlink", "hardlink"])
def test_html_over_the_input_is_refused_however_the_path_is_spelled(tmp_path, capsys, monkeypatch, spelling):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    monkeypatch.chdir(tmp_path)
    html = {"same": Path("items.jsonl"), "dot-slash": Path("./items.jsonl")}.get(spelling)
    if spelling == "symlink":
        html = tmp_path / "page.html"
        html.symlink_to(items)
    elif spelling == "hardlink":
        html = tmp_path / "page.html"
        os.link(items, html)
    refused(["evaluate", "items.jsonl", "--out", "results.jsonl", "--html", str(html)], capsys, items)
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.parametrize("flag", ["--html", "--cache"])
def test_an_output_over_the_results_file_is_refused(tmp_path, capsys, flag):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "results.jsonl"
    out.write_text(json.dumps({"id": "a", "result": {}}) + "\n")
    err = refused(["evaluate", str(items), "--out", str(out), flag, str(out)], capsys, out)
    assert flag in err


def test_an_output_over_the_calibration_profile_is_refused(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    profile = tmp_path / "profile.json"
    profile.write_text("{}")
    refused(["evaluate", str(items), "--out", str(tmp_path / "r.jsonl"), "--html", str(profile),
             "--calibration", str(profile)], capsys, profile)


def test_trace_out_over_the_item_is_refused(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(ITEM))
    refused(["evaluate", str(item), "--trace-out", str(item)], capsys, item)


def test_report_output_over_the_results_is_refused(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"id": "a", "rubric": "rag", "result": {"faithfulness": 1.0}}) + "\n")
    refused(["report", str(results), "-o", str(results)], capsys, results)


@pytest.mark.parametrize("which", ["before", "after"])
def test_compare_output_over_a_results_file_is_refused(tmp_path, capsys, which):
    from tests.support.result_records import rag, write_results

    before = write_results(tmp_path / "before.jsonl", [rag("q1", 0.5)])
    after = write_results(tmp_path / "after.jsonl", [rag("q1", 0.7)])
    target = before if which == "before" else after
    refused(["compare", str(before), str(after), "-o", str(target)], capsys, target)


def test_calibrate_output_over_the_labels_is_refused(tmp_path, capsys):
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(ITEM | {"id": f"i{n}", "human": n % 2}) + "\n" for n in range(12)))
    refused(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
             "--judged", str(labels)], capsys, labels)


def test_calibrate_output_over_a_file_that_is_not_a_profile_is_refused(tmp_path, capsys):
    """`calibrate -o` replaces its file: over the dataset (not one of its inputs) it is refused
    before any judging; over a profile judgegraph wrote it may write again."""
    from judgegraph.calibration.profile import shipped_profiles, write_profile
    from judgegraph.schemas.output_paths import is_replaceable

    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(ITEM | {"id": f"i{n}", "human": n % 2}) + "\n" for n in range(12)))
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_bytes((ROOT / "examples" / "batch.jsonl").read_bytes())
    err = refused(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(dataset)], capsys, dataset)
    assert "is not a calibration profile" in err
    assert not (tmp_path / "dataset.judged.jsonl").exists()  # stopped before judging
    profile = tmp_path / "profile.json"
    for written in shipped_profiles():
        write_profile(written, profile)
        assert is_replaceable(profile, "profile")
    assert not is_replaceable(dataset, "profile")


def test_distinct_outputs_still_run(tmp_path, scripted, capsys):  # noqa: F811
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a", answer="=1+1")])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, "--format", "csv", "--html", tmp_path / "page.html", *scripted.flags) == 0
    assert records(out)[0]["id"] == "a"
    assert (tmp_path / "results.csv").read_text().startswith("id,")


def _page_writers(tmp_path) -> dict[str, list[str]]:
    """Each command that writes an HTML page, with every argument but the page's path."""
    from tests.support.result_records import rag, write_results

    before = write_results(tmp_path / "before.jsonl", [rag("q1", 0.5)])
    after = write_results(tmp_path / "after.jsonl", [rag("q1", 0.7)])
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    return {"compare -o": ["compare", str(before), str(after), "-o"], "report -o": ["report", str(before), "-o"],
            "evaluate --html": ["evaluate", str(items), "--out", str(tmp_path / "r.jsonl"), "--model", "x",
                                "--base-url", "http://127.0.0.1:9/v1", "--html"]}


@pytest.mark.parametrize("command", ["compare -o", "report -o", "evaluate --html"])
@pytest.mark.parametrize("there", ["items", "html"])
def test_a_page_over_a_file_judgegraph_did_not_write_is_refused(tmp_path, capsys, command, there):
    """A file that is not a page of judgegraph's (the dataset, a page of the user's) is not
    replaced by one: one line naming it, exit 2, the file as it was."""
    argv = _page_writers(tmp_path)[command]
    target = tmp_path / ("dataset.jsonl" if there == "items" else "notes.html")
    target.write_bytes((ROOT / "examples" / "batch.jsonl").read_bytes() if there == "items"
                       else b"<!DOCTYPE html>\n<html><head><title>my notes</title></head></html>\n")
    err = refused([*argv, str(target)], capsys, target)
    assert "is not a page judgegraph wrote" in err and command.split()[-1] in err
    assert not (tmp_path / "r.jsonl").exists()  # evaluate stopped before judging


@pytest.mark.parametrize("command", ["compare -o", "report -o"])
def test_a_page_judgegraph_wrote_or_an_empty_file_is_replaced(tmp_path, capsys, command):
    """Writing the page again (after either command wrote it) or over an empty file is what
    the flag is for: nothing is lost."""
    writers = _page_writers(tmp_path)
    page = tmp_path / "page.html"
    for first in ("report -o", "compare -o", command):
        assert cli.main([*writers[first], str(page)]) == 0, capsys.readouterr().err
        assert first.split()[0] in page.read_text(encoding="utf-8").split("</title>")[0]
    page.write_bytes(b"")
    assert cli.main([*writers[command], str(page)]) == 0 and page.stat().st_size > 0


@pytest.mark.parametrize("command", ["compare -o", "report -o"])
def test_a_page_an_earlier_judgegraph_wrote_is_replaced(tmp_path, capsys, command):
    """Pages written before the generator mark existed are known by their title's ending
    (` · judgegraph report` / ` · judgegraph compare`); a page of the user's is not."""
    writers = _page_writers(tmp_path)
    page = tmp_path / "page.html"
    assert cli.main([*writers["report -o"], str(page)]) == 0, capsys.readouterr().err
    earlier = page.read_bytes().replace(b'<meta name="generator" content="judgegraph">\n', b"")
    assert b"generator" not in earlier and b"\xc2\xb7 judgegraph report</title>" in earlier
    page.write_bytes(earlier)
    assert cli.main([*writers[command], str(page)]) == 0, capsys.readouterr().err
    page.write_bytes(b"<!DOCTYPE html>\n<html><head><title>judgegraph notes</title></head></html>\n")
    capsys.readouterr()
    refused([*writers[command], str(page)], capsys, page)


@pytest.mark.parametrize("retry_failed", [False, True])
def test_out_naming_a_dataset_is_refused_and_the_dataset_kept(tmp_path, capsys, scripted, retry_failed):
    """`--out` given another dataset (its ids the input's) was read as a results file: every item
    was skipped as done, the run exited 0, and `--retry-failed` rewrote the dataset as results."""
    items = write_lines(tmp_path / "items.jsonl", [rag_item("q1"), rag_item("q2")])
    other = write_lines(tmp_path / "other.jsonl", [rag_item("q1"), rag_item("q2")])
    before = other.read_bytes()
    code = cli.main(["evaluate", str(items), "--out", str(other), *scripted.flags,
                     *(["--retry-failed"] if retry_failed else [])])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err == (f"judgegraph: {other} is not a judgegraph results file: none of its 2 line(s) is a record "
                   "with an 'id' and a 'result'; a run appends its records to the results file, so give a new "
                   "path (or the results file of an earlier run, to resume it)")
    assert other.read_bytes() == before
    assert scripted.judge.calls == []


def test_a_trace_over_another_runs_results_is_refused_and_a_trace_is_replaced(tmp_path, scripted, capsys):  # noqa: F811
    """`--trace-out` replaces its file whole: over last week's results (or any file that is not
    a trace judgegraph wrote) it is one line naming the file, exit 2, the file as it was; over
    its own earlier trace, or an empty file, it writes."""
    from tests.support.result_records import rag, write_results

    item = tmp_path / "item.json"
    item.write_text(json.dumps(rag_item("a")))
    kept = write_results(tmp_path / "last_week.jsonl", [rag("q1", 0.5)])
    err = refused(["evaluate", str(item), "--trace-out", str(kept), *scripted.flags], capsys, kept)
    assert "is not a trace judgegraph wrote" in err and scripted.judge.calls == []
    trace = tmp_path / "trace.json"
    for _ in range(2):  # a new file, then its own earlier trace
        assert run_cli(item, "--trace-out", trace, *scripted.flags) == 0, capsys.readouterr().err
        assert json.loads(trace.read_text(encoding="utf-8"))["rubrics"] == ["rag"]
    capsys.readouterr()


def test_the_csv_table_over_a_file_judgegraph_did_not_write_is_refused(tmp_path, scripted, capsys):  # noqa: F811
    """The `--format csv` table (written beside `--out` as .csv) replaces its file: a CSV of the
    user's there is refused before any judging; the table of an earlier run is rewritten."""
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "results.jsonl"
    theirs = tmp_path / "results.csv"
    theirs.write_text("name,score\nmine,1\n", encoding="utf-8")
    err = refused(["evaluate", str(items), "--out", str(out), "--format", "csv", *scripted.flags], capsys, theirs)
    assert "the --format csv table" in err and "is not a table judgegraph wrote" in err
    assert not out.exists()
    theirs.unlink()
    for _ in range(2):
        assert run_cli(items, "--out", out, "--format", "csv", *scripted.flags) == 0, capsys.readouterr().err
        assert theirs.read_text(encoding="utf-8").startswith("id,line,rubric")
