"""Which items flipped between two runs: `python -m benchmarks.compare A.jsonl B.jsonl`.

A and B are per-item files written by `benchmarks.agreement` (`items-<set>-<part>-<method>.jsonl`):
two methods on the same run, or the same method before and after a change. For each item in
both, the human label is looked up in the sample (by id, from `../shared/bench-data`), each
score is turned into a decision (binary sets: hallucinated iff score < `--threshold`; MS MARCO:
the pair ordered right), and the items whose decision changed are listed: fixed by B, broken
by B. Agreement figures alone hide this; a change that fixes 6 items and breaks 5 is noise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks.datasets import (
    DEFAULT_DATA_ROOT,
    SETS,
    hallucinated,
    load_rows,
    sample_path,
)


def _outcomes(path: Path) -> dict[str, dict]:
    records = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                records[record["id"]] = record
    return records


def _set_of(item_id: str) -> str:
    name = item_id.split(":", 1)[0]
    if name not in SETS:
        raise ValueError(f"cannot tell the set of item {item_id!r}")
    return name


def binary_flips(a: dict, b: dict, rows: dict[str, dict], threshold: float) -> tuple[list, list]:
    fixed, broken = [], []
    for item_id in sorted(set(a) & set(b)):
        sa, sb = a[item_id].get("score"), b[item_id].get("score")
        if sa is None or sb is None:
            continue
        truth = hallucinated(rows[item_id])
        right_a, right_b = (sa < threshold) == truth, (sb < threshold) == truth
        if right_a != right_b:
            (fixed if right_b else broken).append((item_id, sa, sb, "hallucinated" if truth else "faithful"))
    return fixed, broken


def pair_flips(a: dict, b: dict, rows: dict[str, dict]) -> tuple[list, list]:
    def order(records: dict) -> dict[str, float]:
        pairs: dict[str, dict[bool, float]] = {}
        for item_id, record in records.items():
            row = rows[item_id]
            if record.get("score") is not None:
                pairs.setdefault(row["meta"]["pair_id"], {})[row["human"]["relevant"] == 1] = record["score"]
        return {pid: (1.0 if p[True] > p[False] else 0.5 if p[True] == p[False] else 0.0)
                for pid, p in pairs.items() if len(p) == 2}

    oa, ob = order(a), order(b)
    fixed = [(pid, oa[pid], ob[pid], "pair") for pid in sorted(set(oa) & set(ob)) if ob[pid] > oa[pid]]
    broken = [(pid, oa[pid], ob[pid], "pair") for pid in sorted(set(oa) & set(ob)) if ob[pid] < oa[pid]]
    return fixed, broken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--threshold", type=float, default=0.5, help="binary sets: hallucinated iff score < this")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args(argv)
    a, b = _outcomes(args.a), _outcomes(args.b)
    common = set(a) & set(b)
    if not common:
        print("compare: the two files share no item id", file=sys.stderr)
        return 2
    name = _set_of(next(iter(common)))
    rows = {row["id"]: row for row in load_rows(sample_path(name, args.data_root))}
    if SETS[name].kind == "binary":
        fixed, broken = binary_flips(a, b, rows, args.threshold)
    elif SETS[name].kind == "ranking":
        fixed, broken = pair_flips(a, b, rows)
    else:
        deltas = sorted(((abs(b[i]["score"] - a[i]["score"]), i) for i in common
                         if a[i].get("score") is not None and b[i].get("score") is not None), reverse=True)
        print(f"{name}: {len(common)} items in both; largest score changes (B - A):")
        for _, item_id in deltas[:15]:
            human = rows[item_id]["human"]["score_0_1"]
            print(f"  {item_id}: {a[item_id]['score']:.2f} -> {b[item_id]['score']:.2f} (human {human:.2f})")
        return 0
    print(f"{name}: {len(common)} items in both; B fixes {len(fixed)}, breaks {len(broken)}")
    for title, items in (("fixed by B", fixed), ("broken by B", broken)):
        for item_id, sa, sb, truth in items:
            print(f"  {title}: {item_id} ({truth}): {sa:.2f} -> {sb:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
