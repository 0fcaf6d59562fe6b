"""judgegraph's agreement with people next to its judge's own, for simulated judges of known quality.

    python -m benchmarks.simulated_agreement                      # every set, a = 1.0,0.9,0.8,0.7, both modes
    python -m benchmarks.simulated_agreement --sets halueval_unseen,nli --accuracies 0.9 \\
        --logprobs yes --rows 40 --out-dir bench-out/simulated
    nohup python -m benchmarks.simulated_agreement --rows 300 > bench-out/simulated.log 2>&1 &
                                                                  # in the background; run again to resume

Why (issue 53): every rule judgegraph applies after the judge's verdict was set on the embedded
1.5B judge; this says what they do to a better one. For each set, accuracy a and mode (with
or without token log-probabilities), it serves `benchmarks.simulated_judge` on 127.0.0.1 and
judges the set's rows with the real graph over real HTTP, under the default profile (the
judge's name, "simulated-judge", was fitted for nothing), with embeddings as a default run
has them. No local model runs.

The table, one line per set, a and mode, on the same rows:
- `judge`: the judge's own item-level agreement with people, read from the labels it wrote
  (`benchmarks.simulated_sets.judge_says_good`: faithful iff every claim verdict is
  "supported", relevant iff "yes" / "direct", similar iff its rating is 3 or more);
- `ours`: judgegraph's, from its outcome: for HaluEval and FaithBench their benchmark's rule
  (flagged iff a claim has support < 0.5, `benchmarks.figures.flagged`), for every other set
  good iff the score >= 0.5;
- both as balanced accuracy (95 % bootstrap interval over rows, seed 941) and plain accuracy,
  the paired difference ours - judge in balanced accuracy with its interval, and the rows where
  judgegraph disagreed with a right judge (`undid`) or agreed with people against a wrong one
  (`fixed`), each split by the rule that moved it (`rule_of`: the number rule, the own
  answer, grounding, P(supported) alone, else how the score is read); `asked` is the share of rows where the graph asked the judge that step at all
  (STS-B's similarity comes from embeddings by default: the judge is never asked);
- `good: mean (min)`: judgegraph's mean and lowest score on the rows people call good; the
  multilingual sets (NLI pairs, paraphrase probes) also get them per language in a second table.

Failed items are left out of the figures and counted (`failed`). Per-item outcomes go to
`--out-dir` (default `bench-out/simulated/`, git-ignored) as `items-<set>-<part>-a<a>-lp<yes|no>.jsonl`,
and the judge's decisions as `decisions-...jsonl`, appended as each item finishes: a stopped run
resumes where it stopped, and a finished one only prints the table again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgegraph.stats import resampled

from benchmarks.datasets import DEFAULT_DATA_ROOT
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.figures import flagged
from benchmarks.judging import ItemOutcome, run_method
from benchmarks.regression import DEFAULT_UNSEEN_DATA
from benchmarks.simulated_judge import ACCURACIES, SimulatedEndpoint, SimulatedJudge, draw
from benchmarks.simulated_sets import SIMULATED_SETS, SetPaths, SimulatedCase, SimulatedSet, judge_says_good
from benchmarks.split import PARTS

THRESHOLD = 0.5
DEFAULT_OUT_DIR = Path("bench-out") / "simulated"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.simulated_agreement",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SIMULATED_SETS),
                        help=f"comma-separated, of: {', '.join(SIMULATED_SETS)} (default: all)")
    parser.add_argument("--accuracies", default=",".join(str(a) for a in ACCURACIES),
                        help="the simulated judge's accuracies, each in 0.5..1.0 (default: 1.0,0.9,0.8,0.7)")
    parser.add_argument("--logprobs", default="yes,no",
                        help="yes: the judge sends calibrated token log-probabilities; no: none, as a "
                             "gateway that drops them (default: yes,no)")
    parser.add_argument("--rows", type=int, default=300,
                        help="rows per set, balanced by label (default 300, or all the part has; "
                             "the NLI pairs split them between their languages)")
    parser.add_argument("--part", choices=PARTS, default="report",
                        help="which part of the fixed split (benchmarks/split.py) (default: report)")
    parser.add_argument("--concurrency", type=int, default=4, help="items judged at once (default 4)")
    parser.add_argument("--calibration", type=Path, metavar="PROFILE",
                        help="judge under this profile instead of the default (a rule's variant, to see what "
                             "it adds; give it its own --out-dir)")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT_DIR,
                        help=f"per-item files and the table (default {DEFAULT_OUT_DIR}); the same command "
                             "again resumes from them")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--unseen-data", type=Path, default=DEFAULT_UNSEEN_DATA)
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    return parser


def parse_list(text: str, allowed: dict | tuple, what: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in allowed]
    if unknown or not names:
        raise ValueError(f"{what} takes {', '.join(allowed)}, got {text!r}")
    return names


def parse_accuracies(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--accuracies takes numbers in 0.5..1.0, got {text!r}") from None
    if not values or any(not 0.5 <= value <= 1.0 for value in values):
        raise ValueError(f"--accuracies takes numbers in 0.5..1.0, got {text!r}")
    return values


@dataclass(frozen=True)
class Run:
    """One set judged at one accuracy in one mode: where its files are."""

    bench: SimulatedSet
    part: str
    accuracy: float
    logprobs: bool
    out_dir: Path

    @property
    def stem(self) -> str:
        return f"{self.bench.name}-{self.part}-a{self.accuracy:g}-lp{'yes' if self.logprobs else 'no'}"

    @property
    def items_path(self) -> Path:
        return self.out_dir / f"items-{self.stem}.jsonl"

    @property
    def decisions_path(self) -> Path:
        return self.out_dir / f"decisions-{self.stem}.jsonl"


def judge_context(endpoint: SimulatedEndpoint, calibration: Path | None = None):
    """The context the CLI builds for `--base-url <endpoint> --model simulated-judge`: no profile
    given, so the default one (the judge's name was fitted for nothing); `calibration`: the
    profile `--calibration` names instead (a rule's variant, to see what the rule adds)."""
    from judgegraph.commands.judge_flags import context_from_flags
    from judgegraph.commands.cli import add_judge_method_options, add_model_options

    parser = argparse.ArgumentParser()
    add_model_options(parser)
    add_judge_method_options(parser)
    parser.add_argument("--max-repairs", type=int, default=2)
    parser.add_argument("--claim-check", default="per-claim")
    parser.add_argument("--calibration", type=Path)
    parser.add_argument("--allow-profile-mismatch", action="store_true")
    extra = ["--calibration", str(calibration), "--allow-profile-mismatch"] if calibration else []
    return context_from_flags(parser.parse_args([*endpoint.flags, *extra]))


def judge_set(run: Run, cases: list[SimulatedCase], concurrency: int,
              calibration: Path | None = None) -> list[ItemOutcome]:
    """Every case through the graph against a fresh simulated judge; resumable (`run_method`)."""
    run.out_dir.mkdir(parents=True, exist_ok=True)
    judge = SimulatedJudge([case.row for case in cases], run.accuracy, logprobs=run.logprobs,
                           decisions_path=run.decisions_path)
    with SimulatedEndpoint(judge) as endpoint:
        context = judge_context(endpoint, calibration)
        outcomes, _ = run_method("graph", context, run.bench.metric, [(case.id, case.item) for case in cases],
                                 concurrency=concurrency, graph_concurrency=8, label=run.stem,
                                 items_path=run.items_path)
    return outcomes


def read_decisions(path: Path) -> dict[str, dict[str, list]]:
    """row id -> step -> the labels the judge wrote (a resumed row's repeats are identical)."""
    found: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a kill
            found[record["row"]][record["step"]].append(record["chosen"])
    return found


def ours_good(bench: SimulatedSet, outcome: ItemOutcome) -> bool:
    if bench.decision == "claims":
        flag = flagged(outcome)
        if flag is not None:
            return not flag
    return float(outcome.score) >= THRESHOLD


RULES = ("number rule", "names rule", "own answer", "grounding", "probability", "score")


def rule_of(outcome: ItemOutcome) -> str:
    """Which of judgegraph's rules made its decision differ from the judge's written verdicts,
    read from the claims it recorded (first found, in `RULES` order): a number conflict code
    found; a name or number the context never states, under a profile with the names rule; a claim the judge did not support counted supported (the own answer agreed); a
    supported claim whose support fell below 0.5 by grounding, or by P(supported) alone; else
    how the score was read (a mean of claims, a relevance score, the 0.5 threshold)."""
    claims = (outcome.detail or {}).get("claims") or []
    found = set()
    for claim in claims:
        if claim.get("conflict"):
            found.add("number rule")
        if claim.get("names_rule"):
            found.add("names rule")
        if claim.get("model_verdict") != "supported" and claim.get("verdict") == "supported":
            found.add("own answer")
        if claim.get("model_verdict") == "supported" and (claim.get("support") or 0.0) < THRESHOLD:
            found.add("grounding" if (claim.get("grounding") or 0.0) < 1.0 else "probability")
    return next((rule for rule in RULES if rule in found), "score")


def rules_counted(outcomes: list[ItemOutcome]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for outcome in outcomes:
        rule = rule_of(outcome)
        counted[rule] = counted.get(rule, 0) + 1
    return dict(sorted(counted.items(), key=lambda item: RULES.index(item[0])))


def _interval(pair) -> list[float] | None:
    return None if pair is None else [round(pair[0], 3), round(pair[1], 3)]


def figures(run: Run, cases: list[SimulatedCase], outcomes: list[ItemOutcome]) -> dict:
    """The table's line for one run (module doc)."""
    decisions = read_decisions(run.decisions_path)
    judged = [(case, outcome) for case, outcome in zip(cases, outcomes) if not outcome.failed and outcome.score is not None]
    people, judge, ours, asked = [], [], [], 0
    for case, outcome in judged:
        written = decisions.get(case.id, {}).get(run.bench.step)
        if written:
            asked += 1
            judge.append(judge_says_good(run.bench.step, written))
        else:  # the graph did not ask: what the judge would have said, from the same draw
            judge.append(case.good == draw(case.id, run.bench.step, run.accuracy).right)
        people.append(case.good)
        ours.append(ours_good(run.bench, outcome))
    n = len(judged)
    judge_ba = lambda drawn: resampled.balanced_accuracy_over(drawn, judge, people)  # noqa: E731
    ours_ba = lambda drawn: resampled.balanced_accuracy_over(drawn, ours, people)  # noqa: E731
    right = lambda said: [s == p for s, p in zip(said, people)]  # noqa: E731
    good_scores = [float(o.score) for c, o in judged if c.good]

    def point(figure):
        value = resampled.point_value(figure, n) if n else None
        return None if value is None else round(value, 3)

    return {
        "set": run.bench.name, "metric": run.bench.metric, "part": run.part, "accuracy": run.accuracy,
        "logprobs": run.logprobs, "rows": len(cases), "failed": len(cases) - n, "asked": asked,
        "judge_ba": point(judge_ba), "judge_ba_ci": _interval(resampled.interval_over(judge_ba, n) if n else None),
        "judge_accuracy": round(float(np.mean(right(judge))), 3) if n else None,
        "ours_ba": point(ours_ba), "ours_ba_ci": _interval(resampled.interval_over(ours_ba, n) if n else None),
        "ours_accuracy": round(float(np.mean(right(ours))), 3) if n else None,
        "difference_ba": (None if point(judge_ba) is None or point(ours_ba) is None
                          else round(point(ours_ba) - point(judge_ba), 3)),
        "difference_ba_ci": _interval(resampled.paired_interval_over(judge_ba, ours_ba, n) if n else None),
        "undid": sum(j == p and o != p for j, o, p in zip(judge, ours, people)),
        "fixed": sum(j != p and o == p for j, o, p in zip(judge, ours, people)),
        "undid_by": rules_counted([outcome for (_, outcome), j, o, p in zip(judged, judge, ours, people)
                                   if j == p and o != p]),
        "fixed_by": rules_counted([outcome for (_, outcome), j, o, p in zip(judged, judge, ours, people)
                                   if j != p and o == p]),
        "good_mean_score": round(float(np.mean(good_scores)), 3) if good_scores else None,
        "good_min_score": round(min(good_scores), 3) if good_scores else None,
        "languages": language_figures(run.bench, judged),
    }


def language_figures(bench: SimulatedSet, judged: list[tuple[SimulatedCase, ItemOutcome]]) -> dict | None:
    """For the sets in several languages (NLI pairs, paraphrase probes): per language, the rows,
    judgegraph's accuracy, and its lowest and mean score on the rows people call good."""
    languages = sorted({case.item.get("language") for case, _ in judged} - {None})
    if not languages:
        return None
    figures = {}
    for language in languages:
        chosen = [(case, outcome) for case, outcome in judged if case.item.get("language") == language]
        good = [float(outcome.score) for case, outcome in chosen if case.good]
        figures[language] = {
            "rows": len(chosen),
            "ours_accuracy": round(sum(ours_good(bench, o) == c.good for c, o in chosen) / len(chosen), 3),
            "good_min_score": round(min(good), 3) if good else None,
            "good_mean_score": round(float(np.mean(good)), 3) if good else None,
        }
    return figures


def _cell(value, interval=None) -> str:
    if value is None:
        return "n/a"
    text = f"{value:.3f}"
    return text + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def _counted(total: int, by_rule: dict[str, int]) -> str:
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{rule} {n}" for rule, n in by_rule.items()) + ")"


def table(lines: list[dict]) -> str:
    """The Markdown table of every run's line."""
    head = ("| set | metric | a | logprobs | rows (failed) | asked | judge BA [95 %] | judge acc | "
            "ours BA [95 %] | ours acc | ours - judge BA [95 %] | undid | fixed | good: mean (min) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
    body = "".join(
        f"| {x['set']} | {x['metric']} | {x['accuracy']:g} | {'yes' if x['logprobs'] else 'no'} | "
        f"{x['rows']} ({x['failed']}) | {x['asked']} | {_cell(x['judge_ba'], x['judge_ba_ci'])} | "
        f"{_cell(x['judge_accuracy'])} | {_cell(x['ours_ba'], x['ours_ba_ci'])} | {_cell(x['ours_accuracy'])} | "
        f"{_cell(x['difference_ba'], x['difference_ba_ci'])} | {_counted(x['undid'], x['undid_by'])} | "
        f"{_counted(x['fixed'], x['fixed_by'])} | "
        f"{_cell(x['good_mean_score'])} ({_cell(x['good_min_score'])}) |\n"
        for x in lines)
    return head + body + language_table(lines)


def language_table(lines: list[dict]) -> str:
    """Per language, for the multilingual sets: judgegraph's accuracy and its lowest score on a
    row people call good, one column per accuracy and mode."""
    multilingual = [x for x in lines if x.get("languages")]
    if not multilingual:
        return ""
    runs = sorted({(x["accuracy"], x["logprobs"]) for x in multilingual}, key=lambda k: (-k[0], not k[1]))
    head = ("\n| set | language | rows | " + " | ".join(f"a={a:g} lp {'yes' if lp else 'no'}: acc (good min)"
                                                     for a, lp in runs) + " |\n"
            + "|---" * (3 + len(runs)) + "|\n")
    body = ""
    for name in dict.fromkeys(x["set"] for x in multilingual):
        by_run = {(x["accuracy"], x["logprobs"]): x["languages"] for x in multilingual if x["set"] == name}
        for language in sorted({lang for figures in by_run.values() for lang in figures}):
            cells = []
            for run in runs:
                figure = (by_run.get(run) or {}).get(language)
                cells.append("" if figure is None else
                             f"{_cell(figure['ours_accuracy'])} ({_cell(figure['good_min_score'])})")
            rows = next(f[language]["rows"] for f in by_run.values() if language in f)
            body += f"| {name} | {language} | {rows} | " + " | ".join(cells) + " |\n"
    return head + body


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        names = parse_list(args.sets, SIMULATED_SETS, "--sets")
        accuracies = parse_accuracies(args.accuracies)
        modes = [mode == "yes" for mode in parse_list(args.logprobs, ("yes", "no"), "--logprobs")]
    except ValueError as error:
        print(f"benchmarks: {error}", file=sys.stderr)
        return 2
    paths = SetPaths(args.data_root, args.unseen_data, args.mirror_root)
    lines = []
    for name in names:
        bench = SIMULATED_SETS[name]
        try:
            cases = bench.load(args.rows, args.part, paths)
        except (OSError, RuntimeError) as error:
            print(f"benchmarks: {name}: {error}", file=sys.stderr)
            return 2
        for accuracy in accuracies:
            for logprobs in modes:
                run = Run(bench, args.part, accuracy, logprobs, args.out_dir)
                started = time.perf_counter()
                outcomes = judge_set(run, cases, args.concurrency, args.calibration)
                line = figures(run, cases, outcomes)
                line["seconds"] = round(time.perf_counter() - started, 1)
                lines.append(line)
                print(json.dumps(line), file=sys.stderr, flush=True)
    rendered = table(lines)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "simulated-agreement.json").write_text(json.dumps(lines, indent=2), encoding="utf-8")
    (args.out_dir / "simulated-agreement.md").write_text(rendered, encoding="utf-8")
    sys.stdout.write(rendered)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
