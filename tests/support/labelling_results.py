"""Results files for the labelling tests and benchmark: rag records written with details (the
item, one claim with its verdict and evidence), the judge's scores chosen by the caller."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.result_records import rag

HOSTILE_ANSWER = "<script>document.title='pwned';window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\"> Yes."


def details(number: int, answer: str | None = None) -> dict[str, Any]:
    context = f"Fact {number}: the river number {number} is {number * 3} km long. Unrelated line {number}."
    answer = answer if answer is not None else f"The river number {number} is {number * 3} km long."
    evidence = f"Fact {number}: the river number {number} is {number * 3} km long."
    return {"item": {"question": f"How long is river {number}?", "context": context, "answer": answer,
                     "reference": f"{number * 3} km"},
            "verdicts": [{"index": 0, "claim": answer, "verdict": "supported", "effective_verdict": "supported",
                          "support": 1.0, "supported": True, "evidence": evidence, "critical": True}]}


def results_record(number: int, faithfulness: float | None, context_relevance: float | None = 1.0,
                   answer_relevance: float | None = 1.0, *, answer: str | None = None, with_details: bool = True,
                   **kw: Any) -> dict[str, Any]:
    line = rag(f"item-{number}", faithfulness, context_relevance=context_relevance, answer_relevance=answer_relevance,
               details=details(number, answer) if with_details else None, **kw)
    line["line"] = number
    return line


def write_results(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def scored_results(path: Path, scores: list[float | None], *, hostile_at: int | None = None) -> Path:
    """One record per score (None: the metric failed); record `hostile_at` answers with markup."""
    return write_results(path, [
        results_record(n, s, answer=HOSTILE_ANSWER if n == hostile_at else None) for n, s in enumerate(scores)])
