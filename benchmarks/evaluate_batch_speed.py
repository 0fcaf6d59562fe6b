"""The CLI's batch against `judgegraph.evaluate_batch` on the same rows, wall and CPU seconds.

    python -m benchmarks.evaluate_batch_speed [--rows 1000] [--rounds 1] [--concurrency 8]

The demo judge (`tests/support/demo_judge.py`, word-overlap replies, no model) serves on
127.0.0.1 in a process of its own, so the figures are the client's. Each round runs, each in a
fresh child process: `python cli.py evaluate rows.jsonl --out ...` and a script that reads the
same rows into a pandas DataFrame (a tenth of its `reference` cells NaN, written as absent keys
in the JSONL) and calls `evaluate_batch(frame)`. The child's wall seconds and CPU seconds (user +
system, from `getrusage(RUSAGE_CHILDREN)`) include the interpreter's start and imports on both
sides. The two records files are compared, record for record, timings left out.

Figures depend on what else runs on the machine: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rag_item.json"

FRAME_SCRIPT = """
import json, sys
import pandas as pd
import judgegraph
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
frame = pd.DataFrame(rows)
scores = judgegraph.evaluate_batch(frame, model="demo", base_url=sys.argv[2], embeddings=False,
                                   concurrency=int(sys.argv[4]))
with open(sys.argv[3], "w", encoding="utf-8") as out:
    for record in scores.attrs["judgegraph"].records:
        out.write(json.dumps(record) + "\\n")
"""


def rows(count: int) -> list[dict[str, Any]]:
    """`count` rag items built from the example, each a little different (question, answer and
    context words vary, so the demo judge's scores do); every tenth has no reference (NaN)."""
    base = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    made = []
    for number in range(count):
        item = {"id": f"r{number}", "question": f"{base['question']} (case {number})",
                "context": base["context"][: 1 + number % 2] + [f"Note {number}: the archive lists {number % 7} entries."],
                "answer": base["answer"] if number % 3 else f"The archive lists {number % 5} entries.",
                "reference": base["reference"] if number % 10 else math.nan}
        made.append(item)
    return made


def write_jsonl(items: list[dict[str, Any]], path: Path) -> None:
    """The rows as the CLI reads them: a NaN cell is an absent key (an empty CSV cell)."""
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            kept = {key: value for key, value in item.items() if not (isinstance(value, float) and math.isnan(value))}
            handle.write(json.dumps(kept) + "\n")


def without_timings(record: dict) -> dict:
    return {**record, "usage": {key: value for key, value in record["usage"].items() if key != "seconds"}}


def by_id(path: Path) -> dict[str, dict]:
    return {record["id"]: without_timings(record) for record in map(json.loads, path.read_text().splitlines())}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_demo_judge() -> tuple[str, subprocess.Popen]:
    port = free_port()
    child = subprocess.Popen([sys.executable, "-m", "tests.support.demo_judge", "--port", str(port)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/models", timeout=5):
                return url, child
        except OSError:
            time.sleep(0.5)
    child.kill()
    raise SystemExit("evaluate_batch_speed: the demo judge did not start")


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))}
    subprocess.run(argv, cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    url, judge = start_demo_judge()
    figures: dict[str, list[tuple[float, float]]] = {"CLI batch": [], "evaluate_batch(DataFrame)": []}
    same = True
    try:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            write_jsonl(rows(args.rows), work / "rows.jsonl")
            for round_number in range(args.rounds):
                cli_out, api_out = work / f"cli-{round_number}.jsonl", work / f"api-{round_number}.jsonl"
                figures["CLI batch"].append(timed(
                    [sys.executable, "cli.py", "evaluate", str(work / "rows.jsonl"), "--out", str(cli_out),
                     "--base-url", url, "--model", "demo", "--no-embeddings", "--concurrency", str(args.concurrency)]))
                figures["evaluate_batch(DataFrame)"].append(timed(
                    [sys.executable, "-c", FRAME_SCRIPT, str(work / "rows.jsonl"), url, str(api_out),
                     str(args.concurrency)]))
                same = same and by_id(cli_out) == by_id(api_out)
    finally:
        judge.terminate()
        judge.wait(timeout=30)
    load = os.getloadavg()
    print(f"{args.rows} rows, demo judge on 127.0.0.1, concurrency {args.concurrency}, {args.rounds} round(s); "
          f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'':28}{'wall s':>10}{'CPU s':>10}{'items/s':>10}")
    for name, runs in figures.items():
        for wall, cpu in runs:
            print(f"{name:28}{wall:10.1f}{cpu:10.1f}{args.rows / wall:10.1f}")
    print(f"records equal (timings left out): {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
