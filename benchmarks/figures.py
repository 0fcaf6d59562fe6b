"""Agreement and cost figures for one set and one method, from its item outcomes.

Statistics are computed over the items the method judged; failed items (null score or failed
status) are left out of them and counted separately, so a method cannot look better by
failing quietly: the failure count sits next to every figure.
"""

from __future__ import annotations

from judgegraph import stats

from benchmarks.datasets import BenchSet, hallucinated
from benchmarks.judging import ItemOutcome


def _round(value: float | None, places: int = 3) -> float | None:
    return None if value is None else round(value, places)


def _interval(statistic, units: int) -> list[float] | None:
    interval = stats.bootstrap_interval(statistic, units)
    return None if interval is None else [round(interval[0], 3), round(interval[1], 3)]


GRADED_THRESHOLD = 0.5
"""The fixed decision rule for graded scores: hallucinated iff faithfulness < 0.5 (the claims
are more likely unsupported than supported). Fixed before any report run, never tuned on it."""


def flagged(outcome: ItemOutcome) -> bool | None:
    """The graph's own decision for one item: hallucinated iff some claim is more likely
    unsupported than supported (support < 0.5), i.e. its explanation lists an unsupported
    claim. None for methods without claims (the baseline): they are judged by their score."""
    claims = (outcome.detail or {}).get("claims")
    if not claims:
        return None
    return any((claim.get("support") or 0.0) < 0.5 for claim in claims)


def binary_figures(rows: list[dict], scores: list[float], flags: list[bool | None] | None = None) -> dict:
    """Faithfulness against hallucination labels: the method's decision rule (`decision`), two
    fixed score rules (< 1, the seed's plain reading; < 0.5, for graded scores), AUROC, and
    the in-sample best threshold (optimistic, for reference only).

    The decision rule, fixed before any report run: the graph flags an item when one of its
    claims counts as unsupported (`flagged`); a method without claims flags a score < 0.5.
    For one-claim answers the two coincide; for a five-sentence summary with one unsupported
    sentence the graph's mean support stays near 0.8, which a score threshold would miss.
    """
    actual = [hallucinated(row) for row in rows]
    threshold, best = stats.best_threshold(scores, actual)
    decisions = [
        (flag if flag is not None else score < GRADED_THRESHOLD)
        for flag, score in zip(flags or [None] * len(scores), scores)
    ]

    def decision(sample):
        return stats.balanced_accuracy([decisions[i] for i in sample], [actual[i] for i in sample])

    def ba_at(cut: float):
        return lambda sample: stats.balanced_accuracy([scores[i] < cut for i in sample], [actual[i] for i in sample])

    def auroc(sample):
        return stats.auroc([scores[i] for i in sample], [not actual[i] for i in sample])

    everything = list(range(len(rows)))
    return {
        "n": len(rows),
        "hallucinated": sum(actual),
        "decision_rule": "a claim with support < 0.5" if any(f is not None for f in (flags or [])) else "score < 0.5",
        "balanced_accuracy_decision": _round(decision(everything)),
        "balanced_accuracy_decision_ci": _interval(decision, len(rows)),
        "balanced_accuracy": _round(ba_at(1.0)(everything)),
        "balanced_accuracy_ci": _interval(ba_at(1.0), len(rows)),
        "balanced_accuracy_05": _round(ba_at(GRADED_THRESHOLD)(everything)),
        "balanced_accuracy_05_ci": _interval(ba_at(GRADED_THRESHOLD), len(rows)),
        "best_threshold": threshold,
        "balanced_accuracy_best": _round(best),
        "auroc": _round(auroc(everything)),
        "auroc_ci": _interval(auroc, len(rows)),
    }


def correlation_figures(rows: list[dict], scores: list[float]) -> dict:
    human = [row["human"]["score_0_1"] for row in rows]

    def spearman(sample):
        return stats.spearman([scores[i] for i in sample], [human[i] for i in sample])

    def pearson(sample):
        return stats.pearson([scores[i] for i in sample], [human[i] for i in sample])

    everything = list(range(len(rows)))
    return {
        "n": len(rows),
        "spearman": _round(spearman(everything)),
        "spearman_ci": _interval(spearman, len(rows)),
        "pearson": _round(pearson(everything)),
        "pearson_ci": _interval(pearson, len(rows)),
    }


def query_pairs(rows: list[dict], scores: list[float]) -> list[tuple[float, float]]:
    """(relevant passage's score, other passage's score) for each MS MARCO query whose two
    passages are both among `rows` (scores[i] belongs to rows[i]), in first-seen order."""
    by_pair: dict[str, dict[bool, float]] = {}
    for row, score in zip(rows, scores):
        by_pair.setdefault(row["meta"]["pair_id"], {})[row["human"]["relevant"] == 1] = score
    return [(pair[True], pair[False]) for pair in by_pair.values() if len(pair) == 2]


def pairwise_figure(pairs: list[tuple[float, float]]) -> tuple[float | None, list[float] | None]:
    """Pairwise accuracy over `pairs` and its bootstrap interval (resampling whole pairs)."""
    def pairwise(sample):
        return stats.pairwise_accuracy([pairs[i] for i in sample])

    return _round(pairwise(range(len(pairs)))), _interval(pairwise, len(pairs))


def ranking_figures(rows: list[dict], scores: list[float]) -> dict:
    """AUROC of relevant vs not, and pairwise accuracy within each query's pair (intervals
    resample whole pairs)."""
    relevant = [row["human"]["relevant"] == 1 for row in rows]
    pairs = query_pairs(rows, scores)
    pairwise, pairwise_ci = pairwise_figure(pairs)

    def auroc(sample):
        chosen = [pairs[i] for i in sample]
        return stats.auroc([s for p in chosen for s in p], [True, False] * len(chosen))

    return {
        "n": len(rows),
        "pairs": len(pairs),
        "auroc": _round(stats.auroc(scores, relevant)),
        "auroc_ci": _interval(auroc, len(pairs)),
        "pairwise_accuracy": pairwise,
        "pairwise_accuracy_ci": pairwise_ci,
    }


FIGURES = {"binary": binary_figures, "correlation": correlation_figures, "ranking": ranking_figures}


def agreement(bench: BenchSet, rows: list[dict], outcomes: list[ItemOutcome]) -> dict:
    """The set's figures over judged items, plus HaluEval's per-stratum breakdown."""
    judged = [(row, o) for row, o in zip(rows, outcomes) if not o.failed and o.score is not None]

    def figures_for(selected: list[tuple[dict, ItemOutcome]]) -> dict:
        chosen_rows = [row for row, _ in selected]
        scores = [float(o.score) for _, o in selected]
        if bench.kind == "binary":
            return binary_figures(chosen_rows, scores, [flagged(o) for _, o in selected])
        return FIGURES[bench.kind](chosen_rows, scores)

    figures = figures_for(judged)
    strata = sorted({row["meta"].get("stratum") for row in rows} - {None})
    if strata:
        figures["strata"] = {
            stratum: figures_for([(row, o) for row, o in judged if row["meta"].get("stratum") == stratum])
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
