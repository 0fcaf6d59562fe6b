"""Two runs of `benchmarks.simulated_agreement` paired row by row: what a change of rules did.

    python -m benchmarks.simulated_paired BASE_DIR CANDIDATE_DIR [--sets ...] [--rows 300]

Why: `simulated_agreement` sets judgegraph beside its judge within one run; a change to a profile
or a claim check is decided by the same rows judged by both versions against the same simulated
judge (its draws are seeded per row and step, so both runs met identical verdicts). This reads the
two runs' per-item files (`items-<set>-<part>-a<a>-lp<yes|no>.jsonl`), reads judgegraph's decision
on each row with the runner's own rule (`simulated_agreement.ours_good`), and prints, per set,
accuracy and mode, balanced accuracy with people on each side, the paired difference with its 95 %
bootstrap interval (1,000 resamples of the rows, seed 941) and the rows the candidate fixed and
broke. Rows failed on either side are left out and counted. No judge is asked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judgegraph.stats import resampled

from benchmarks.judging import _finished
from benchmarks.simulated_agreement import DEFAULT_OUT_DIR, ours_good
from benchmarks.simulated_sets import SIMULATED_SETS, SetPaths
from benchmarks.datasets import DEFAULT_DATA_ROOT
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.regression import DEFAULT_UNSEEN_DATA


def paired_line(name: str, stem: str, cases, base_dir: Path, candidate_dir: Path) -> str | None:
    base, candidate = _finished(base_dir / f"items-{stem}.jsonl"), _finished(candidate_dir / f"items-{stem}.jsonl")
    if not base or not candidate:
        return None
    bench = SIMULATED_SETS[name]
    rows = [(case, base[case.id], candidate[case.id]) for case in cases
            if case.id in base and case.id in candidate
            and not base[case.id].failed and base[case.id].score is not None
            and not candidate[case.id].failed and candidate[case.id].score is not None]
    people = [case.good for case, _, _ in rows]
    said_base = [ours_good(bench, outcome) for _, outcome, _ in rows]
    said_candidate = [ours_good(bench, outcome) for _, _, outcome in rows]
    n = len(rows)
    before = lambda drawn: resampled.balanced_accuracy_over(drawn, said_base, people)  # noqa: E731
    after = lambda drawn: resampled.balanced_accuracy_over(drawn, said_candidate, people)  # noqa: E731
    low, high = resampled.paired_interval_over(before, after, n) or (float("nan"), float("nan"))
    fixed = sum(b != p and c == p for b, c, p in zip(said_base, said_candidate, people))
    broke = sum(b == p and c != p for b, c, p in zip(said_base, said_candidate, people))
    b_point, c_point = resampled.point_value(before, n), resampled.point_value(after, n)
    return (f"| {name} | {stem.rsplit('-a', 1)[1]} | {n} ({len(cases) - n}) | {b_point:.3f} | {c_point:.3f} | "
            f"{c_point - b_point:+.3f} [{low:+.3f}, {high:+.3f}] | {fixed} | {broke} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.simulated_paired", description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="the base run's --out-dir")
    parser.add_argument("candidate", type=Path, help="the candidate run's --out-dir (default: bench-out/simulated)",
                        nargs="?", default=DEFAULT_OUT_DIR)
    parser.add_argument("--sets", default=",".join(SIMULATED_SETS))
    parser.add_argument("--rows", type=int, default=300, help="the --rows both runs used (default 300)")
    parser.add_argument("--part", default="report")
    args = parser.parse_args(argv)
    paths = SetPaths(DEFAULT_DATA_ROOT, DEFAULT_UNSEEN_DATA, DEFAULT_MIRROR_ROOT)
    print("| set | a, log-probabilities | rows (left out) | base BA | candidate BA | candidate - base [95 %] | fixed | broke |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        if name not in SIMULATED_SETS:
            print(f"benchmarks: unknown set {name!r}", file=sys.stderr)
            return 2
        cases = SIMULATED_SETS[name].load(args.rows, args.part, paths)
        stems = sorted({path.name.removeprefix("items-").removesuffix(".jsonl")
                        for path in args.candidate.glob(f"items-{name}-{args.part}-a*.jsonl")}, reverse=True)
        for stem in stems:
            line = paired_line(name, stem, cases, args.base, args.candidate)
            if line:
                print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
