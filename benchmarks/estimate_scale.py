"""`judgegraph estimate` at scale: a million records and a thousand labels, timed.

    python -m benchmarks.estimate_scale [--records 1000000] [--labels 1000] [--runs 3] [--keep DIR]

Writes a results file of `--records` rag records shaped as a batch writes them (four metrics,
each with an explanation sentence, usage and provenance: about 1 KB a line) and a labels file
of `--labels` ids drawn at random with a design line, then runs the whole command
(`python cli.py estimate RESULTS --labels LABELS --metric faithfulness --json`, start-up
included) `--runs` times in a child process and prints the wall seconds of each and the CPU
seconds the child used (user + system), with the machine's load average: a loaded machine
inflates the wall seconds, much less the CPU seconds, so read the first with the load and
compare runs by the second. The target (docs/estimates.md) is 5 s for a million records. The
files go to a temporary folder, removed afterwards unless `--keep` names one (an existing pair
there is used again).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")
PROVENANCE = {"judge_model": "openai-compatible:demo@http://127.0.0.1:8011/v1", "judgegraph_version": "0.1.0",
              "profile_id": "default", "prompt_hash": "sha256:bef9d98f9d7ec405", "rubric": None,
              "settings": {"response_format": "json_schema", "max_repairs": 2, "claim_check": "per-claim",
                           "claims": "sentences", "embeddings": False, "own_answer": True,
                           "context_cap_tokens": 1024}}


def record(index: int, rng: random.Random) -> dict:
    result: dict = {}
    for metric in METRICS:
        result[metric] = round(rng.random(), 2)
        result[f"{metric}_explanation"] = (f"The judge's reading of {metric.replace('_', ' ')} for this item: "
                                           "two of three claims are supported by the context.")
    result |= {"evaluation_status": "success", "reason": None, "error": None}
    return {"id": f"item-{index}", "line": index + 1, "rubric": "rag", "result": result,
            "usage": {"calls": 4, "input_tokens": 2311, "output_tokens": 312, "seconds": 3.214},
            "provenance": PROVENANCE}


def write_files(folder: Path, records: int, labels: int, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    results, labels_path = folder / "results.jsonl", folder / "labels.jsonl"
    with results.open("w", encoding="utf-8") as out:
        chunk = []
        for index in range(records):
            chunk.append(json.dumps(record(index, rng), ensure_ascii=False))
            if len(chunk) == 10_000:
                out.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            out.write("\n".join(chunk) + "\n")
    chosen = rng.sample(range(records), labels)
    design = {"design": {"kind": "uniform", "seed": seed, "results": results.name, "n_items": records,
                         "order": "seeded permutation", "metrics": ["faithfulness"]}}
    lines = [design] + [{"id": f"item-{i}", "human": int(rng.random() < 0.7), "position": k}
                        for k, i in enumerate(chosen)]
    labels_path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return results, labels_path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(results: Path, labels: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, items estimated) of one whole command."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))}
    cpu, start = _children_cpu(), time.perf_counter()
    child = subprocess.run([sys.executable, str(ROOT / "cli.py"), "estimate", str(results), "--labels", str(labels),
                            "--metric", "faithfulness", "--json"], capture_output=True, text=True, env=env, check=False)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if child.returncode != 0:
        raise SystemExit(f"estimate failed ({child.returncode}): {child.stderr.strip()}")
    return seconds, cpu, json.loads(child.stdout)[0]["n_items"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        results, labels = folder / "results.jsonl", folder / "labels.jsonl"
        if not (args.keep and results.exists() and labels.exists()):
            results, labels = write_files(folder, args.records, args.labels)
        size = results.stat().st_size
        print(f"estimate on {args.records:,} records ({size / 1e6:,.0f} MB) and {args.labels:,} labels; "
              f"load average {os.getloadavg()[0]:.2f}")
        for run in range(1, args.runs + 1):
            seconds, cpu, items = time_command(results, labels)
            if items != args.records:
                raise SystemExit(f"{results} holds {items:,} records, not {args.records:,}: give another --keep folder")
            print(f"run {run}: {seconds:.2f} s wall, {cpu:.2f} s CPU (whole command, start-up included); "
                  f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
