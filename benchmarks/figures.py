"""Agreement and cost figures for one set and one method, from its item outcomes.

Statistics are computed over the items the method judged; failed items (null score or failed
status) are left out of them and counted separately, so a method cannot look better by
failing quietly: the failure count sits next to every figure.
"""

from __future__ import annotations

from judgegraph.benchmarks import stats
from judgegraph.benchmarks.datasets import BenchSet, hallucinated
from judgegraph.benchmarks.judging import ItemOutcome


def _round(value: float | None, places: int = 3) -> float | None:
    return None if value is None else round(value, places)


def binary_figures(rows: list[dict], scores: list[float]) -> dict:
    """Faithfulness against hallucination labels: flagged iff faithfulness < 1."""
    actual = [hallucinated(row) for row in rows]
    threshold, best = stats.best_threshold(scores, actual)
    return {
        "n": len(rows),
        "hallucinated": sum(actual),
        "balanced_accuracy": _round(stats.balanced_accuracy([s < 1.0 for s in scores], actual)),
        "best_threshold": threshold,
        "balanced_accuracy_best": _round(best),
        "auroc": _round(stats.auroc(scores, [not a for a in actual])),
    }


def correlation_figures(rows: list[dict], scores: list[float]) -> dict:
    human = [row["human"]["score_0_1"] for row in rows]
    return {
        "n": len(rows),
        "spearman": _round(stats.spearman(scores, human)),
        "pearson": _round(stats.pearson(scores, human)),
    }


def ranking_figures(rows: list[dict], scores: list[float]) -> dict:
    """AUROC of relevant vs not, and pairwise accuracy within each query's pair."""
    relevant = [row["human"]["relevant"] == 1 for row in rows]
    by_pair: dict[str, dict[bool, float]] = {}
    for row, score, is_relevant in zip(rows, scores, relevant):
        by_pair.setdefault(row["meta"]["pair_id"], {})[is_relevant] = score
    pairs = [(pair[True], pair[False]) for pair in by_pair.values() if len(pair) == 2]
    return {
        "n": len(rows),
        "pairs": len(pairs),
        "auroc": _round(stats.auroc(scores, relevant)),
        "pairwise_accuracy": _round(stats.pairwise_accuracy(pairs)),
    }


FIGURES = {"binary": binary_figures, "correlation": correlation_figures, "ranking": ranking_figures}


def agreement(bench: BenchSet, rows: list[dict], outcomes: list[ItemOutcome]) -> dict:
    """The set's figures over judged items, plus HaluEval's per-stratum breakdown."""
    judged = [(row, o.score) for row, o in zip(rows, outcomes) if not o.failed and o.score is not None]
    judged_rows = [row for row, _ in judged]
    scores = [float(score) for _, score in judged]
    figures = FIGURES[bench.kind](judged_rows, scores)
    strata = sorted({row["meta"].get("stratum") for row in rows} - {None})
    if strata:
        figures["strata"] = {
            stratum: FIGURES[bench.kind](
                [row for row in judged_rows if row["meta"].get("stratum") == stratum],
                [score for row, score in zip(judged_rows, scores) if row["meta"].get("stratum") == stratum],
            )
            for stratum in strata
        }
    return figures


def cost(outcomes: list[ItemOutcome], wall_seconds: float) -> dict:
    """What a method spent: totals and per-item means (over every item, failed ones included)."""
    n = len(outcomes) or 1
    calls = sum(o.calls for o in outcomes)
    tokens_in = sum(o.input_tokens for o in outcomes)
    tokens_out = sum(o.output_tokens for o in outcomes)
    return {
        "items": len(outcomes),
        "judged": sum(not o.failed for o in outcomes),
        "failed": sum(o.failed for o in outcomes),
        "calls": calls,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "calls_per_item": round(calls / n, 2),
        "input_tokens_per_item": round(tokens_in / n, 1),
        "output_tokens_per_item": round(tokens_out / n, 1),
        "seconds_per_item": round(sum(o.seconds for o in outcomes) / n, 3),
        "wall_seconds": round(wall_seconds, 2),
    }
