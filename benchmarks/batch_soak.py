"""Soak test of batch mode: 1,000 items, 5% malformed lines, a server failing 20% of calls,
one run killed with SIGKILL part-way, then resumed until done.

    python -m benchmarks.batch_soak [--items 1000] [--kill-at 0.4] [--fault-rate 0.2]

It checks the promise of `docs/batch.md`: the output holds exactly one line per input id,
every line a complete record whose result is schema-valid (a judged result or a clean failure),
and it prints the figures (wall time per run, failures by kind, faults served, calls, tokens).
It runs the real CLI in child processes against the fault-injecting OpenAI-compatible server of
`tests/support/fault_server.py` (run it from a source checkout). Exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINE_BYTES = 20_000


def malformed_line(kind: int, number: int) -> bytes:
    """Five kinds of broken line, in turn: prose, truncated JSON, a list, bad UTF-8, too large."""
    return [
        b"this line is prose, not JSON",
        b'{"id": "cut-' + str(number).encode() + b'", "question": "what',
        b'["a", "list", "not", "an", "object"]',
        b'{"id": "bytes-' + str(number).encode() + b'", "answer": "\xff\xfe"}',
        b'{"id": "big-' + str(number).encode() + b'", "context": "' + b"z" * (MAX_LINE_BYTES + 10) + b'"}',
    ][kind % 5]


def write_items(path: Path, count: int, bad_share: float, seed: int) -> set[str]:
    """The input file; returns the ids the output must hold (good ids + `line-N` of bad lines)."""
    rng = random.Random(seed)
    bad_lines = set(rng.sample(range(1, count + 1), round(count * bad_share)))
    expected: set[str] = set()
    with path.open("wb") as handle:
        for number in range(1, count + 1):
            if number in bad_lines:
                handle.write(malformed_line(len(expected), number) + b"\n")
                expected.add(f"line-{number}")
                continue
            item = {"id": f"item-{number}", "question": f"What does item {number} say?",
                    "context": [f"Item {number} says the sky is blue.", "Unrelated passage."],
                    "answer": f"Item {number} says the sky is blue. It is also green.",
                    "reference": "The sky is blue."}
            handle.write(json.dumps(item).encode() + b"\n")
            expected.add(f"item-{number}")
    return expected


def run_cli(items: Path, out: Path, base_url: str, *, kill_after_lines: int | None) -> tuple[float, int]:
    """One `cli.py evaluate` child; SIGKILLed once `out` has `kill_after_lines` lines."""
    command = [sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out),
               "--base-url", base_url, "--model", "fault-model", "--timeout", "0.5", "--retries", "2",
               "--concurrency", "8", "--max-line-bytes", str(MAX_LINE_BYTES)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_after_lines is None:
        _, err = child.communicate()
        sys.stderr.write(err.decode("utf-8", "replace")[-3000:])
        return time.monotonic() - started, child.returncode
    while child.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= kill_after_lines:
            child.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    child.wait()
    return time.monotonic() - started, child.returncode


def check(out: Path, expected: set[str]) -> dict:
    from judgegraph.batch.summary import failure_of
    from judgegraph.schemas.rag import RagResult

    data = out.read_bytes()
    assert data.endswith(b"\n"), "the output ends with a partial line"
    records = [json.loads(line) for line in data.splitlines()]
    ids = Counter(record["id"] for record in records)
    twice = [i for i, n in ids.items() if n > 1]
    assert not twice, f"ids written more than once: {twice[:5]}"
    assert set(ids) == expected, f"missing {sorted(expected - set(ids))[:5]}, extra {sorted(set(ids) - expected)[:5]}"
    kinds: Counter[str] = Counter()
    usage: Counter[str] = Counter()
    for record in records:
        RagResult.model_validate(record["result"])
        if record.get("input_error"):
            kinds["bad input line"] += 1
        elif record.get("internal_error"):
            kinds["internal error"] += 1
        elif failure_of(record["result"]):
            kinds["judged, a step failed (status failed)"] += 1
        else:
            kinds["judged, success"] += 1
        for key in ("calls", "input_tokens", "output_tokens"):
            usage[key] += record["usage"][key]
    return {"records": len(records), "kinds": dict(kinds), "usage": dict(usage)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--bad-share", type=float, default=0.05)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--kill-at", type=float, default=0.4, help="kill the first run at this share of lines")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.support.fault_server import FaultServer

    work = Path(tempfile.mkdtemp(prefix="judgegraph-soak-"))
    items, out = work / "items.jsonl", work / "results.jsonl"
    expected = write_items(items, args.items, args.bad_share, args.seed)
    figures: dict = {"items": args.items, "bad_lines": round(args.items * args.bad_share),
                     "fault_rate": args.fault_rate, "runs": []}
    with FaultServer(fault_rate=args.fault_rate, seed=args.seed, slow_seconds=1.0, retry_after_ms=20) as server:
        seconds, code = run_cli(items, out, server.base_url, kill_after_lines=int(args.items * args.kill_at))
        lines = out.read_bytes().count(b"\n")
        figures["runs"].append({"run": "first (SIGKILL)", "seconds": round(seconds, 1), "exit": code,
                                "lines_after": lines})
        for attempt in range(3):
            seconds, code = run_cli(items, out, server.base_url, kill_after_lines=None)
            figures["runs"].append({"run": f"resume {attempt + 1}", "seconds": round(seconds, 1), "exit": code,
                                    "lines_after": out.read_bytes().count(b"\n")})
            if code == 0:
                break
        figures["server"] = {"requests": server.requests, "by_mode": dict(server.counts)}
    figures["check"] = check(out, expected)
    figures["output"] = str(out)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
