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
import os
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from judgegraph.batch.summary import metric_values, record_failure
from judgegraph.commands import cli
from judgegraph.nodes import rubrics
from judgegraph.nodes.common.validate_input import choose_rubrics
from judgegraph.schemas.untrusted_json import loads_untrusted
from tests.support.exit_codes import exit_for_records, exit_for_result
from tests.support.fault_server import FaultServer
from tests.support.untrusted_fuzz import LINE_KINDS, MAX_LINE_BYTES, REPLY_KINDS, FuzzReplies, input_line

BATCH_EXAMPLES = int(os.environ.get("JUDGEGRAPH_FUZZ_BATCHES", "120"))
SINGLE_EXAMPLES = int(os.environ.get("JUDGEGRAPH_FUZZ_SINGLES", "100"))
"""Sized for CI (under 90 s together on a shared 2-core machine); raise them to fuzz longer."""

FUZZ = settings(derandomize=True, database=None, deadline=None, print_blob=True,
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
