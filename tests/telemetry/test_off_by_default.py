"""Off by default: no `--otel` loads no telemetry code and needs no OpenTelemetry; `--otel`
without the extra is one line naming the install command, exit 2. Checked in fresh
interpreters, the way a user starts the command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgegraph.commands.otel_option import INSTALL_HINT, otel_requested
from tests.support.calibration_items import labelled_rows, write_jsonl
from tests.support.fault_server import FaultServer
from tests.support.result_records import rag, write_results
from tests.support.fresh_cli import modules_after_cli

ROOT = Path(__file__).resolve().parents[2]
ITEM = str(ROOT / "examples" / "rag_item.json")

BLOCK_OPENTELEMETRY = (
    "import sys\n"
    "class Blocker:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'opentelemetry' or name.startswith('opentelemetry.'):\n"
    "            raise ImportError(f'No module named {name!r} (blocked)')\n"
    "sys.meta_path.insert(0, Blocker())\n"
)
"""As if the `otel` extra were not installed (langsmith then skips its own optional import too)."""


def run_main(argv: list[str], *, blocked: bool = False) -> tuple[int, list[str], str]:
    """(exit code, the opentelemetry and judgegraph.telemetry modules loaded, stderr)."""
    return modules_after_cli(argv, ("opentelemetry", "judgegraph.telemetry"),
                             prelude=BLOCK_OPENTELEMETRY if blocked else "", drop_env=("JUDGEGRAPH_OTEL",))


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"]])
def test_help_imports_no_opentelemetry(argv):
    code, loaded, _ = run_main(argv)
    assert code == 0
    assert [m for m in loaded if m.startswith("opentelemetry")] == []
    assert loaded == []  # the flag's switch lives in commands/otel_option.py, stdlib only


def test_a_one_item_evaluate_without_otel_loads_no_telemetry_and_runs_without_opentelemetry():
    with FaultServer(fault_rate=0.0) as judge:
        argv = ["evaluate", ITEM, "--base-url", judge.base_url, "--model", "fake", "--no-embeddings"]
        code, loaded, _ = run_main(argv)
        blocked_code, blocked_loaded, stderr = run_main(argv, blocked=True)
    assert code == 0
    assert loaded == []  # not even the SDK langsmith.client would import for a type hint
    assert (blocked_code, blocked_loaded) == (0, []), stderr


def test_a_calibration_that_judges_loads_no_opentelemetry(tmp_path):
    labels = tmp_path / "labels.jsonl"
    write_jsonl(labels, labelled_rows(12))
    with FaultServer(fault_rate=0.0) as judge:
        code, loaded, stderr = run_main(["calibrate", str(labels), "--metric", "faithfulness",
                                         "-o", str(tmp_path / "profile.json"), "--base-url", judge.base_url,
                                         "--model", "fake", "--no-embeddings", "--folds", "2"])
        assert judge.requests > 0, stderr
    assert code in (0, 1, 2) and loaded == [], stderr


@pytest.mark.parametrize("command", ["report", "compare"])
def test_reading_results_loads_no_opentelemetry(command, tmp_path):
    results = write_results(tmp_path / "results.jsonl", [rag("a", 0.5), rag("b", 1.0)])
    argv = ["report", str(results), "-o", str(tmp_path / "report.html")] if command == "report" else \
        ["compare", str(results), str(results)]
    code, loaded, stderr = run_main(argv)
    assert code == 0 and loaded == [], stderr


def test_opentelemetry_stays_importable_after_a_run_without_otel():
    """Keeping OpenTelemetry out of sight while langsmith loads must not hide it from the user's
    own code afterwards (nor from LangSmith's OTel mode, which imports it when switched on)."""
    script = (
        "import sys\n"
        "from judgegraph.commands.otel_option import load_langsmith_without_opentelemetry\n"
        "load_langsmith_without_opentelemetry()\n"
        "assert 'langsmith.client' in sys.modules and not any(m.startswith('opentelemetry') for m in sys.modules)\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "import langsmith.client\n"
        "print(TracerProvider.__module__, langsmith.client.Client.__name__)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")])))
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                           check=False)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["opentelemetry.sdk.trace", "Client"]


@pytest.mark.parametrize("single", [True, False])
def test_otel_without_the_extra_is_one_line_naming_the_install_and_exit_2(single, tmp_path):
    argv = ["evaluate", ITEM, "--otel", "--model", "fake", "--base-url", "http://127.0.0.1:9/v1"]
    if not single:
        argv += ["--out", str(tmp_path / "out.jsonl")]
    code, _, stderr = run_main(argv, blocked=True)
    assert code == 2
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and INSTALL_HINT in lines[0], stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_the_environment_switch():
    assert otel_requested(None, {}) is False
    assert otel_requested(True, {}) is True
    for yes in ("1", "true", "YES", " on "):
        assert otel_requested(None, {"JUDGEGRAPH_OTEL": yes}) is True
    for no in ("", "0", "false", "off"):
        assert otel_requested(None, {"JUDGEGRAPH_OTEL": no}) is False
