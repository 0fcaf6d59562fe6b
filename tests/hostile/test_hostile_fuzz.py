"""Property-based fuzzing of hostile judges (issue #29), beside tests/hostile/test_untrusted_fuzz.py:
hypothesis draws replies that parse but must not count (lax types, repeated keys, refusals, tool
calls, huge invalid replies: `tests.support.hostile_fuzz`) and valid replies delivered badly
(trickled bytes, gzip, a gzip bomb, an oversized body), the real CLI runs a batch against the
fake server on 127.0.0.1, and these hold:

- the invariants of the untrusted-input fuzz suite (one record per line, known shapes, strict
  JSON, numbers in scale, calls counted = requests served, no traceback);
- a judge that sends only lax replies never produces a score: every rag metric is null;
- a repair request never quotes more than a bounded slice of a bad reply;
- every attempt ends within its deadline: a run of trickled replies ends in bounded time.

Derandomised (fixed seed, no example database); sized for CI.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import given, seed, settings
from hypothesis import strategies as st

from judgegraph.batch.summary import metric_values
from judgegraph.llm.bounded_http import MAX_REPLY_BYTES
from judgegraph.llm.structured import REPAIR_QUOTE_CHARS
from tests.support.exit_codes import exit_for_records
from tests.support.fault_server import FaultServer
from tests.support.hostile_fuzz import DELIVERIES, HOSTILE_KINDS, LAX_KINDS, HostileReplies
from tests.support.untrusted_fuzz import ITEMS
from tests.hostile.test_untrusted_fuzz import FUZZ, assert_result_holds, run, server_flags

EXAMPLES = int(os.environ.get("JUDGEGRAPH_HOSTILE_FUZZ", "15"))

hostile_kinds = st.lists(st.sampled_from(HOSTILE_KINDS), min_size=1, max_size=4)
lax_kinds = st.lists(st.sampled_from(LAX_KINDS), min_size=1, max_size=4)
deliveries = st.lists(st.sampled_from(DELIVERIES), min_size=0, max_size=3)
rubric_lists = st.lists(st.sampled_from(sorted(ITEMS)), min_size=1, max_size=3)


def _batch(rubric_names: list[str], replies: HostileReplies, script: list[str]) -> tuple[list[dict], int]:
    with tempfile.TemporaryDirectory() as folder:
        items, out = Path(folder) / "items.jsonl", Path(folder) / "out.jsonl"
        items.write_text("".join(json.dumps({"id": f"{name}-{n}", **ITEMS[name]}) + "\n"
                                 for n, name in enumerate(rubric_names)), encoding="utf-8")
        with FaultServer(reply=replies, script=script, trickle_seconds=0.05,
                         bomb_bytes=MAX_REPLY_BYTES + 1) as server:
            code, stdout, stderr, logged = run([str(items), "--out", str(out), "--timeout", "1",
                                                *server_flags(server)])
            requests = server.requests
        assert "Traceback" not in stderr and not logged, (stderr[-2000:], logged)
        records = [json.loads(line) for line in out.read_bytes().splitlines()]
        assert code == exit_for_records(records), stderr[-2000:]  # 1 when nothing was judged
    ids = Counter(record["id"] for record in records)
    assert sorted(ids) == sorted(f"{name}-{n}" for n, name in enumerate(rubric_names)), ids
    for record in records:
        assert "internal_error" not in record, record["internal_error"]
        assert_result_holds(record["rubric"], record["result"], judged=True)
    assert sum(record["usage"]["calls"] for record in records) == requests
    return records, requests


@settings(FUZZ, max_examples=EXAMPLES)
@seed(29)
@given(names=rubric_lists, kinds=hostile_kinds, script=deliveries)
def test_hostile_replies_and_deliveries_keep_every_line_and_every_bound(names, kinds, script):
    replies = HostileReplies(kinds, salt=len(names))
    _batch(names, replies, script)
    # a repair quotes at most a slice of the bad reply (plus the prompt it repeats)
    assert replies.largest_request < 60_000 + 2 * REPAIR_QUOTE_CHARS


@settings(FUZZ, max_examples=EXAMPLES)
@seed(30)
@given(kinds=lax_kinds)
def test_a_judge_that_only_sends_lax_replies_never_scores(kinds):
    records, _ = _batch(["rag"], HostileReplies(kinds), [])
    assert all(value is None for _, value in metric_values(records[0])), records[0]["result"]
