"""Property-based fuzzing of the whole path (issue #20): hypothesis draws input lines and judge
replies (generated from the schemas, then mutated: `tests.support.untrusted_fuzz`), the real
CLI runs them (in process) against the fault-injecting OpenAI-compatible server on 127.0.0.1,
and the invariants are checked on what the user gets:

- no exception, no traceback, no "Task exception was never retrieved"; exit 0 (2 only for a
  single file that cannot be parsed at all, with one line on stderr);
- exactly one record per non-blank input line, under the line's own id whenever it can be
  read (else `line-<n>`), none twice;
- every result is its rubric's judged or failure shape, strict JSON, every number inside its
  scale; a record written without judging (input or internal error) has no score at all;
- every failure says why; and the calls the records count are the requests the server got.

Derandomised (fixed seed, no example database), so CI runs the same examples every time, in
well under 90 s; `benchmarks/fuzz_soak.py` runs the same generators for minutes.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import math
import os
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from judgegraph.batch.summary import metric_values, record_failure
from judgegraph.commands import cli
from judgegraph.fitting.labels import LabelsError, read_labels
from judgegraph.graph import rubrics
from judgegraph.graph.every_item.validate_input import choose_rubrics
from judgegraph.schemas.untrusted_json import loads_untrusted
from tests.support.exit_codes import exit_for_records, exit_for_result
from tests.support.fault_server import FaultServer
from tests.support.hostile_files import (
    BLANK,
    ERROR,
    LABELS_KINDS,
    NOT_A_RECORD,
    RECORD,
    RESULTS_KINDS,
    labels_line,
    results_line,
)
from tests.support.result_records import rag as rag_record
from tests.support.untrusted_fuzz import LINE_KINDS, MAX_LINE_BYTES, REPLY_KINDS, FuzzReplies, input_line

BATCH_EXAMPLES = int(os.environ.get("JUDGEGRAPH_FUZZ_BATCHES", "120"))
SINGLE_EXAMPLES = int(os.environ.get("JUDGEGRAPH_FUZZ_SINGLES", "100"))
"""Sized for CI (under 90 s together on a shared 2-core machine); raise them to fuzz longer."""

FUZZ = settings(derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                phases=[p for p in Phase if p.name != "shrink" or not os.environ.get("JUDGEGRAPH_FUZZ_NO_SHRINK")])

reply_kinds = st.lists(st.sampled_from(REPLY_KINDS), min_size=1, max_size=6)
rubric_names = st.sampled_from(sorted(rubrics.names()))
lines = st.lists(st.tuples(st.sampled_from(LINE_KINDS), rubric_names), min_size=1, max_size=6)
transport = st.sampled_from([0.0, 0.0, 0.2])
"""Share of requests that get a transport fault (429, 500, dropped connection, malformed body)."""


class _Tracebacks(logging.Handler):
    """Records what asyncio and LangChain log at ERROR (an un-retrieved task exception)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def run(argv: list[str]) -> tuple[int, str, str, list[str]]:
    """`judgegraph evaluate ...` in process: exit code, stdout, stderr, ERROR log lines."""
    out, err, logged = io.StringIO(), io.StringIO(), _Tracebacks()
    logging.getLogger().addHandler(logged)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["evaluate", *argv, "--no-embeddings", "--retries", "0", "--timeout", "5",
                             "--max-repairs", "1"])
    finally:
        logging.getLogger().removeHandler(logged)
    return code, out.getvalue(), err.getvalue(), logged.messages


def server_flags(server: FaultServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "fuzz"]


def assert_result_holds(rubric: str | list, result: dict, *, judged: bool) -> None:
    """A known shape, strict JSON, numbers in scale; a failure carries its reason."""
    json.dumps(result, allow_nan=False)
    names = rubric if isinstance(rubric, list) else [rubric]
    for name in names:
        spec = rubrics.get(name)
        output = result[name] if isinstance(rubric, list) else result
        shapes = []
        for model in spec.output_models:
            try:
                shapes.append(model.model_validate(output))
            except Exception:  # noqa: BLE001 - not this shape
                continue
        assert shapes, f"{name}: {output}"
        for metric in spec.metrics:
            if metric.scale is None:
                continue
            for path, value in metric_values({"rubric": name, "result": output}):
                if path == metric.field and value is not None:
                    low, high = metric.scale
                    assert low <= value <= high, f"{name}.{path} = {value} outside {metric.scale}"
    if not judged:
        return
    if name == "coverage" and output.get("score") is None:
        assert output["rationale"][-1].startswith("Score: not computed"), output


@settings(FUZZ, max_examples=BATCH_EXAMPLES)
@seed(20)
@given(lines=lines, kinds=reply_kinds, fault_rate=transport, concurrency=st.sampled_from(["1", "4"]))
def test_a_batch_of_fuzzed_lines_and_replies_keeps_every_line(lines, kinds, fault_rate, concurrency):
    with tempfile.TemporaryDirectory() as folder:
        items, out = Path(folder) / "items.jsonl", Path(folder) / "out.jsonl"
        expected: list = []
        with items.open("wb") as handle:
            for number, (kind, rubric) in enumerate(lines, start=1):
                raw, item_id = input_line(kind, rubric, number)
                handle.write(raw + b"\n")
                if item_id is not None:
                    expected.append(item_id)
        replies = FuzzReplies(kinds, salt=len(lines))
        with FaultServer(reply=replies, fault_rate=fault_rate, seed=len(kinds),
                         fault_modes=("429", "500", "drop", "malformed")) as server:
            code, stdout, stderr, logged = run([str(items), "--out", str(out), "--concurrency", concurrency,
                                                "--max-line-bytes", str(MAX_LINE_BYTES), *server_flags(server)])
            requests = server.requests
        assert "Traceback" not in stderr and not logged, (stderr[-2000:], logged)
        data = out.read_bytes()
        data.decode("utf-8")  # the results file is UTF-8 text (surrogate ids are escaped)
        records = [json.loads(line) for line in data.splitlines()]
        assert code == exit_for_records(records), stderr[-2000:]  # 1 when nothing was judged
    ids = Counter(record["id"] for record in records)
    assert all(n == 1 for n in ids.values()), ids
    assert set(ids) == set(expected) and len(records) == len(set(map(str, expected))), (ids, expected)
    for record in records:
        unjudged = bool(record.get("input_error") or record.get("internal_error"))
        assert "internal_error" not in record, record["internal_error"]
        assert_result_holds(record["rubric"], record["result"], judged=not unjudged)
        if unjudged:
            assert all(value is None for _, value in metric_values(record)), record
            assert record_failure(record)
            assert record["usage"]["calls"] == 0
    assert sum(record["usage"]["calls"] for record in records) == requests


@settings(FUZZ, max_examples=SINGLE_EXAMPLES)
@seed(21)
@given(kind=st.sampled_from(LINE_KINDS), rubric=rubric_names, kinds=reply_kinds)
def test_a_fuzzed_single_item_prints_one_result_or_one_line(kind, rubric, kinds):
    raw, _ = input_line(kind, rubric, 1)
    with tempfile.TemporaryDirectory() as folder:
        item = Path(folder) / "item.json"
        item.write_bytes(raw)
        with FaultServer(reply=FuzzReplies(kinds)) as server:
            code, stdout, stderr, logged = run([str(item), *server_flags(server)])
    assert "Traceback" not in stderr and not logged, stderr[-2000:]
    if code == 2:  # the file cannot be read or parsed: one line, nothing on stdout
        assert stdout == "" and len(stderr.strip().splitlines()) == 1 and stderr.startswith("judgegraph: ")
        return
    result = json.loads(stdout)
    value = loads_untrusted(raw.decode("utf-8-sig"))  # printed, so it parsed: the CLI read it so too
    names, _ = choose_rubrics(value, None)  # the rubric whose shape the item gets, judged or failed
    assert code == exit_for_result(names[0] if len(names) == 1 else names, result), stderr[-2000:]
    assert_result_holds(names[0] if len(names) == 1 else names, result, judged=True)


# --- hostile results and labels files (issue #29) -------------------------------------------------
# `report`, `compare` and `calibrate` read files back from disk: hypothesis draws files of lines
# from `tests.support.hostile_files` and checks what each command makes of them.

FILE_EXAMPLES = int(os.environ.get("JUDGEGRAPH_FUZZ_FILES", "60"))
results_files = st.lists(st.sampled_from(sorted(RESULTS_KINDS)), min_size=1, max_size=8)
labels_files = st.lists(st.sampled_from(sorted(LABELS_KINDS)), min_size=1, max_size=8)
UNSAFE_ON_SCREEN = ("\x1b", "\x07", "\r", "\u202e")


def run_command(argv: list[str]) -> tuple[int, str, str]:
    """Any judgegraph command in process; an exception here is the traceback being fuzzed for."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def refuse_constants(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


@settings(FUZZ, max_examples=FILE_EXAMPLES)
@seed(29)
@given(kinds=results_files)
def test_a_hostile_results_file_is_a_report_or_one_line_naming_its_first_bad_line(kinds):
    base = rag_record("r0", 0.5)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.jsonl"
        path.write_bytes(b"".join(results_line(kind, number, base) + b"\n" for number, kind in enumerate(kinds, 1)))
        first_error = next((n for n, kind in enumerate(kinds, 1) if RESULTS_KINDS[kind] == ERROR), None)
        records = sum(RESULTS_KINDS[kind] == RECORD for kind in kinds)
        for argv in (["report", str(path), "-o", str(Path(folder) / "r.html")],
                     ["compare", str(path), str(path), "--json", "--fail-if-worse", "faithfulness:0.0"]):
            code, out, err = run_command(argv)
            if first_error is not None:
                assert code == 2 and err.startswith(f"judgegraph: {path} line {first_error}: '"), (kinds, err)
                assert len(err.strip().splitlines()) == 1 and out == ""
                continue
            not_records = any(RESULTS_KINDS[kind] == NOT_A_RECORD for kind in kinds)
            if records == 0 and (argv[0] == "compare" or not_records):  # no results file: refused, one line
                assert code == 2 and ("not a judgegraph results file" in err or "is empty" in err), (kinds, err)
                continue
            assert code == 0, (kinds, argv[0], err)
            if argv[0] == "compare":
                data = json.loads(out, parse_constant=refuse_constants)
                assert data["before"]["records"] == len({k if k == "duplicate_id" else n
                                                          for n, k in enumerate(kinds) if RESULTS_KINDS[k] == RECORD})
                assert all(verdict["outcome"] == "ok" for verdict in data["gate"])  # a file against itself
            else:
                page = (Path(folder) / "r.html").read_text(encoding="utf-8")
                assert not any(char in page for char in UNSAFE_ON_SCREEN)
        if first_error is None and records:
            code, out, _ = run_command(["compare", str(path), str(path)])
            assert code == 0 and not any(char in out for char in UNSAFE_ON_SCREEN)


@settings(FUZZ, max_examples=FILE_EXAMPLES)
@seed(30)
@given(kinds=labels_files)
def test_a_hostile_labels_file_is_read_whole_or_refused_at_its_first_bad_line(kinds):
    expected_error: int | None = None
    seen_duplicate, fraction_line, labelled = False, None, 0
    for number, kind in enumerate(kinds, 1):
        if kind == "duplicate_id":
            if seen_duplicate and expected_error is None:
                expected_error = number
            seen_duplicate = True
        elif kind == "fraction_out_of_scale":
            fraction_line = fraction_line or number
        elif LABELS_KINDS[kind] == ERROR and expected_error is None:
            expected_error = number
        if LABELS_KINDS[kind] != BLANK:
            labelled += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.jsonl"
        path.write_bytes(b"".join(labels_line(kind, number) + b"\n" for number, kind in enumerate(kinds, 1)))
        try:
            labels = read_labels(path, "faithfulness")
        except LabelsError as error:
            message = str(error)
            assert len(message.splitlines()) == 1
            if expected_error is not None:
                assert message.startswith(f"labels.jsonl line {expected_error}: "), (kinds, message)
            elif labelled < 2:
                assert "labelled item(s)" in message, (kinds, message)
            else:
                assert fraction_line is not None and message.startswith(f"labels.jsonl line {fraction_line}: ")
            return
        assert expected_error is None and fraction_line is None and labelled >= 2, kinds
        assert len(labels.items) == labelled  # a raw U+2028 or U+0085 never cut a line in two
        assert all(math.isfinite(value) for value in labels.values)
