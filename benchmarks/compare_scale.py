"""`judgegraph compare` on two large results files: seconds and peak memory.

    python -m benchmarks.compare_scale [--records 100000] [--dir /tmp] [--max-seconds S] [--max-mb M]

Writes two rag results files of `--records` records each (seeded scores on the four rag
metrics, with their explanations, as a batch writes them; about 90 MB each at 100,000) to
`--dir`, runs `python cli.py compare BEFORE AFTER --json` on them in a child process, and
prints the child's wall seconds, its CPU seconds (user + system: the figure that says less about
other work on the machine) and its peak resident memory (`ru_maxrss` of the finished child).
With `--max-seconds` (wall) / `--max-mb` it exits 1 when a figure is over its bound, so it can gate.

What it measures: reading and pairing both files, every metric's paired statistics (the
paired bootstrap interval of the mean difference, `stats.mean_bootstrap`, 1,000 resamples of
all the items; the sign and Wilcoxon tests), the moved items, and the JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAG_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")
PROVENANCE = {"judge_model": "fake:judge", "judgegraph_version": "0.1.0", "profile_id": None,
              "prompt_hash": "sha256:0000000000000000", "rubric": None,
              "settings": {"response_format": "json_schema", "max_repairs": 2, "claim_check": "per-claim",
                           "claims": "sentences", "embeddings": True, "own_answer": True}}


def rag_record(item_id: str, generator: random.Random, shift: float) -> dict:
    """One rag record with seeded two-decimal scores, moved by `shift` (clamped to 0..1)."""
    result: dict = {}
    for name in RAG_METRICS:
        score = round(min(1.0, max(0.0, generator.random() + shift * generator.random())), 2)
        result[name] = score
        result[f"{name}_explanation"] = f"{name} of {item_id}: {score}"
    result |= {"evaluation_status": "success", "reason": None, "error": None}
    return {"id": item_id, "line": 1, "rubric": "rag", "result": result, "provenance": PROVENANCE,
            "usage": {"calls": 6, "input_tokens": 900, "output_tokens": 60, "seconds": 1.5}}


def write_run(path: Path, records: int, seed: int, shift: float) -> None:
    generator = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(records):
            handle.write(json.dumps(rag_record(f"item-{index}", generator, shift)) + "\n")


def run_compare(before: Path, after: Path) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MB, exit code) of `judgegraph compare --json` in
    a child (the only child this process has waited for, so the children's figures are its)."""
    started = time.perf_counter()
    child = subprocess.run([sys.executable, str(ROOT / "cli.py"), "compare", str(before), str(after), "--json"],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode not in (0, 1):
        print(child.stderr, file=sys.stderr)
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.returncode  # maxrss: KB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000, help="records per results file (default 100000)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()), help="where to write the two files")
    parser.add_argument("--max-seconds", type=float, default=None, help="exit 1 when compare takes longer")
    parser.add_argument("--max-mb", type=float, default=None, help="exit 1 when compare's peak RSS is larger")
    args = parser.parse_args(argv)
    before, after = args.dir / "compare_scale_before.jsonl", args.dir / "compare_scale_after.jsonl"
    write_run(before, args.records, seed=1, shift=0.0)
    write_run(after, args.records, seed=2, shift=-0.05)
    seconds, cpu_seconds, peak_mb, code = run_compare(before, after)
    print(f"compare on 2 x {args.records:,} records: {seconds:.1f} s ({cpu_seconds:.1f} s CPU), "
          f"peak RSS {peak_mb:.0f} MB (exit {code})")
    over = []
    if args.max_seconds is not None and seconds > args.max_seconds:
        over.append(f"{seconds:.1f} s > {args.max_seconds:g} s")
    if args.max_mb is not None and peak_mb > args.max_mb:
        over.append(f"{peak_mb:.0f} MB > {args.max_mb:g} MB")
    if code not in (0, 1) or over:
        print("over its bounds: " + "; ".join(over or [f"exit {code}"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
