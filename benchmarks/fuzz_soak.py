"""Soak run of untrusted replies and input lines (issue #20): batches of every rubric whose lines
and judge replies are drawn from the fuzz suite's generators, judged by the real CLI in child
processes against the fault-injecting OpenAI-compatible server on 127.0.0.1, for as long as
asked. No model is loaded.

    python -m benchmarks.fuzz_soak [--minutes 5] [--items 200] [--fault-rate 0.1] [--seed 20]

Each round writes a batch of `--items` lines (a fifth of them broken in one of the input kinds
of `tests/support/untrusted_fuzz.py`), serves every request with one of its 39 reply kinds
(plus transport faults at `--fault-rate`), and checks the same invariants as
tests/hostile/test_untrusted_fuzz.py: the exit code docs/exit-codes.md owes, no traceback, one record per non-blank line under its id,
every result its rubric's shape with numbers in scale, no score on unjudged records, a reason on
every failure, and as many calls counted as requests served. It prints the counts: replies
sent (by kind), items, failures by kind, crashes (internal errors or tracebacks) and lost
lines. Each round also reads its results back with hostile lines mixed in, through `report`
and `compare`, and reads a hostile labels file (`benchmarks/hostile_files_soak.py`; off with
`--no-hostile-files`). Exit status 0 when every invariant held.

`--new-shapes N` then runs the soaks of the newer input shapes, each with its own generators and
invariants, as child processes, and folds their exit status into this one's: N hostile cited
answers and conversation lines (`benchmarks.fuzz_shapes_citations`), N lines of other tools'
exports (LangSmith, MLflow, Phoenix frames and traces of several spans, DeepEval test cases,
`input`/`output`/`reference` rows), absent contexts, bad passages, hostile CSV records, an
MLflow table in pandas' split form and a DeepEval test run file (`benchmarks.fuzz_shapes_exports`,
against the demo judge started on 127.0.0.1) and N hostile calibration profiles
(`benchmarks.fuzz_shapes_profiles`).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_round(path: Path, items: int, rng: random.Random, line_kinds: tuple[str, ...], rubric_names: list[str],
                broken_share: float) -> tuple[list, Counter]:
    from tests.support.untrusted_fuzz import input_line

    expected: list = []
    kinds: Counter[str] = Counter()
    with path.open("wb") as handle:
        for number in range(1, items + 1):
            kind = rng.choice(line_kinds) if rng.random() < broken_share else "valid"
            raw, item_id = input_line(kind, rng.choice(rubric_names), number)
            handle.write(raw + b"\n")
            kinds[kind] += 1
            if item_id is not None:
                expected.append(item_id)
    return expected, kinds


def failure_kind(record: dict) -> str:
    """A short name for why a record failed (for the counts), or "judged"."""
    from judgegraph.batch.summary import record_failure

    if record.get("input_error"):
        return "input error"
    if record.get("internal_error"):
        return "internal error"
    reason = record_failure(record)
    result = record.get("result") or {}
    if reason is None and result.get("score", 0) is None:  # coverage's null score
        reason = result.get("rationale", [""])[-1]
    if reason is None and "relevance_score" in result and None in (result["relevance_score"],
                                                                    result["faithfulness_score"]):
        reason = result.get("evaluation_notes") or "null"
    if reason is None:
        return "judged"
    for words, name in (("model call failed", "judge: transport/server error"),
                        ("no valid reply", "judge: no valid reply after repairs"),
                        ("Input parsing error", "input rejected by validation"),
                        ("Invalid input", "input rejected by validation")):
        if words in reason:
            return name
    return "judge: other step failure"


def check_round(out: Path, expected: list, requests: int, code: int, stderr: str) -> dict:
    """The invariants; returns this round's counts (violations listed, never raised)."""
    from judgegraph.batch.summary import holds_a_failure, metric_values
    from judgegraph.graph import rubrics

    problems: list[str] = []
    if "Traceback" in stderr or "never retrieved" in stderr:
        problems.append("traceback on stderr")
    data = out.read_bytes() if out.exists() else b""
    records = []
    for number, line in enumerate(data.splitlines(), start=1):
        try:
            records.append(json.loads(line))
        except ValueError:
            problems.append(f"output line {number} is not JSON")
    ids = Counter(record.get("id") for record in records)
    lost = [i for i in set(map(json.dumps, expected)) if json.loads(i) not in ids]
    twice = [i for i, n in ids.items() if n > 1]
    extra = [i for i in ids if i not in expected]
    if twice or extra:
        problems.append(f"ids twice {twice[:3]}, unexpected {extra[:3]}")
    failures: Counter[str] = Counter()
    crashes = 0
    for record in records:
        kind = failure_kind(record)
        failures[kind] += 1
        crashes += kind == "internal error"
        names = record["rubric"] if isinstance(record["rubric"], list) else [record["rubric"]]
        for name in names:
            spec = rubrics.get(name)
            output = record["result"][name] if isinstance(record["rubric"], list) else record["result"]
            if not any(_validates(model, output) for model in spec.output_models):
                problems.append(f"{record['id']!r}: not a {name} shape")
        if record.get("input_error") and any(v is not None for _, v in metric_values(record)):
            problems.append(f"{record['id']!r}: a score on an unjudged record")
    owed = 1 if any(holds_a_failure(r) for r in records) else 0
    if code != owed:  # docs/exit-codes.md: 1 when a record failed
        problems.append(f"exit {code}, owed {owed}")
    calls = sum(record["usage"]["calls"] for record in records)
    if calls != requests:
        problems.append(f"{calls} calls counted, {requests} requests served")
    return {"records": len(records), "lost": len(lost), "crashes": crashes + ("traceback on stderr" in problems),
            "failures": failures, "calls": calls, "problems": problems}


def _validates(model, value) -> bool:
    try:
        model.model_validate(value)
    except Exception:  # noqa: BLE001 - not this shape
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="keep starting rounds for this long")
    parser.add_argument("--items", type=int, default=200, help="lines per round")
    parser.add_argument("--broken-share", type=float, default=0.2, help="share of broken input lines")
    parser.add_argument("--fault-rate", type=float, default=0.1, help="share of transport faults")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--no-hostile-files", action="store_true",
                        help="skip reading each round's results back with hostile lines mixed in")
    parser.add_argument("--new-shapes", type=int, default=0, metavar="N",
                        help="then soak N lines of each newer shape: citations and conversation lines, "
                             "exports and CSV records, calibration profiles (0: skip)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from judgegraph.graph import rubrics
    from tests.support.fault_server import FaultServer
    from benchmarks.hostile_files_soak import child_env, hostile_labels_round, hostile_results_round
    from tests.support.untrusted_fuzz import LINE_KINDS, MAX_LINE_BYTES, REPLY_KINDS, FuzzReplies

    rng = random.Random(args.seed)
    names = sorted(rubrics.names())
    totals = {"rounds": 0, "items": 0, "records": 0, "lost_lines": 0, "crashes": 0, "requests": 0,
              "calls_counted": 0}
    line_kinds: Counter[str] = Counter()
    replies: Counter[str] = Counter()
    transport: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    files = {"files": 0, "lines": 0, "refused": 0, "crashes": 0}
    hostile_lines: Counter[str] = Counter()
    problems: list[str] = []
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="judgegraph-fuzz-soak-"))
    while time.monotonic() - started < args.minutes * 60:
        number = totals["rounds"] + 1
        items, out = work / f"items-{number}.jsonl", work / f"out-{number}.jsonl"
        expected, kinds = write_round(items, args.items, rng, LINE_KINDS, names, args.broken_share)
        fuzz = FuzzReplies(rng.sample(REPLY_KINDS, k=rng.randint(3, 12)) + ["valid"] * 3, salt=number)
        with FaultServer(reply=fuzz, fault_rate=args.fault_rate, seed=number,
                         fault_modes=("429", "500", "drop", "malformed")) as server:
            command = [sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out),
                       "--base-url", server.base_url, "--model", "fuzz", "--no-embeddings", "--retries", "0",
                       "--timeout", "5", "--max-repairs", "1", "--concurrency", str(args.concurrency),
                       "--max-line-bytes", str(MAX_LINE_BYTES)]
            child = subprocess.run(command, cwd=ROOT, env=child_env(),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
            stderr = child.stderr.decode("utf-8", "replace")
            requests = server.requests
            transport.update({mode: n for mode, n in server.counts.items() if mode != "ok"})
        counts = check_round(out, expected, requests, child.returncode, stderr)
        totals["rounds"] = number
        totals["items"] += sum(kinds.values())
        totals["records"] += counts["records"]
        totals["lost_lines"] += counts["lost"]
        totals["crashes"] += counts["crashes"]
        totals["requests"] += requests
        totals["calls_counted"] += counts["calls"]
        line_kinds.update(kinds)
        replies.update(fuzz.sent)
        failures.update(counts["failures"])
        problems += [f"round {number}: {p}" for p in counts["problems"]]
        if not args.no_hostile_files:
            for part in (hostile_results_round(work, number, out, rng), hostile_labels_round(work, number, rng)):
                for key in files:
                    files[key] += int(part[key])
                hostile_lines.update(part.get("hostile_lines", {}))
                problems += [f"round {number} (hostile files): {p}" for p in part["problems"]]
                totals["crashes"] += part["crashes"]
        print(f"round {number}: {counts['records']} records, {requests} requests, "
              f"{counts['lost']} lost, {counts['crashes']} crashes, {len(counts['problems'])} problems",
              file=sys.stderr, flush=True)
    figures = {
        **totals, "seconds": round(time.monotonic() - started, 1),
        "replies_sent": sum(replies.values()) + sum(transport.values()),
        "reply_kinds_used": len(replies) + len(transport),
        "replies_by_kind": dict(sorted(replies.items())), "transport_faults": dict(sorted(transport.items())),
        "input_lines_by_kind": dict(sorted(line_kinds.items())),
        "records_by_outcome": dict(sorted(failures.items())),
        "hostile_files": {**files, "hostile_results_lines_by_kind": dict(sorted(hostile_lines.items()))},
        "invariant_violations": problems[:20], "violations": len(problems),
    }
    shapes = new_shape_soaks(args.new_shapes, args.seed) if args.new_shapes > 0 else {}
    figures["new_shapes"] = shapes
    print(json.dumps(figures, indent=2))
    clean = not problems and not totals["lost_lines"] and not totals["crashes"]
    return 0 if clean and all(code == 0 for code in shapes.values()) else 1


def new_shape_soaks(lines: int, seed: int) -> dict[str, int | None]:
    """Each newer shape's soak as a child process (its counts on stderr), by exit status."""
    import socket

    from benchmarks.hostile_files_soak import child_env

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    demo = subprocess.Popen([sys.executable, "-m", "tests.support.demo_judge", "--port", str(port)], cwd=ROOT,
                            env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    soaks = {
        "citations_and_conversations": ["-m", "benchmarks.fuzz_shapes_citations", "--lines", str(lines),
                                        "--seed", str(seed)],
        "exports_and_csv": ["-m", "benchmarks.fuzz_shapes_exports", "--base-url", f"http://127.0.0.1:{port}/v1",
                            "--lines", str(lines), "--seed", str(seed)],
        "profiles": ["-m", "benchmarks.fuzz_shapes_profiles", "--profiles", str(lines), "--seed", str(seed)],
    }
    codes: dict[str, int | None] = {}
    try:
        time.sleep(1.0)
        for name, command in soaks.items():
            print(f"new shapes: {name}", file=sys.stderr, flush=True)
            codes[name] = subprocess.run([sys.executable, *command], cwd=ROOT, env=child_env(), check=False).returncode
    finally:
        demo.terminate()
        demo.wait(timeout=30)
    return codes


if __name__ == "__main__":
    sys.exit(main())
