"""Faithfulness on the first N HaluEval QA items: the figure used to tune the step prompts.

Runs only the claim pipeline (extract claims, check each claim) on the embedded local model,
one item at a time, and reports balanced accuracy of "hallucinated iff faithfulness < 1", the
share of items judged without a failed step, and seconds per item. Run it in a worktree of each
commit to compare (that is how the before/after figures of the prompt tuning were made); it
needs a checkout whose items select metrics per item (`"metrics": ["faithfulness"]`).

    python -m benchmarks.prompt_ab --limit 40 --out bench-out/prompt_ab.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "bench-data" / "halueval_qa" / "sample.jsonl"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    from judgegraph.graph.api import run_evaluation
    from judgegraph.graph.context import JudgeContext
    from judgegraph.llm.models import resolve_model

    resolved = resolve_model("local")
    context = JudgeContext(model=resolved.model, model_id=resolved.model_id,
                           response_format=resolved.response_format)
    rows = []
    lines = args.data.read_text(encoding="utf-8").splitlines()[: args.limit]
    for line in lines:
        record = json.loads(line)
        item = {"rubric": "rag", "question": record["question"], "context": record["context"],
                "answer": record["answer"], "metrics": ["faithfulness"]}
        started = time.perf_counter()
        run = run_evaluation(item, model=context, max_concurrency=1)
        seconds = time.perf_counter() - started
        rows.append({
            "id": record["id"], "stratum": record["meta"]["stratum"],
            "hallucinated": record["human"]["hallucination"] == "yes",
            "faithfulness": run.result["faithfulness"], "failed": "could not be judged" in (run.result["faithfulness_explanation"] or ""),
            "seconds": round(seconds, 2), **run.usage,
        })
        print(json.dumps(rows[-1]), flush=True)
    judged = [r for r in rows if r["faithfulness"] is not None]
    positives = [r for r in judged if r["hallucinated"]]
    negatives = [r for r in judged if not r["hallucinated"]]
    caught = sum(r["faithfulness"] < 1 for r in positives)
    cleared = sum(r["faithfulness"] >= 1 for r in negatives)
    summary = {
        "items": len(rows),
        "judged_without_failed_step": sum(not r["failed"] for r in rows) / len(rows),
        "scored": len(judged),
        "caught_hallucinated": f"{caught}/{len(positives)}",
        "cleared_faithful": f"{cleared}/{len(negatives)}",
        "balanced_accuracy": round((caught / max(len(positives), 1) + cleared / max(len(negatives), 1)) / 2, 3),
        "seconds_per_item": round(sum(r["seconds"] for r in rows) / len(rows), 1),
        "calls_per_item": round(sum(r["calls"] for r in rows) / len(rows), 2),
        "tokens_per_item": round(sum(r["input_tokens"] + r["output_tokens"] for r in rows) / len(rows)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2), encoding="utf-8")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
