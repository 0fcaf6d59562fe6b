"""Seconds, calls and tokens per item on the embedded judge, warm server, with its cache counters.

    python -m benchmarks.item_cost --items examples/rag_item.json --runs 3 --out bench-out/cost.json
    python -m benchmarks.item_cost --halueval-report 20 --runs 1 --out bench-out/cost20.json

Why: issue #33 asks for before/after figures of one item and of a 20-item rag sample taken the
same way on the same machine: one warm llama.cpp server for the whole run (its start and the
embedder's first load are paid by a warm-up pass that is not counted), the items judged one
after another at concurrency 1 (the local default), each run repeated `--runs` times and given
as min / median / max.

"Served from a cache" comes from the server itself: llama-cpp-python prints
`Llama.generate: N prefix-match hit, remaining M prompt tokens to eval` in its log for every
request that reuses the KV cache of the previous one, so a run's cached prompt tokens are the
sum of those N over the log lines it wrote, and what the server evaluated is the run's prompt
tokens less them. Between two passes a short unrelated request is sent, so one pass never
starts on the previous pass's cache of the same item. With `--after-item OTHER.json` the
separator is that other item, judged and not counted: a pass then starts as an item of a batch
does, on a server whose cache holds the previous item's last prompt, so what the prompts of two
items share (the system message) is served from it.

The 20-item sample is the first 20 report rows of HaluEval (benchmarks.split) as full rag
items: question, context, answer and reference, all four metrics.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from .split import rows_in_part

ROOT = Path(__file__).resolve().parent.parent
HALUEVAL = ROOT.parent / "shared" / "bench-data" / "halueval_qa" / "sample.jsonl"
PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def halueval_items(count: int, data: Path = HALUEVAL) -> list[dict]:
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    report = rows_in_part("halueval_qa", rows, "report")[:count]
    return [{"id": row["id"], "rubric": "rag", "question": row["question"], "context": row["context"],
             "answer": row["answer"], "reference": row["reference"]} for row in report]


def file_items(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def log_position(log_path: Path) -> int:
    return log_path.stat().st_size if log_path.exists() else 0


def cached_tokens(log_path: Path, start: int) -> int:
    with log_path.open("rb") as log:
        log.seek(start)
        written = log.read().decode("utf-8", "replace")
    return sum(int(hit) for hit, _ in PREFIX_HIT.findall(written))


def flush_prefix(base_url: str, alias: str) -> None:
    """One tiny unrelated request, so the next pass does not start on this pass's cache."""
    import httpx

    httpx.post(f"{base_url}/chat/completions", timeout=120, json={
        "model": alias, "max_tokens": 1,
        "messages": [{"role": "user", "content": "Say OK."}]}).raise_for_status()


def one_pass(items: list[dict], server, settings: dict, separator: dict | None = None) -> dict:
    from judgegraph.graph.api import run_evaluation

    if separator is None:
        flush_prefix(server.base_url, server.model_alias)
    else:
        run_evaluation(separator, model="local", max_concurrency=1, **settings)
    start = log_position(server.log_path)
    started = time.perf_counter()
    per_item = []
    for item in items:
        run = run_evaluation(item, model="local", max_concurrency=1, **settings)
        model_steps = [event for event in run.trace if event.calls]
        per_item.append({
            "id": item.get("id"), "usage": run.usage,
            "model_step_seconds": round(sum(event.duration_s for event in model_steps), 2),
            "steps": [{"node": event.node, "label": event.label, "s": round(event.duration_s, 2),
                       "calls": event.calls, "in": event.input_tokens, "out": event.output_tokens}
                      for event in model_steps],
            "result": run.result,
        })
    seconds = time.perf_counter() - started
    time.sleep(0.5)  # the server writes its log line after the reply
    prompt = sum(entry["usage"]["input_tokens"] for entry in per_item)
    cached = cached_tokens(server.log_path, start)
    return {"wall_seconds": round(seconds, 2),
            "model_step_seconds": round(sum(entry["model_step_seconds"] for entry in per_item), 2),
            "calls": sum(entry["usage"]["calls"] for entry in per_item),
            "prompt_tokens": prompt, "generated_tokens": sum(entry["usage"]["output_tokens"] for entry in per_item),
            "cached_prompt_tokens": cached, "evaluated_prompt_tokens": prompt - cached,
            "items": per_item}


def spread(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=Path, help="a JSON item or a JSONL file")
    parser.add_argument("--halueval-report", type=int, default=0, help="the first N HaluEval report rows")
    parser.add_argument("--halueval-data", type=Path, default=HALUEVAL)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-embeddings", action="store_true")
    parser.add_argument("--calibration", default=None, help="a calibration profile JSON (default: the shipped one)")
    parser.add_argument("--after-item", type=Path, default=None,
                        help="judge this other item (not counted) before each pass, instead of an unrelated request")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    separator = file_items(args.after_item)[0] if args.after_item else None
    items = file_items(args.items) if args.items else halueval_items(args.halueval_report, args.halueval_data)
    settings = {"embeddings": False} if args.no_embeddings else {}
    if args.calibration:
        from judgegraph.calibration.profile import load_profile

        settings["calibration"] = load_profile(args.calibration)

    from judgegraph.llm.local import local_judge, local_server

    local_judge()
    server = local_server()
    one_pass(items[:1], server, settings)  # warm-up: server, embedder, imports (not counted)
    passes = []
    for number in range(args.runs):
        passes.append(one_pass(items, server, settings, separator))
        print(json.dumps({key: value for key, value in passes[-1].items() if key != "items"}), flush=True)
    summary = {key: spread([p[key] for p in passes]) for key in
               ("wall_seconds", "model_step_seconds", "calls", "prompt_tokens", "generated_tokens",
                "cached_prompt_tokens", "evaluated_prompt_tokens")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    recorded_settings = {key: getattr(value, "id", value) for key, value in settings.items()}
    recorded_settings["after_item"] = str(args.after_item) if args.after_item else None
    args.out.write_text(json.dumps({"items": len(items), "runs": args.runs, "settings": recorded_settings,
                                    "summary": summary, "passes": passes}, indent=1), encoding="utf-8")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
