"""Two sides' (or two runs') agreement with people on the same items, and its paired difference.

    python -m benchmarks.peers.paired --set halueval bench-out/peers:judgegraph bench-out/peers:ragas
    python -m benchmarks.peers.paired --set wikiqa old-run:judgegraph new-run:judgegraph

Why: the summary (`benchmarks.peers.summary`) gives each side's figure with its own interval;
whether one side is better than another on these items is a *paired* question, and separate
intervals that overlap do not answer it. Each argument is `FOLDER:SIDE`, the first the
baseline; the items file comes from the baseline's folder and every other folder must hold the
same items. The figure is the summary's: HaluEval faithfulness, balanced accuracy at score
< 0.5 against the hallucination label; WikiQA answer relevance and MS MARCO context relevance,
pairwise accuracy. Only units both sides scored `ok` count (items; whole pairs for the pair
sets), and the difference (other − baseline) is resampled over those units together
(`judgegraph.stats.paired_bootstrap_interval`). Also printed: how many units changed their
outcome (an item's decision, a pair's order), to see what a change fixed and broke.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from judgegraph import stats

from benchmarks.datasets import hallucinated
from benchmarks.figures import GRADED_THRESHOLD
from benchmarks.peers.records import PeerItem, read_jsonl

SET_METRICS = {"halueval": "faithfulness", "wikiqa": "answer_relevance", "msmarco": "context_relevance"}
"""The labelled metric of each set: the one the paired figure is about."""


def ok_scores(folder: Path, side: str, set_name: str) -> dict[str, float]:
    """A side's `ok` scores of the set's labelled metric, by item id (a re-judged item's last)."""
    metric = SET_METRICS[set_name]
    latest = {r["item"]: r for r in read_jsonl(folder / f"scores-{side}-{set_name}.jsonl") if r["metric"] == metric}
    return {item: float(r["score"]) for item, r in latest.items() if r["status"] == "ok"}


def units_and_outcome(set_name: str, items: dict[str, PeerItem], scored: Sequence[dict[str, float]]
                      ) -> tuple[list, Callable[[dict[str, float], object], float]]:
    """The units every side scored, and the outcome of one unit under one side's scores: an
    item's decision (flagged as hallucinated: 1, else 0) or a pair's order (1 right, 0.5 tie,
    0 wrong)."""
    if set_name == "halueval":
        units = [item for item in items if all(item in s for s in scored)]
        return units, lambda scores, item: float(scores[item] < GRADED_THRESHOLD)
    by_pair: dict[str, dict[bool, str]] = {}
    for item_id, item in items.items():
        by_pair.setdefault(item["meta"]["pair_id"], {})[item["human"]["relevant"] == 1] = item_id
    units = [(pair[True], pair[False]) for pair in by_pair.values()
             if len(pair) == 2 and all(pair[True] in s and pair[False] in s for s in scored)]

    def order(scores: dict[str, float], unit) -> float:
        relevant, other = scores[unit[0]], scores[unit[1]]
        return 1.0 if relevant > other else 0.5 if relevant == other else 0.0

    return units, order


def figure(set_name: str, items: dict[str, PeerItem], units: list, scores: dict[str, float],
           sample: Sequence[int]) -> float | None:
    """The set's figure over `sample` (indices into `units`)."""
    if set_name == "halueval":
        chosen = [units[i] for i in sample]
        return stats.balanced_accuracy([scores[i] < GRADED_THRESHOLD for i in chosen],
                                       [hallucinated(items[i]) for i in chosen])  # type: ignore[arg-type]
    return stats.pairwise_accuracy([(scores[units[i][0]], scores[units[i][1]]) for i in sample])


def compare(set_name: str, items: dict[str, PeerItem], baseline: dict[str, float], other: dict[str, float]) -> dict:
    """Both figures on the units both scored, the paired interval of other − baseline, and the
    number of units whose outcome changed."""
    units, outcome = units_and_outcome(set_name, items, [baseline, other])
    everything = range(len(units))
    interval = stats.paired_bootstrap_interval(
        lambda sample: figure(set_name, items, units, baseline, sample),
        lambda sample: figure(set_name, items, units, other, sample), len(units))
    return {
        "units": len(units),
        "baseline": figure(set_name, items, units, baseline, everything) if units else None,
        "other": figure(set_name, items, units, other, everything) if units else None,
        "difference_ci": interval,
        "changed": sum(outcome(baseline, unit) != outcome(other, unit) for unit in units),
    }


def _parse(argument: str) -> tuple[Path, str]:
    folder, _, side = argument.rpartition(":")
    if not folder or not side:
        raise argparse.ArgumentTypeError(f"{argument!r}: expected FOLDER:SIDE")
    return Path(folder), side


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SET_METRICS), required=True)
    parser.add_argument("runs", nargs="+", type=_parse, help="FOLDER:SIDE, the baseline first")
    args = parser.parse_args(argv)
    if len(args.runs) < 2:
        parser.error("give the baseline and at least one other FOLDER:SIDE")
    base_folder, base_side = args.runs[0]
    items = {item["id"]: item for item in read_jsonl(base_folder / f"items-{args.set}.jsonl")}
    if not items:
        parser.error(f"no items-{args.set}.jsonl in {base_folder}")
    baseline = ok_scores(base_folder, base_side, args.set)
    unit = "rows" if args.set == "halueval" else "pairs"
    name = "BA at < 0.5" if args.set == "halueval" else "pairwise accuracy"
    for folder, side in args.runs[1:]:
        foreign = {item["id"] for item in read_jsonl(folder / f"items-{args.set}.jsonl")} - set(items)
        if foreign:
            parser.error(f"{folder} holds items the baseline's folder does not ({len(foreign)}, e.g. {sorted(foreign)[0]})")
        result = compare(args.set, items, baseline, ok_scores(folder, side, args.set))
        if not result["units"]:
            print(f"{folder}:{side}: no {unit} that both scored")
            continue
        low, high = result["difference_ci"] or (float("nan"), float("nan"))
        print(f"{args.set} {SET_METRICS[args.set]}, {result['units']} {unit} both scored, {name}: "
              f"{base_folder}:{base_side} {result['baseline']:.2f}, {folder}:{side} {result['other']:.2f}; "
              f"difference {result['other'] - result['baseline']:+.2f} [{low:+.2f}, {high:+.2f}]; "
              f"{result['changed']} {unit} changed outcome")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
