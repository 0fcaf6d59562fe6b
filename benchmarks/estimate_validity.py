"""Are the label-corrected intervals valid, and narrower than labels alone? Measured by drawing.

    python -m benchmarks.estimate_validity bench-out/items-halueval_qa-report-graph.jsonl \\
        bench-out/items-faithbench-report-graph.jsonl bench-out/items-msmarco_ctxrel-report-graph.jsonl \\
        [--data-root ../shared/bench-data] [--draws 1000] [--sizes 20,50,100] [--seed 0] [--json OUT]
    python -m benchmarks.estimate_validity --synthetic      # a made-up population, no files

Each items file is a per-item output of `benchmarks.agreement` (`items-<set>-<part>-<method>.jsonl`,
one `{"id", "score", "failed", ...}` per line: `benchmarks.judging.ItemOutcome`); the human
labels of the same rows are read at run time from the set's sample under `--data-root`
(`<set>/sample.jsonl`, joined by id, the label read as `calibrate` reads it: higher = better).
Failed items are left out. The rows judged and labelled are the population: its label mean is
the truth every interval is checked against.

For each label budget n and each design, `--draws` random label subsets are drawn; for each
the labels-only and the label-corrected (PPI++) 95 % intervals are computed by
`judgegraph.estimates.ppi`, exactly as `judgegraph estimate` computes them, with the judge's
scores of all rows as the unlabelled side. Designs:

- **uniform**: n rows drawn at random;
- **stratified**: the rows cut into strata by the judge's score (its tertiles; fewer strata
  when the scores take fewer values), and n split across them in proportion to
  N_h * sqrt(s_h (1 - s_h)), s_h the stratum's mean judge score clipped to [0.05, 0.95]
  (more labels where the judge is unsure), at least 2 per stratum.

The table gives, per set, design and n: the coverage of the label mean by each interval (a
valid 95 % interval covers it in about 95 % of the draws), the mean widths, the width ratio
corrected / labels only (below 1 where the judge helps), and how many intervals were not
finite (must be 0).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from judgegraph.estimates.ppi import labels_only, ppi_mean, stratified_means
from judgegraph.schemas.labels_file import label_value

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_ROOT = ROOT.parent / "shared" / "bench-data"
ITEMS_NAME = re.compile(r"^items-(?P<set>.+?)-(?P<part>tune|report|all|[a-z]+)-(?P<method>[a-z-]+)\.jsonl$")
DESIGNS = ("uniform", "stratified")


@dataclass(frozen=True)
class Population:
    name: str
    judge: np.ndarray
    labels: np.ndarray

    @property
    def truth(self) -> float:
        return float(self.labels.mean())


@dataclass
class Cell:
    set: str
    design: str
    n: int
    draws: int
    coverage_corrected: float
    coverage_labels_only: float
    width_corrected: float
    width_labels_only: float
    width_ratio: float
    not_finite: int


def read_population(items_path: Path, data_root: Path) -> Population:
    """The judged and labelled rows of one `benchmarks.agreement` items file."""
    match = ITEMS_NAME.match(items_path.name)
    if match is None:
        raise SystemExit(f"{items_path.name}: not an items-<set>-<part>-<method>.jsonl file")
    sample = data_root / match["set"] / "sample.jsonl"
    human = {}
    for line in sample.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            value = label_value(row.get("human"))
            if value is not None:
                human[str(row["id"])] = value
    judge, labels = [], []
    for line in items_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        outcome = json.loads(line)
        if outcome.get("failed") or outcome.get("score") is None or str(outcome["id"]) not in human:
            continue
        judge.append(float(outcome["score"]))
        labels.append(human[str(outcome["id"])])
    return Population(f"{match['set']} ({match['part']}, {match['method']})", np.array(judge), np.array(labels))


def synthetic_population(size: int = 1000, judge_noise: float = 0.5, share: float = 0.3, seed: int = 0,
                         name: str = "synthetic") -> Population:
    """Binary labels with the given share of 1s, and a judge score that is the label blurred by
    `judge_noise` (0: the label itself; 1: noise unrelated to it), clipped to 0..1."""
    rng = np.random.default_rng(seed)
    labels = (rng.uniform(size=size) < share).astype(float)
    judge = np.clip(np.round((1 - judge_noise) * labels + judge_noise * rng.uniform(size=size), 2), 0, 1)
    return Population(name, judge, labels)


def strata_of(judge: np.ndarray) -> np.ndarray:
    """Each row's stratum: the judge's score cut at its tertiles (fewer strata for fewer values)."""
    cuts = np.unique(np.quantile(judge, [1 / 3, 2 / 3]))
    strata = np.searchsorted(cuts, judge, side="right")
    _, compact = np.unique(strata, return_inverse=True)
    return compact


def allocation(judge: np.ndarray, strata: np.ndarray, n: int) -> np.ndarray:
    """Labels per stratum: in proportion to N_h * sqrt(s (1 - s)), at least 2, at most N_h."""
    count = int(strata.max()) + 1
    sizes = np.bincount(strata, minlength=count)
    unsure = np.array([math.sqrt(min(max(judge[strata == h].mean(), 0.05), 0.95) *
                                 (1 - min(max(judge[strata == h].mean(), 0.05), 0.95))) for h in range(count)])
    weights = sizes * unsure
    share = np.maximum(2, np.floor(n * weights / weights.sum())).astype(int)
    share = np.minimum(share, sizes)
    while share.sum() < n and (share < sizes).any():
        room = np.where(share < sizes, weights / np.maximum(share, 1), -1)
        share[int(np.argmax(room))] += 1
    while share.sum() > n:
        over = np.where(share > 2, share, -1)
        share[int(np.argmax(over))] -= 1
    return share


def draw_cells(population: Population, sizes: list[int], draws: int, seed: int) -> list[Cell]:
    rng = np.random.default_rng(seed)
    f, y, truth = population.judge, population.labels, population.truth
    strata = strata_of(f)
    cells = []
    for design in DESIGNS:
        for n in sizes:
            if n > len(f) // 2:
                continue  # a label budget of most of the rows says nothing about sampling
            covered = covered_only = not_finite = 0
            widths, widths_only = [], []
            share = allocation(f, strata, n) if design == "stratified" else None
            for _ in range(draws):
                if share is None:
                    chosen = rng.choice(len(f), n, replace=False)
                    only, corrected = labels_only(y[chosen]), ppi_mean(y[chosen], f[chosen], f)
                else:
                    chosen = np.concatenate([rng.choice(np.flatnonzero(strata == h), k, replace=False)
                                             for h, k in enumerate(share)])
                    only, corrected = stratified_means(y[chosen], f[chosen], strata[chosen], f, strata)
                if not all(math.isfinite(v) for v in (corrected.low, corrected.high, only.low, only.high)):
                    not_finite += 1
                    continue
                covered += corrected.low <= truth <= corrected.high
                covered_only += only.low <= truth <= only.high
                widths.append(corrected.high - corrected.low)
                widths_only.append(only.high - only.low)
            width, width_only = float(np.mean(widths)), float(np.mean(widths_only))
            cells.append(Cell(population.name, design, n, draws, covered / draws, covered_only / draws, width,
                              width_only, width / width_only if width_only > 0 else float("nan"), not_finite))
    return cells


def print_table(cells: list[Cell], populations: list[Population]) -> None:
    for population in populations:
        print(f"{population.name}: {len(population.labels)} rows, label mean {population.truth:.3f}, "
              f"judge mean {population.judge.mean():.3f}, corr {np.corrcoef(population.judge, population.labels)[0, 1]:.2f}"
              if population.judge.std() > 0 and population.labels.std() > 0 else
              f"{population.name}: {len(population.labels)} rows, label mean {population.truth:.3f}")
    print(f"{'set':40} {'design':10} {'n':>4} {'cover corr':>10} {'cover lab':>10} {'width corr':>10} "
          f"{'width lab':>10} {'ratio':>6} {'bad':>4}")
    for cell in cells:
        print(f"{cell.set[:40]:40} {cell.design:10} {cell.n:>4} {cell.coverage_corrected:>10.3f} "
              f"{cell.coverage_labels_only:>10.3f} {cell.width_corrected:>10.3f} {cell.width_labels_only:>10.3f} "
              f"{cell.width_ratio:>6.2f} {cell.not_finite:>4}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", nargs="*", type=Path, help="items-<set>-<part>-<method>.jsonl files")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--synthetic", action="store_true", help="also draw from made-up populations")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--sizes", default="20,50,100")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the cells as JSON here")
    args = parser.parse_args(argv)
    populations = [read_population(path, args.data_root) for path in args.items]
    if args.synthetic or not populations:
        populations += [synthetic_population(1000, 0.3, name="synthetic, good judge"),
                        synthetic_population(1000, 1.0, seed=1, name="synthetic, judge at chance")]
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    cells = [cell for population in populations for cell in draw_cells(population, sizes, args.draws, args.seed)]
    print_table(cells, populations)
    if args.json:
        args.json.write_text(json.dumps([asdict(cell) for cell in cells], indent=2), encoding="utf-8")
    return 0 if all(cell.not_finite == 0 for cell in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
