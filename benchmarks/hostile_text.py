"""Hostile text: how long the text rules take on pathological input, and whether one huge line
holds up a batch (issue #29).

    python -m benchmarks.hostile_text [--sizes 10000,40000,160000] [--normal-items 6] [--line-bytes 990000]

1. Text rules: CPU seconds of every code-side text rule (`tests.support.text_rules`:
   sentences, claims, numbers, words, refusal cues, quotes, evidence, number conflicts,
   grounding, report highlighting) on runs of initials, abbreviations, dots, digits and mixed
   scripts, at each size, and the ratio between consecutive sizes (4x the size: about 4x the
   time for a linear rule, 16x for a quadratic one).
2. A batch: a line of initials of --line-bytes beside --normal-items normal items, through the
   batch CLI (a child process) against the fake judge on 127.0.0.1; each record's seconds, the
   order records were written in, and the wall time, beside a batch of the normal items alone.
3. One item holding a number of a million digits: exit code, status and seconds.

Wall-clock figures depend on the machine and what else runs on it; the ratios do not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.fault_server import FaultServer
from tests.support.text_rules import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"initials": "A. ", "titles": "Dr. X ", "german": "z. B. ", "dots": "...", "digits": "1.",
         "mixed": "Ab. 中文。 т. е. ", "words": "The cat sat on the mat. "}
NORMAL = {"question": "Capital of France?", "context": "Paris is the capital of France.",
          "answer": "Paris. It is in Europe.", "reference": "Paris"}


def text_rules(sizes: list[int]) -> None:
    print("text rules, CPU seconds (best of 2) by size in characters; ratio to the previous size")
    print(f"{'text':10} " + " ".join(f"{size:>16,}" for size in sizes))
    for name, unit in UNITS.items():
        cells, previous = [], None
        for size in sizes:
            seconds = cpu_seconds(unit * (size // len(unit)))
            ratio = f"x{seconds / previous:.1f}" if previous else ""
            cells.append(f"{seconds:9.3f} {ratio:>6}")
            previous = max(seconds, 1e-6)
        print(f"{name:10} " + " ".join(cells), flush=True)


def _batch(lines: list[dict], server: FaultServer, folder: Path, name: str) -> tuple[float, list[dict], int]:
    items, out = folder / f"{name}.jsonl", folder / f"{name}.out.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "cli.py", "evaluate", str(items), "--out", str(out), "--no-embeddings",
         "--base-url", server.base_url, "--model", "fake", "--retries", "0", "--concurrency", "8"],
        cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return wall, records, done.returncode


def batch(normal_items: int, line_bytes: int) -> None:
    initials = "A. " * (line_bytes // 3 - 40)
    big = dict(NORMAL, id="initials", context=[initials, "Paris is the capital of France."])
    normal = [dict(NORMAL, id=f"normal-{n}") for n in range(normal_items)]
    with tempfile.TemporaryDirectory() as folder, FaultServer() as server:
        for name, lines in (("normal items alone", normal), ("with the line of initials", [big, *normal])):
            wall, records, code = _batch(lines, server, Path(folder), name.replace(" ", "_"))
            print(f"\nbatch, {name}: exit {code}, wall {wall:.1f} s, {len(records)} records "
                  f"(line of initials: {len(json.dumps(big)):,} bytes)")
            for record in records:
                status = record.get("result", {}).get("evaluation_status")
                print(f"  {record['id']:10} {record['usage']['seconds']:8.2f} s  {status}"
                      + (f"  internal error: {record['internal_error']}" if "internal_error" in record else ""))


def million_digits() -> None:
    item = dict(NORMAL, context=["The count is " + "9" * 1_000_000 + " units.", "Paris is the capital of France."])
    with tempfile.TemporaryDirectory() as folder, FaultServer() as server:
        path = Path(folder) / "item.json"
        path.write_text(json.dumps(item))
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "cli.py", "evaluate", str(path), "--no-embeddings", "--base-url", server.base_url,
             "--model", "fake", "--retries", "0", "--max-line-bytes", "2000000"],
            cwd=ROOT, capture_output=True, text=True)
        status = json.loads(done.stdout).get("evaluation_status") if done.returncode == 0 else done.stderr[-200:]
        print(f"\none item, a number of a million digits: exit {done.returncode}, {status}, "
              f"{time.perf_counter() - started:.1f} s (start-up included)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,40000,160000")
    parser.add_argument("--normal-items", type=int, default=6)
    parser.add_argument("--line-bytes", type=int, default=990_000)
    args = parser.parse_args(argv)
    text_rules([int(size) for size in args.sizes.split(",")])
    batch(args.normal_items, args.line_bytes)
    million_digits()
    return 0


if __name__ == "__main__":
    sys.exit(main())
