"""Escalation measured (issue 57): the embedded judge first, a simulated judge of known quality
second, on HaluEval's unseen rows, FaithBench and MS MARCO.

    python -m benchmarks.escalation --data /work/escalation-data --out-dir bench-out/escalation \
        --sets msmarco_ctxrel,halueval_unseen,faithbench --targets 0.9,0.95,0.98

What runs, per set, every judge call through the CLI (`judgegraph evaluate`, `--details`):
1. the strong judge alone (`benchmarks.simulated_judge`, accuracy 0.95, with log-probabilities)
   on the tune and the report rows;
2. the jury on the tune and report rows (`--model local --escalate-to <simulated> --escalate-band
   all`): both judges on every decision; the embedded judge's replies come from the step cache
   `--cache` (filled by a run of the embedded judge alone on the same items), replayed without
   starting it (`benchmarks.cached_embedded`); only the rows that run has judged are used;
3. `judgegraph escalation-fit` on the tune jury run: the band per target, written into the
   embedded judge's profile;
4. per target, the cascade on the report rows, live: `--calibration <fitted> --agreement T`.

Figures per set and run, on the report rows: the share of decisions escalated and the second
judge's calls against the strong judge alone's; item-level agreement with people (each set's
own reading: an item is good when no claim counts as unsupported, or its score is 0.5 or more)
and with the strong judge alone; and the fit's promise checked on the report rows: the kept
decisions' agreement with the second judge (from the report jury run, where both judged each).
The embedded judge alone is the run the cache was filled by (`--first-results`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT
from benchmarks.fetched import DEFAULT_MIRROR_ROOT
from benchmarks.regression import DEFAULT_UNSEEN_DATA
from benchmarks.simulated_judge import MODEL_NAME, SimulatedEndpoint, SimulatedJudge
from benchmarks.simulated_sets import SIMULATED_SETS, SetPaths, SimulatedCase

ROOT = Path(__file__).resolve().parents[1]
ACCURACY = 0.95
THRESHOLD = 0.5


def read_records(path: Path) -> dict[str, dict]:
    records = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "id" in record:
                records[str(record["id"])] = record
    return records


def fit_half(row_id: str) -> bool:
    """`--split-report`: a row's half, fixed by its id (sha256), never by its outcome."""
    return int(hashlib.sha256(row_id.encode("utf-8")).hexdigest(), 16) % 2 == 0


def good(record: dict, decision: str, metric: str) -> bool | None:
    """The item-level verdict, the set's own reading (`benchmarks.simulated_sets`)."""
    result = record.get("result") or {}
    if decision == "claims":
        verdicts = (record.get("details") or {}).get("verdicts") or []
        if verdicts:
            return not any((v.get("support") or 0.0) < THRESHOLD for v in verdicts)
    score = result.get(metric)
    return None if score is None else float(score) >= THRESHOLD


def escalation_decisions(record: dict) -> list[dict]:
    nodes = (record.get("details") or {}).get("nodes") or []
    return [n["detail"]["escalation"] for n in nodes if isinstance(n.get("detail"), dict) and "escalation" in n["detail"]]


def evaluate(items: Path, out: Path, flags: list[str], *, local: bool) -> None:
    """One CLI run (resumable: the same command again judges only what is missing). With the
    embedded judge (`local`), its replies come from the step cache only (`benchmarks.cached_embedded`:
    no server is started, so no lock is taken; a reply the cache lacks fails its step)."""
    entry = ["-m", "benchmarks.cached_embedded"] if local else [str(ROOT / "cli.py")]
    command = [sys.executable, *entry, "evaluate", str(items), "--details", "--out", str(out), *flags]
    with (out.with_suffix(".stderr")).open("w", encoding="utf-8") as stderr:
        code = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr, check=False,
                              env=os.environ | {"PYTHONPATH": str(ROOT)}).returncode
    if code not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited {code}: see {out.with_suffix('.stderr')}")


def figures(cases: dict[str, SimulatedCase], bench, run: dict[str, dict], strong: dict[str, dict]) -> dict:
    ids = [i for i in cases if i in run and i in strong]
    ours = {i: good(run[i], bench.decision, bench.metric) for i in ids}
    theirs = {i: good(strong[i], bench.decision, bench.metric) for i in ids}
    judged = [i for i in ids if ours[i] is not None]
    decisions = [d for i in ids for d in escalation_decisions(run[i])]
    escalated = sum(1 for d in decisions if d.get("decided_by") == "second")
    second_calls = sum(int(d.get("second_calls") or 0) for d in decisions)
    strong_calls = sum(int((strong[i].get("usage") or {}).get("calls") or 0) for i in ids)
    return {
        "items": len(ids), "judged": len(judged),
        "agreement_people": round(sum(ours[i] == cases[i].good for i in judged) / len(judged), 3) if judged else None,
        "agreement_strong": round(sum(ours[i] == theirs[i] for i in judged) / len(judged), 3) if judged else None,
        "decisions": len(decisions), "escalated_share": round(escalated / len(decisions), 3) if decisions else None,
        "second_calls": second_calls, "strong_alone_calls": strong_calls,
    }


def kept_agreement(jury: dict[str, dict], confidence: dict[str, float]) -> dict:
    """The fit's promise on rows it never saw: among the report rows' decisions the band keeps
    with the first judge, the share on the same side as the second judge's (both judged every
    decision of the jury run)."""
    kept = agreeing = total = 0
    for record in jury.values():
        for d in escalation_decisions(record):
            p1, p2 = d.get("p_first"), d.get("p_second")
            if not d.get("first_graded") or p1 is None or p2 is None:
                continue
            total += 1
            if max(p1, 1 - p1) >= confidence.get(d["decision"], 1.0) and confidence.get(d["decision"], 1.0) < 1.0:
                kept += 1
                agreeing += (p1 >= 0.5) == (p2 >= 0.5)
    return {"paired": total, "kept": kept, "kept_agreement": round(agreeing / kept, 3) if kept else None}


def splits(args: argparse.Namespace) -> bool:
    return args.split_report or args.fit_also_on_report_half


def sources(part: str, args: argparse.Namespace) -> tuple[str, ...]:
    """The item files a part's rows come from: `--split-report` fits on half the report rows;
    `--fit-also-on-report-half` on the tune rows and that half; the other half is checked."""
    if part == "report" or args.split_report:
        return ("report",)
    return ("tune", "report") if args.fit_also_on_report_half else ("tune",)


def measure_set(name: str, args: argparse.Namespace, paths: SetPaths) -> list[dict]:
    bench = SIMULATED_SETS[name]
    out = args.out_dir / name
    out.mkdir(parents=True, exist_ok=True)
    items, wanted = {}, {}
    for part in ("tune", "report"):  # the rows the embedded judge alone has judged (so the cache holds them)
        lines = []
        for source in sources(part, args):
            done = read_records(args.data / f"embedded-{name}-{source}.results.jsonl")
            lines += [line for line in (args.data / f"{name}-{source}.jsonl").read_text().splitlines()
                      if line.strip() and (args.first_accuracy or json.loads(line)["id"] in done)
                      and (source == "tune" or not splits(args) or fit_half(json.loads(line)["id"]) == (part == "tune"))]
        items[part] = out / f"items-{part}.jsonl"
        items[part].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        wanted[part] = {json.loads(line)["id"] for line in lines}
    loaded = {source: bench.load(args.rows, source, paths) for source in ("tune", "report")}
    cases = {part: {c.id: c for source in sources(part, args) for c in loaded[source] if c.id in wanted[part]}
             for part in items}
    rows = [c.row for part in cases for c in cases[part].values()]
    cache = args.cache  # the embedded judge's replies, every one a hit (only first-judge replies are cached)
    first_alone = read_records(args.data / f"embedded-{name}-report.results.jsonl")
    lines = []
    with SimulatedEndpoint(SimulatedJudge(rows, ACCURACY, logprobs=True)) as simulated, \
            SimulatedEndpoint(SimulatedJudge(rows, args.first_accuracy or ACCURACY, logprobs=True)) as weak:
        strong_flags = ["--base-url", simulated.base_url, "--model", MODEL_NAME, "--concurrency", "4"]
        second = ["--escalate-to", MODEL_NAME, "--escalate-base-url", simulated.base_url]
        local = ["--model", "local", "--cache", str(cache), "--concurrency", "4"]
        if args.first_accuracy:  # a simulated first judge of known accuracy instead of the embedded one
            local = ["--base-url", weak.base_url, "--model", "weak-judge", "--concurrency", "4"]
            evaluate(items["report"], out / "first-report.jsonl", local, local=False)
            first_alone = read_records(out / "first-report.jsonl")
        for part in ("tune", "report"):
            evaluate(items[part], out / f"strong-{part}.jsonl", strong_flags, local=False)
            evaluate(items[part], out / f"jury-{part}.jsonl", [*local, *second, "--escalate-band", "all"],
                     local=not args.first_accuracy)
        profile = out / "embedded-escalation.json"
        subprocess.run([sys.executable, str(ROOT / "cli.py"), "escalation-fit", str(out / "jury-tune.jsonl"),
                        "-o", str(profile), "--agreement", args.targets, "--id", f"embedded-escalation-{name}"],
                       cwd=ROOT, check=True)
        fitted = json.loads(profile.read_text())["escalation"]["fits"]
        strong = read_records(out / "strong-report.jsonl")
        jury_report = read_records(out / "jury-report.jsonl")
        report_cases = cases["report"]
        first_name = f"simulated first judge ({args.first_accuracy:g}) alone" if args.first_accuracy else "embedded alone"
        lines.append({"set": name, "run": first_name} | figures(report_cases, bench, first_alone, strong))
        lines.append({"set": name, "run": "strong alone"} | figures(report_cases, bench, strong, strong))
        lines.append({"set": name, "run": "jury (band: all)"} | figures(report_cases, bench, jury_report, strong))
        for target in args.targets.split(","):
            fit = fitted[f"{float(target):g}"]
            run_out = out / f"cascade-{target}.jsonl"
            evaluate(items["report"], run_out, [*local, *second, "--calibration", str(profile), "--agreement", target],
                     local=not args.first_accuracy)
            line = {"set": name, "run": f"cascade, target {target}", "confidence": fit["confidence"]}
            line |= figures(report_cases, bench, read_records(run_out), strong)
            line |= kept_agreement(jury_report, fit["confidence"])
            lines.append(line)
        for band in args.bands.split(","):  # hand-set bands, for the trade-off a fit does not show
            run_out = out / f"band-{band}.jsonl"
            evaluate(items["report"], run_out, [*local, *second, *([] if band == "default" else ["--escalate-band", band])],
                     local=not args.first_accuracy)
            confidence = 0.8 if band == "default" else float(band)
            line = {"set": name, "run": f"band {'(0.2, 0.8), the default' if band == 'default' else band}"}
            line |= figures(report_cases, bench, read_records(run_out), strong)
            line |= kept_agreement(jury_report, {kind: confidence for kind in
                                                 ("claim_verdict", "context_relevance", "answer_relevance")})
            lines.append(line)
    return lines


def table(lines: list[dict]) -> str:
    head = ("| set | run | escalated | 2nd judge calls / alone | agree people | agree strong | kept agree (report) |\n"
            "|---|---|---|---|---|---|---|\n")

    def cell(value, fmt="{:.3f}"):
        return "-" if value is None else fmt.format(value)

    rows = []
    for line in lines:
        calls = f"{line['second_calls']:,} / {line['strong_alone_calls']:,}" if line["decisions"] else "-"
        kept = (f"{cell(line.get('kept_agreement'))} of {line['kept']}/{line['paired']}" if "kept" in line else "-")
        rows.append(f"| {line['set']} | {line['run']} | {cell(line['escalated_share'], '{:.0%}')} | {calls} | "
                    f"{cell(line['agreement_people'])} | {cell(line['agreement_strong'])} | {kept} |")
    return head + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.escalation", description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="msmarco_ctxrel,halueval_unseen,faithbench")
    parser.add_argument("--data", type=Path, required=True,
                        help="<set>-<tune|report>.jsonl item files and embedded-<set>-report.results.jsonl")
    parser.add_argument("--cache", type=Path, help="the embedded judge's step cache (default: <data>/embedded-cache.sqlite)")
    parser.add_argument("--targets", default="0.9,0.95,0.98")
    parser.add_argument("--bands", default="default,0.6", help="hand-set bands run beside the fitted ones")
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/escalation"))
    parser.add_argument("--first-accuracy", type=float, default=None,
                        help="a simulated first judge of this accuracy (with log-probabilities) instead of the "
                             "embedded one: every row of the item files, no cache")
    fit_rows = parser.add_mutually_exclusive_group()  # which rows the band is fitted on
    fit_rows.add_argument("--split-report", action="store_true",
                        help="fit on half the report rows (by id) and check on the other half: for a set whose "
                             "tune rows the embedded judge has not judged")
    fit_rows.add_argument("--fit-also-on-report-half", action="store_true",
                        help="fit on the tune rows and half the report rows (by id), check on the other half: "
                             "more fitting decisions than the tune rows alone, still disjoint from the rows checked")
    args = parser.parse_args(argv)
    args.cache = args.cache or args.data / "embedded-cache.sqlite"
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    paths = SetPaths(DEFAULT_DATA_ROOT, DEFAULT_UNSEEN_DATA, DEFAULT_MIRROR_ROOT)
    lines = []
    for name in args.sets.split(","):
        lines += measure_set(name, args, paths)
        (args.out_dir / "escalation.json").write_text(json.dumps(lines, indent=2), encoding="utf-8")
        (args.out_dir / "escalation.md").write_text(table(lines), encoding="utf-8")
        print(table(lines), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
