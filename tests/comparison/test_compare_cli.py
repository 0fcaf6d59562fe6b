"""`judgegraph compare`: the gate's exit codes, `--json`, the judges' differences, and bad input
as one line on stderr (exit 2), never a traceback."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from judgegraph.commands import cli
from tests.support.result_records import PROVENANCE, categorical, coverage, rag, record, write_results

ROOT = Path(__file__).resolve().parents[2]


def files(tmp_path, before: list[dict], after: list[dict]) -> list[str]:
    return [str(write_results(tmp_path / "before.jsonl", before)), str(write_results(tmp_path / "after.jsonl", after))]


def drop(tmp_path, change: float, n: int = 10) -> list[str]:
    """n items whose faithfulness moves by `change` each (a constant change: a point interval)."""
    return files(tmp_path, [rag(f"q{i}", 0.5) for i in range(n)], [rag(f"q{i}", 0.5 + change) for i in range(n)])


def one_drop_in_ten(tmp_path) -> list[str]:
    """One item of ten drops by 0.5: mean -0.05, the interval runs from below -0.02 up to 0."""
    return files(tmp_path, [rag(f"q{i}", 1.0) for i in range(10)],
                 [rag(f"q{i}", 0.5 if i == 0 else 1.0) for i in range(10)])


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_gate_fails_when_the_whole_interval_is_below_minus_margin(tmp_path, capsys):
    code, _, err = run([*drop(tmp_path, -0.25), "--fail-if-worse", "faithfulness:0.02"], capsys)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "faithfulness: WORSE: 95 % interval of after - before [-0.250, -0.250] lies below -0.02")


def test_gate_passes_when_the_drop_is_within_the_margin(tmp_path, capsys):
    code, _, err = run([*drop(tmp_path, -0.25), "--fail-if-worse", "faithfulness:0.3"], capsys)
    assert code == 0 and "faithfulness: ok:" in err


def test_gate_says_inconclusive_and_passes_when_the_interval_straddles(tmp_path, capsys):
    code, _, err = run([*one_drop_in_ten(tmp_path), "--fail-if-worse", "faithfulness:0.02"], capsys)
    assert code == 0
    line = next(line for line in err.splitlines() if line.startswith("faithfulness"))
    assert "inconclusive" in line and "straddles -0.02" in line


def test_gate_on_several_metrics_and_an_ordinal_one(tmp_path, capsys):
    before = [rag(f"q{i}", 0.5, answer_relevance=1.0) for i in range(6)] + [coverage(f"c{i}", 3) for i in range(6)]
    after = [rag(f"q{i}", 0.5, answer_relevance=0.0) for i in range(6)] + [coverage(f"c{i}", 1) for i in range(6)]
    code, _, err = run([*files(tmp_path, before, after),
                        "--fail-if-worse", "faithfulness:0.02, answer_relevance:0.05,coverage:0.1"], capsys)
    assert code == 1
    lines = err.strip().splitlines()[-3:]
    assert lines[0].startswith("faithfulness: ok")
    assert lines[1].startswith("answer_relevance: WORSE") and "[-1.000, -1.000]" in lines[1]
    assert lines[2].startswith("coverage: WORSE: 95 % interval of net share improved [-1.000, -1.000]")


def test_gate_fails_when_nothing_was_judged_in_both(tmp_path, capsys):
    before = [rag(f"q{i}", 0.5) for i in range(3)]
    after = [rag(f"q{i}", None, error="faithfulness: timeout") for i in range(3)]
    code, _, err = run([*files(tmp_path, before, after), "--fail-if-worse", "faithfulness:0.1"], capsys)
    assert code == 1 and "faithfulness: FAILED: no item judged in both runs" in err and "3 changed status" in err


@pytest.mark.parametrize("spec, message", [
    ("faithfulness", "'faithfulness' is not metric:margin"),
    ("faithfulness:abc", "the margin in 'faithfulness:abc' is not a number"),
    ("faithfulness:-0.1", "must be a number >= 0"),
    ("faithfulness:nan", "must be a number >= 0"),
    (",", "give at least one metric:margin"),
    ("nosuch:0.1", "no metric 'nosuch' in this comparison"),
    ("expected_output:0.1", "judged with labels"),
])
def test_bad_gate_specs_are_usage_errors(tmp_path, capsys, spec, message):
    before = [rag("q", 0.5), categorical("e", "Good")]
    after = [rag("q", 0.5), categorical("e", "Poor")]
    code, _, err = run([*files(tmp_path, before, after), "--fail-if-worse", spec], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_json_output_is_the_whole_comparison(tmp_path, capsys):
    code, out, _ = run([*one_drop_in_ten(tmp_path), "--json", "--fail-if-worse", "faithfulness:0.02"], capsys)
    assert code == 0
    data = json.loads(out)
    faith = next(m for m in data["metrics"] if m["metric"] == "faithfulness")
    assert faith["score"]["n"] == 10 and faith["score"]["mean_difference"] == pytest.approx(-0.05)
    assert (faith["score"]["wins"], faith["score"]["losses"], faith["score"]["ties"]) == (0, 1, 9)
    assert faith["moved"][0]["id"] == "q0" and faith["moved"][0]["change"] == -0.5
    assert data["gate"][0]["outcome"] == "inconclusive" and data["shared"] == 10
    assert data["before"]["provenance"] == [PROVENANCE] and data["judge_differences"] == []


def test_the_table_names_each_metric_and_the_partial_comparison(tmp_path, capsys):
    before = [rag("q1", 0.5), rag("q2", 0.5), rag("gone", 0.5)]
    after = [rag("q1", 1.0), rag("q2", 0.5), rag("new", 0.5)]
    code, out, _ = run([*files(tmp_path, before, after), "--metrics", "faithfulness"], capsys)
    assert code == 0
    assert "faithfulness" in out and "+0.250" in out and "answer_relevance" not in out
    assert "1 only in before.jsonl, 1 only in after.jsonl" in out
    assert "only in before.jsonl (1): gone" in out and "only in after.jsonl (1): new" in out


def test_different_judges_are_said_next_to_the_figures(tmp_path, capsys):
    other = PROVENANCE | {"judge_model": "openai:gpt-4o-mini", "prompt_hash": "sha256:1111111111111111",
                          "settings": PROVENANCE["settings"] | {"claim_check": "batch"}}
    code, out, _ = run(files(tmp_path, [rag("q", 0.5)], [rag("q", 0.5, provenance=other)]), capsys)
    assert code == 0
    assert "different judge models: fake:judge (before) vs openai:gpt-4o-mini (after)" in out
    assert "different prompt templates" in out and "claim_check per-claim -> batch" in out
    code, out, _ = run(files(tmp_path, [rag("q", 0.5, provenance=None)], [rag("q", 0.5), rag("r", 0.5, provenance=other)]),
                       capsys)
    assert "before.jsonl: some or all records carry no provenance" in " ".join(out.split())
    assert "after.jsonl mixes 2 provenances" in out


BAD_INPUTS = {
    "missing": (None, "cannot read"),
    "empty": (b"", "is empty"),
    "blank lines": (b"\n\n  \n", "is empty"),
    "items, not results": (Path("examples/batch.jsonl").read_bytes() if (ROOT / "examples/batch.jsonl").exists()
                           else b"", "is not a judgegraph results file"),
    "binary": (b"\x00\xff\xfe garbage\n\x89PNG\n", "is not a judgegraph results file"),
    "only a cut-off line": (b'{"id": "q", "result": {"faithful', "its only line is cut off"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, case):
    monkeypatch.chdir(ROOT)
    content, message = BAD_INPUTS[case]
    good = write_results(tmp_path / "good.jsonl", [rag("q", 0.5)])
    bad = tmp_path / "bad.jsonl"
    if content is not None:
        bad.write_bytes(content)
    for argv in ([str(bad), str(good)], [str(good), str(bad)]):
        code, out, err = run(argv, capsys)
        assert code == 2 and out == ""
        assert err.startswith("judgegraph: ") and message in err and len(err.strip().splitlines()) == 1


def test_a_directory_and_no_shared_ids_and_unknown_metrics(tmp_path, capsys):
    good = write_results(tmp_path / "good.jsonl", [rag("q", 0.5)])
    other = write_results(tmp_path / "other.jsonl", [rag("z", 0.5)])
    code, _, err = run([str(tmp_path), str(good)], capsys)
    assert code == 2 and "cannot read" in err
    code, _, err = run([str(good), str(other)], capsys)
    assert code == 2 and "share no item id" in err and len(err.strip().splitlines()) == 1
    code, _, err = run([str(good), str(good), "--metrics", "faithfulness,nosuch"], capsys)
    assert code == 2 and "no metric 'nosuch'" in err and "faithfulness" in err


def test_a_truncated_last_line_and_unreadable_lines_give_a_stated_partial_comparison(tmp_path, capsys):
    before = write_results(tmp_path / "before.jsonl", [rag("q1", 0.5), rag("q2", 0.5)])
    after = tmp_path / "after.jsonl"
    after.write_text(json.dumps(rag("q1", 1.0)) + "\nnot json\n" + json.dumps(rag("q2", 1.0))[:40], encoding="utf-8")
    code, out, _ = run([str(before), str(after)], capsys)
    text = " ".join(out.split())
    assert code == 0
    assert "after.jsonl: its last line is cut off (a run still writing, or killed): left out" in text
    assert "after.jsonl: 1 line(s) are not result records (line 2): left out" in text
    assert "1 only in before.jsonl" in text


def test_an_unwritable_html_path_is_one_line(tmp_path, capsys):
    a, b = drop(tmp_path, 0.1)
    code, _, err = run([a, b, "-o", str(tmp_path / "no" / "such" / "dir" / "c.html")], capsys)
    assert code == 2 and "cannot write" in err and len(err.strip().splitlines()) == 1


def test_the_installed_command_runs_in_a_fresh_process(tmp_path):
    a, b = drop(tmp_path, -0.25)
    proc = subprocess.run([sys.executable, "cli.py", "compare", a, b, "--fail-if-worse", "faithfulness:0.02"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "faithfulness: WORSE" in proc.stderr and "faithfulness" in proc.stdout


def varied_runs(tmp_path) -> list[str]:
    """Every kind of row the table has (scores, an ordinal scale, labels) with scores that
    differ item by item, and a metric whose key would fill a line."""
    generator = random.Random(7)
    score = lambda: round(generator.random(), 2)  # noqa: E731
    long_key = "a_metric_named_at_great_length_for_the_table_score"
    runs = []
    for _ in range(2):
        runs.append([rag(f"q{i}", score(), context_relevance=score(), answer_relevance=score()) for i in range(9)]
                    + [coverage(f"c{i}", generator.randint(1, 5)) for i in range(9)]
                    + [categorical(f"e{i}", generator.choice(["Good", "Fair", "Poor"])) for i in range(9)]
                    + [record(f"g{i}", "custom", {long_key: score()}) for i in range(9)])
    return files(tmp_path, *runs)


def _figures(metric: dict) -> tuple[list[str], list[str]]:
    """What the table shows of `metric` that must stay whole: the counts (in columns that never
    wrap), and the means, the difference and its interval's ends (in columns that may)."""
    if "score" in metric:
        s = metric["score"]
        return ([str(s["n"]), f"{s['wins']}/{s['losses']}/{s['ties']}"],
                [f"{s['mean_before']:.3f}", f"{s['mean_after']:.3f}", f"{s['mean_difference']:+.3f}"]
                + [f"{end:+.3f}" for end in s["interval"]])
    if "ordinal" in metric:
        o = metric["ordinal"]
        return ([str(o["n"]), f"{o['up']}/{o['down']}/{o['same']}"],
                [f"{o['net_share_improved']:+.3f}"] + [f"{end:+.3f}" for end in o["interval"]])
    if "labels" in metric:
        return [str(metric["labels"]["n"])], [str(metric["labels"]["changed"])]
    return [], []  # no item judged in both: no figure


@pytest.mark.parametrize("columns", [50, 64, 80, 100, 140])
def test_a_narrow_terminal_or_a_long_metric_key_never_cuts_a_figure(tmp_path, capsys, monkeypatch, columns):
    """rich narrows a table too wide for its console by cutting cells ("0…"): the counts stay
    whole at any width, and from 80 columns on so do the means, the differences and their
    intervals' ends, with a metric key that would fill a line (narrower, they may fold across
    lines)."""
    paths = varied_runs(tmp_path)
    metrics = json.loads(run([*paths, "--json"], capsys)[1])["metrics"]
    assert {"score", "ordinal", "labels"} <= {kind for metric in metrics for kind in metric}
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(paths, capsys)
    table = out.split("Δ mean: after - before")[0]
    assert code == 0 and "…" not in table
    assert max(len(line) for line in table.splitlines()) <= columns
    cells = table.split()
    for metric in metrics:
        counts, wrapping = _figures(metric)
        for figure in counts + (wrapping if columns >= 80 else []):
            assert any(figure in cell for cell in cells), (metric["metric"], figure)
