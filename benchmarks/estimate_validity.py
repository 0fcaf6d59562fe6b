"""Are the label-corrected intervals valid in every corner, and narrower than labels alone? Measured by drawing.

    python -m benchmarks.estimate_validity --study [--draws 1000] [--sizes 10,20,50,100] [--json OUT]
    python -m benchmarks.estimate_validity ITEMS... [--data-root ../shared/bench-data]   # recorded runs
    python -m benchmarks.estimate_validity --synthetic                                    # made-up only

`--study` is the coverage study of docs/benchmarks.md ("Label-corrected estimates: every
corner"), on people's labels read at run time: HaluEval's unseen rows (`../bench-data-unseen`),
FaithBench and MS MARCO (`../shared/bench-data`), plus a synthetic batch with a 5 % failure rate
and a finite 40-item batch. The judge's scores: FaithBench's recorded `hhem-2.1` detector score
(shipped with the release, `meta.detector_predictions_1_means_consistent`); for HaluEval and
MS MARCO, where no recorded run is on disk, a simulated judge of the accuracy measured on them
before (`simulated_judge`: the label blurred by uniform noise, correlation printed). Items files
of `benchmarks.agreement` (`items-<set>-<part>-<method>.jsonl`, one `{"id", "score", "failed"}`
per line) can be given instead, joined by id with `<set>/sample.jsonl`.

For each population, label budget n (at most its size) and design, `--draws` label subsets are
drawn and the labels-only and label-corrected 95 % intervals computed by
`judgegraph.estimates.ppi`, as `judgegraph estimate` computes them. Designs:

- **uniform**: n rows drawn at random without replacement (`label`'s default);
- **active**: the first n of a successive draw weighted by the judge's uncertainty
  (`estimates.active_draw`, exactly `label --design active`'s draw), estimated by `active_mean`;
- **stratified**: the judge's score cut at its tertiles, n allocated in proportion to
  N_h sqrt(s_h (1 - s_h)), at least 2 a stratum.

`--study` also measures the paired difference `compare` corrects: each population's "after" run
is the same rows with REGRESSION_SHARE of the items labelled 1 turned to 0 (a true drop; the
after-judge re-scores those items as `simulated_judge` does), and the interval must cover the
true mean difference. Uniform: the same n items labelled in both runs, PPI++ on the per-item
differences (scale -1..1). Active: each run labelled on its own active draw and estimated by
`estimate`, the two estimates subtracted with their variances added (`difference_of`; `compare`
refuses active labels files and says to estimate each run).

Per cell: coverage of the truth by each interval (a valid 95 % interval: about 95 %), mean
widths, their ratio (below 1 where the judge helps), how many intervals reach outside the scale
and how many are not finite (both must be 0).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from judgegraph.estimates.active_draw import draw_probabilities, successive_order, uncertainty_weights
from judgegraph.estimates.difference import difference_of
from judgegraph.estimates.ppi import active_mean, labels_only, ppi_mean, stratified_means
from judgegraph.schemas.labels_file import label_value

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_ROOT = ROOT.parent / "shared" / "bench-data"
UNSEEN_ROOT = ROOT.parent / "bench-data-unseen"
ITEMS_NAME = re.compile(r"^items-(?P<set>.+?)-(?P<part>tune|report|all|[a-z]+)-(?P<method>[a-z-]+)\.jsonl$")
DESIGNS = ("uniform", "active", "stratified")
SCALE = (0.0, 1.0)
DIFFERENCE_SCALE = (-1.0, 1.0)
REGRESSION_SHARE = 0.10
"""The share of an after-run's items truly worse (a label 1 turned to 0), as in issue 55."""
HALUEVAL_NOISE = 0.6
"""The simulated HaluEval judge: correlation about 0.75 with the labels, as the recorded run of
issue #41 measured (docs/benchmarks.md, "Label-corrected estimates: validity")."""
MSMARCO_NOISE = 0.95
"""The simulated MS MARCO judge: near chance (the recorded run measured a correlation of 0.06)."""


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
    quantity: str
    design: str
    n: int
    draws: int
    coverage_corrected: float
    coverage_labels_only: float
    width_corrected: float
    width_labels_only: float
    width_ratio: float
    outside_scale: int
    not_finite: int


def _labels_of(sample: Path) -> dict[str, tuple[float, dict]]:
    out = {}
    for line in sample.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            value = label_value(row.get("human"))
            if value is not None:
                out[str(row["id"])] = (value, row)
    return out


def read_population(items_path: Path, data_root: Path) -> Population:
    """The judged and labelled rows of one `benchmarks.agreement` items file."""
    match = ITEMS_NAME.match(items_path.name)
    if match is None:
        raise SystemExit(f"{items_path.name}: not an items-<set>-<part>-<method>.jsonl file")
    human = _labels_of(data_root / match["set"] / "sample.jsonl")
    judge, labels = [], []
    for line in items_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        outcome = json.loads(line)
        if outcome.get("failed") or outcome.get("score") is None or str(outcome["id"]) not in human:
            continue
        judge.append(float(outcome["score"]))
        labels.append(human[str(outcome["id"])][0])
    return Population(f"{match['set']} ({match['part']}, {match['method']})", np.array(judge), np.array(labels))


def simulated_judge(labels: np.ndarray, noise: float, rng: np.random.Generator) -> np.ndarray:
    """A judge score: the label blurred by `noise` (0: the label itself; 1: unrelated noise), 0..1."""
    return np.clip(np.round((1 - noise) * labels + noise * rng.uniform(size=len(labels)), 2), 0, 1)


def people_populations(data_root: Path, unseen_root: Path) -> list[Population]:
    """HaluEval's unseen rows and MS MARCO with a simulated judge, FaithBench with its recorded
    hhem-2.1 detector score; the people's labels as `calibrate` reads them."""
    rng = np.random.default_rng(941)
    out = []
    halueval = _labels_of(unseen_root / "halueval_qa" / "sample.jsonl")
    y = np.array([value for value, _ in halueval.values()])
    out.append(Population("HaluEval unseen, simulated judge", simulated_judge(y, HALUEVAL_NOISE, rng), y))
    faithbench = _labels_of(data_root / "faithbench" / "sample.jsonl")
    pairs = [(value, row["meta"]["detector_predictions_1_means_consistent"].get("hhem-2.1"))
             for value, row in faithbench.values()]
    pairs = [(value, score) for value, score in pairs if isinstance(score, (int, float))]
    out.append(Population("FaithBench, recorded hhem-2.1", np.array([s for _, s in pairs], dtype=float),
                          np.array([v for v, _ in pairs])))
    msmarco = _labels_of(data_root / "msmarco_ctxrel" / "sample.jsonl")
    y = np.array([value for value, _ in msmarco.values()])
    out.append(Population("MS MARCO, simulated judge", simulated_judge(y, MSMARCO_NOISE, rng), y))
    return out


def synthetic_population(size: int = 1000, judge_noise: float = 0.5, share: float = 0.3, seed: int = 0,
                         name: str = "synthetic") -> Population:
    """Binary labels with the given share of 1s and a `simulated_judge` of them."""
    rng = np.random.default_rng(seed)
    labels = (rng.uniform(size=size) < share).astype(float)
    return Population(name, simulated_judge(labels, judge_noise, rng), labels)


def corner_populations() -> list[Population]:
    return [synthetic_population(1000, 0.5, share=0.95, seed=2, name="synthetic, 5 % failures"),
            synthetic_population(40, 0.5, share=0.8, seed=3, name="synthetic, a 40-item batch")]


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


def active_draw(judge: np.ndarray, n: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """The first n rows of `label --design active`'s draw, and their q_k."""
    weights = uncertainty_weights(judge.tolist(), SCALE)
    order = successive_order(weights, rng)
    q = draw_probabilities([weights[i] for i in order])
    return np.asarray(order[:n], dtype=int), np.asarray(q[:n])


def _estimates(design: str, population: Population, n: int, rng: np.random.Generator, py_rng: random.Random,
               share: np.ndarray | None, strata: np.ndarray):
    f, y = population.judge, population.labels
    if design == "uniform":
        chosen = rng.choice(len(f), n, replace=False)
        return labels_only(y[chosen], len(f), SCALE), ppi_mean(y[chosen], f[chosen], f, scale=SCALE)
    if design == "active":
        chosen, q = active_draw(f, n, py_rng)
        return (active_mean(y[chosen], f[chosen], f, q, lam=0.0, scale=SCALE),
                active_mean(y[chosen], f[chosen], f, q, scale=SCALE))
    chosen = np.concatenate([rng.choice(np.flatnonzero(strata == h), k, replace=False) for h, k in enumerate(share)])
    return stratified_means(y[chosen], f[chosen], strata[chosen], f, strata, SCALE)


def _cell(name: str, quantity: str, design: str, n: int, truth: float, scale: tuple[float, float],
          results: list) -> Cell:
    covered = covered_only = not_finite = outside = 0
    widths, widths_only = [], []
    for only, corrected in results:
        ends = (corrected.low, corrected.high, only.low, only.high)
        if not all(math.isfinite(v) for v in ends):
            not_finite += 1
            continue
        outside += any(v < scale[0] - 1e-12 or v > scale[1] + 1e-12 for v in ends)
        covered += corrected.low - 1e-12 <= truth <= corrected.high + 1e-12
        covered_only += only.low - 1e-12 <= truth <= only.high + 1e-12
        widths.append(corrected.high - corrected.low)
        widths_only.append(only.high - only.low)
    draws = len(results)
    width, width_only = float(np.mean(widths)), float(np.mean(widths_only))
    return Cell(name, quantity, design, n, draws, covered / draws, covered_only / draws, width, width_only,
                width / width_only if width_only > 0 else float("nan"), outside, not_finite)


def draw_cells(population: Population, sizes: list[int], draws: int, seed: int,
               designs: tuple[str, ...] = DESIGNS) -> list[Cell]:
    rng, py_rng = np.random.default_rng(seed), random.Random(seed)
    strata = strata_of(population.judge)
    cells = []
    for design in designs:
        for n in sizes:
            if n > len(population.labels) or (design == "stratified" and n < 2 * (int(strata.max()) + 1)):
                continue
            share = allocation(population.judge, strata, n) if design == "stratified" else None
            results = [_estimates(design, population, n, rng, py_rng, share, strata) for _ in range(draws)]
            cells.append(_cell(population.name, "mean", design, n, population.truth, SCALE, results))
    return cells


def after_run(population: Population, seed: int) -> Population:
    """The same rows with REGRESSION_SHARE of them truly worse (a 1 label turned to 0), the judge
    re-scoring those as `simulated_judge` with noise 0.5 does."""
    rng = np.random.default_rng(seed)
    ones = np.flatnonzero(population.labels == 1)
    worse = rng.choice(ones, min(len(ones), round(REGRESSION_SHARE * len(population.labels))), replace=False)
    labels, judge = population.labels.copy(), population.judge.copy()
    labels[worse] = 0.0
    judge[worse] = simulated_judge(labels[worse], 0.5, rng)
    return Population(population.name, judge, labels)


def paired_cells(before: Population, sizes: list[int], draws: int, seed: int) -> list[Cell]:
    after = after_run(before, seed)
    truth = float((after.labels - before.labels).mean())
    d_y, d_f = after.labels - before.labels, after.judge - before.judge
    rng, py_rng = np.random.default_rng(seed), random.Random(seed)
    cells = []
    for n in sizes:
        if n > len(d_y):
            continue
        results = []
        for _ in range(draws):
            chosen = rng.choice(len(d_y), n, replace=False)
            results.append((labels_only(d_y[chosen], len(d_y), DIFFERENCE_SCALE),
                            ppi_mean(d_y[chosen], d_f[chosen], d_f, scale=DIFFERENCE_SCALE)))
        cells.append(_cell(before.name, "difference", "uniform", n, truth, DIFFERENCE_SCALE, results))
        results = []
        for _ in range(draws):
            run_estimates = []
            for run in (before, after):
                chosen, q = active_draw(run.judge, n, py_rng)
                run_estimates.append((active_mean(run.labels[chosen], run.judge[chosen], run.judge, q, lam=0.0,
                                                  scale=SCALE),
                                      active_mean(run.labels[chosen], run.judge[chosen], run.judge, q, scale=SCALE)))
            (only_b, corr_b), (only_a, corr_a) = run_estimates
            results.append((difference_of(only_a, only_b, DIFFERENCE_SCALE),
                            difference_of(corr_a, corr_b, DIFFERENCE_SCALE)))
        cells.append(_cell(before.name, "difference", "active", n, truth, DIFFERENCE_SCALE, results))
    return cells


def print_table(cells: list[Cell], populations: list[Population]) -> None:
    for population in populations:
        correlation = (f", corr {np.corrcoef(population.judge, population.labels)[0, 1]:.2f}"
                       if population.judge.std() > 0 and population.labels.std() > 0 else "")
        print(f"{population.name}: {len(population.labels)} rows, label mean {population.truth:.3f}, "
              f"judge mean {population.judge.mean():.3f}{correlation}")
    print(f"{'set':34} {'quantity':10} {'design':10} {'n':>4} {'cover corr':>10} {'cover lab':>10} "
          f"{'width corr':>10} {'width lab':>10} {'ratio':>6} {'out':>4} {'bad':>4}")
    for cell in cells:
        print(f"{cell.set[:34]:34} {cell.quantity:10} {cell.design:10} {cell.n:>4} {cell.coverage_corrected:>10.3f} "
              f"{cell.coverage_labels_only:>10.3f} {cell.width_corrected:>10.3f} {cell.width_labels_only:>10.3f} "
              f"{cell.width_ratio:>6.2f} {cell.outside_scale:>4} {cell.not_finite:>4}")
    worst = min((min(c.coverage_corrected, c.coverage_labels_only) for c in cells), default=float("nan"))
    print(f"lowest coverage in any cell: {worst:.3f}; intervals outside the scale: "
          f"{sum(c.outside_scale for c in cells)}; not finite: {sum(c.not_finite for c in cells)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", nargs="*", type=Path, help="items-<set>-<part>-<method>.jsonl files")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--unseen-root", type=Path, default=UNSEEN_ROOT)
    parser.add_argument("--study", action="store_true", help="the coverage study of docs/benchmarks.md")
    parser.add_argument("--synthetic", action="store_true", help="also draw from made-up populations")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--sizes", default="10,20,50,100")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the cells as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    populations = [read_population(path, args.data_root) for path in args.items]
    if args.study:
        populations += people_populations(args.data_root, args.unseen_root) + corner_populations()
    if args.synthetic or not populations:
        populations += [synthetic_population(1000, 0.3, name="synthetic, good judge"),
                        synthetic_population(1000, 1.0, seed=1, name="synthetic, judge at chance")]
    def sizes_for(population: Population) -> list[int]:
        """The budgets, and every row of a batch smaller than the largest (labelling it all)."""
        rows = len(population.labels)
        return sorted({*(n for n in sizes if n <= rows), *([rows] if rows < max(sizes) else [])})

    cells = [cell for population in populations
             for cell in draw_cells(population, sizes_for(population), args.draws, args.seed)]
    if args.study:
        cells += [cell for population in populations
                  for cell in paired_cells(population, sizes_for(population), args.draws, args.seed)]
    print_table(cells, populations)
    if args.json:
        args.json.write_text(json.dumps([asdict(cell) for cell in cells], indent=2), encoding="utf-8")
    return 0 if all(cell.not_finite == 0 and cell.outside_scale == 0 for cell in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
