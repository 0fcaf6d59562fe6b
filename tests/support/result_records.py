"""Batch result lines built by hand, for the comparison's tests: each rubric's seed shape with
the scores a test chooses, so a statistic can be checked against a value computed by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RAG_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")
PROVENANCE = {"judge_model": "fake:judge", "judgegraph_version": "0.1.0", "profile_id": None,
              "prompt_hash": "sha256:0000000000000000", "rubric": None,
              "settings": {"response_format": "json_schema", "max_repairs": 2, "claim_check": "per-claim",
                           "claims": "sentences", "embeddings": True, "own_answer": True}}


def rag_result(error: str | None = None, **scores: float | None) -> dict[str, Any]:
    """The rag seed's 11 keys; a metric not given is null (not applicable), `error` names failed ones."""
    result: dict[str, Any] = {}
    for name in RAG_METRICS:
        result[name] = scores.get(name)
        result[f"{name}_explanation"] = f"{name} explanation" if scores.get(name) is not None else None
    result |= {"evaluation_status": "failed" if error else "success", "reason": None, "error": error}
    return result


def record(item_id: str, rubric: str | list[str], result: dict, *, provenance: dict | None = PROVENANCE,
           details: dict | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"id": item_id, "line": 1, "rubric": rubric, "result": result,
                            "usage": {"calls": 1, "input_tokens": 10, "output_tokens": 2, "seconds": 0.1}}
    if details is not None:
        line["details"] = details
    if provenance is not None:
        line["provenance"] = provenance
    return line


def rag(item_id: str, faithfulness: float | None = None, **kw: Any) -> dict[str, Any]:
    provenance = kw.pop("provenance", PROVENANCE)
    details = kw.pop("details", None)
    error = kw.pop("error", None)
    return record(item_id, "rag", rag_result(error, faithfulness=faithfulness, **kw), provenance=provenance,
                  details=details)


def liverag_result(relevance: int | None, faithfulness: int | None, notes: str = "notes") -> dict[str, Any]:
    return {"evaluation_notes": notes, "relevance_score": relevance, "faithfulness_score": faithfulness}


def coverage(item_id: str, score: int | None) -> dict[str, Any]:
    return record(item_id, "coverage", {"score": score, "rationale": [f"score {score}"] * 5})


def categorical(item_id: str, category: str) -> dict[str, Any]:
    evaluation = {"evaluation_type": "categorical",
                  "result": {"category": category, "available_categories": ["Good", "Fair", "Poor"]},
                  "reasoning": f"judged {category}",
                  "comparison_details": {"exact_match": False, "semantic_match": False, "partial_match": False,
                                         "missing_elements": [], "incorrect_elements": []},
                  "confidence": 0.5}
    return record(item_id, "expected_output", {"evaluation": evaluation})


def write_results(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
