"""Seconds per item on the local judge with and without prompt-prefix reuse.

llama.cpp reuses the KV cache of the longest common prefix with the previous request. Every
step's prompt puts the shared material (instructions, then the item's data) first and the
claim last, so when one item's calls arrive one after another each call only pays for its
tail. Interleaving the calls of two items breaks that: each call follows another item's
prompt and pays for its whole prompt. This runs the same items both ways through the batch
CLI (`--concurrency 1`, the local default, against `--concurrency 2`) and prints s/item.

    python -m benchmarks.prefix_cache --limit 4
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench-data" / "halueval_qa" / "sample.jsonl"


def write_items(data: Path, start: int, limit: int, target: Path) -> None:
    lines = data.read_text(encoding="utf-8").splitlines()[start : start + limit]
    with target.open("w", encoding="utf-8") as out:
        for line in lines:
            record = json.loads(line)
            item = {"id": record["id"], "rubric": "rag", "question": record["question"],
                    "context": record["context"], "answer": record["answer"], "metrics": ["faithfulness"]}
            out.write(json.dumps(item) + "\n")


def timed_batch(items: Path, out: Path, concurrency: int) -> dict:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out),
         "--model", "local", "--concurrency", str(concurrency)],
        check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    calls = sum(r["usage"]["calls"] for r in records)
    return {"concurrency": concurrency, "items": len(records), "calls": calls,
            "seconds_total": round(seconds, 1), "seconds_per_item": round(seconds / len(records), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--start", type=int, default=40, help="first line (default: after the tuning items)")
    parser.add_argument("--limit", type=int, default=4)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        items = Path(folder) / "items.jsonl"
        write_items(args.data, args.start, args.limit, items)
        rows = [timed_batch(items, Path(folder) / f"out-{c}.jsonl", c) for c in (1, 2)]
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
