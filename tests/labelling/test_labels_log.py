"""The labels file `judgegraph label` writes: appended and fsynced line by line, resumed where it
stopped, undo and skip as lines of their own, the order a seeded permutation whose prefixes are
uniform samples, the stratified design's counts and probabilities, and `calibrate`'s reading."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegraph.fitting.labels import LabelsError, read_labels
from judgegraph.labelling import labels_log
from judgegraph.labelling.design import UNSURE_OVERSAMPLING, build_design
from judgegraph.labelling.errors import LabellingError
from judgegraph.labelling.results_index import index_results
from judgegraph.labelling.session import start_session
from tests.support.labelling_results import results_record, scored_results, write_results

BOTH = {"faithfulness": 1, "context_relevance": 0, "answer_relevance": 1}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


_OPEN: dict[Path, object] = {}
"""The session last started on each test's labels file."""


def session(tmp_path: Path, scores: list[float | None], **kw):
    """A session on the test's results and labels file. A session holds its labels file (one
    writer at a time), so the one before it on the same file is closed first, as a person stops
    one `judgegraph label` before starting it again."""
    previous = _OPEN.pop(tmp_path, None)
    if previous is not None:
        previous.close()
    results = tmp_path / "results.jsonl"
    if not results.exists():
        scored_results(results, scores)
    kw.setdefault("metrics", None)
    kw.setdefault("stratified", None)
    kw.setdefault("seed", 7)
    started = start_session(results, tmp_path / "labels.jsonl", **kw)
    _OPEN[tmp_path] = started
    return started


def label_current(s, values=None, note=""):
    current = s.current()
    return s.label(current.position, current.record.id, values or BOTH, note)


def test_each_label_is_one_line_fsynced_before_the_call_returns(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(labels_log.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    s = session(tmp_path, [0.1, 0.9, 0.4])
    assert len(synced) >= 1  # the design line (and its directory)
    before = len(synced)
    row = label_current(s, note="  the 2nd claim is wrong ")
    assert len(synced) == before + 1
    written = lines(tmp_path / "labels.jsonl")
    assert written[0]["design"]["kind"] == "uniform" and written[0]["design"]["n_items"] == 3
    assert written[1] == row and row["human"] == BOTH and row["note"] == "the 2nd claim is wrong"
    assert row["position"] == 0 and row["rubric"] == "rag"
    assert {"question", "context", "answer", "reference"} <= set(row)
    assert "stratum" not in row


def test_one_metric_gives_a_bare_value(tmp_path):
    s = session(tmp_path, [0.1, 0.9], metrics=["faithfulness"])
    assert label_current(s, {"faithfulness": 0})["human"] == 0
    with pytest.raises(LabellingError, match="give one of 1, 0"):
        label_current(s, {"faithfulness": 2})


def test_a_new_session_resumes_at_the_next_unlabelled_item(tmp_path):
    s = session(tmp_path, [0.1, 0.9, 0.4, 0.6, 0.0])
    order = [r.id for r in s.design.order]
    label_current(s)
    label_current(s)
    again = session(tmp_path, [])
    assert again.current().position == 2 and again.current().record.id == order[2]
    assert again.labelled == 2
    label_current(again)
    assert [row["id"] for row in lines(tmp_path / "labels.jsonl")[1:]] == order[:3]


def test_skip_passes_an_item_and_undo_brings_back_the_last(tmp_path):
    s = session(tmp_path, [0.1, 0.9, 0.4])
    order = [r.id for r in s.design.order]
    label_current(s)
    current = s.current()
    s.skip(current.position, current.record.id)
    assert s.current().record.id == order[2] and s.skipped == 1
    assert s.undo() == order[1]  # the skip is cancelled: the skipped item comes back
    assert s.current().record.id == order[1]
    assert s.undo() == order[0]
    assert s.current().record.id == order[0] and s.labelled == 0
    assert s.undo() is None
    rows = lines(tmp_path / "labels.jsonl")[1:]
    assert rows[1] == {"id": order[1], "skipped": True, "position": 1}
    assert rows[2:] == [{"id": order[1], "undo": True}, {"id": order[0], "undo": True}]
    assert session(tmp_path, []).current().record.id == order[0]  # and so does a resumed session


def test_a_stale_label_is_refused_and_not_written(tmp_path):
    s = session(tmp_path, [0.1, 0.9])
    first = s.current()
    label_current(s)
    with pytest.raises(LabellingError, match="not the one to label now"):
        s.label(first.position, first.record.id, BOTH)
    assert len(lines(tmp_path / "labels.jsonl")) == 2


def test_changed_results_are_refused_on_resume(tmp_path):
    session(tmp_path, [0.1, 0.9])
    scored_results(tmp_path / "results.jsonl", [0.1, 0.8])
    with pytest.raises(LabellingError, match="was started on other results"):
        session(tmp_path, [])


def test_other_flags_on_resume_are_refused(tmp_path):
    session(tmp_path, [0.1, 0.9])
    with pytest.raises(LabellingError, match="resume it without --strata"):
        session(tmp_path, [], stratified=True)
    with pytest.raises(LabellingError, match="resume it without --seed"):
        session(tmp_path, [], seed=8)
    with pytest.raises(LabellingError, match="resume it without --metric"):
        session(tmp_path, [], metrics=["faithfulness"])


def test_a_cut_off_last_line_is_dropped_and_the_file_stays_appendable(tmp_path):
    s = session(tmp_path, [0.1, 0.9, 0.3])
    label_current(s)
    labels = tmp_path / "labels.jsonl"
    with labels.open("ab") as handle:
        handle.write(b'{"id": "item-2", "hum')  # a write the crash interrupted
    again = session(tmp_path, [])
    assert again.log.repaired_tail and again.labelled == 1
    label_current(again)
    assert [row.get("human") for row in lines(labels)[1:]] == [BOTH, BOTH]


@pytest.mark.parametrize("bom, newline", [(b"", b"\r\n"), (b"\xef\xbb\xbf", b"\n")])
def test_a_cut_off_last_line_is_cut_at_its_own_first_byte(tmp_path, bom, newline):
    """A file edited elsewhere (CRLF line ends, a byte-order mark): only the cut-off line goes,
    every whole line above it stays byte for byte."""
    s = session(tmp_path, [0.1, 0.9, 0.3])
    label_current(s)
    labels = tmp_path / "labels.jsonl"
    whole = bom + labels.read_bytes().replace(b"\n", newline)
    labels.write_bytes(whole + b'{"id": "item-2", "hum')
    again = session(tmp_path, [])
    assert again.log.repaired_tail and again.labelled == 1
    assert labels.read_bytes() == whole


def test_a_line_that_is_not_a_labels_line_is_named(tmp_path):
    session(tmp_path, [0.1])
    with (tmp_path / "labels.jsonl").open("a") as handle:
        handle.write('{"id": "x", "what": 1}\n')
    with pytest.raises(LabellingError, match="line 2: neither a label"):
        session(tmp_path, [])


def test_records_without_details_or_scores(tmp_path):
    results = write_results(tmp_path / "results.jsonl",
                            [results_record(0, 0.5), results_record(1, 0.5, with_details=False)])
    with pytest.raises(LabellingError, match=r"1 judged record\(s\) hold no item to show \(lines 2\): judge with --details"):
        start_session(results, tmp_path / "labels.jsonl", metrics=None, stratified=None, seed=1)
    failed = write_results(tmp_path / "failed.jsonl", [
        results_record(0, 0.5), results_record(1, None, None, None, with_details=False, error="judge down")])
    s = start_session(failed, tmp_path / "labels2.jsonl", metrics=None, stratified=None, seed=1)
    assert s.n_items == 1  # a record with no judged metric is not labelled, and needs no item
    twice = write_results(tmp_path / "twice.jsonl", [results_record(0, 0.5), results_record(0, 0.7)])
    with pytest.raises(LabellingError, match="lines 1 and 2 hold the same id 'item-0'"):
        start_session(twice, tmp_path / "labels3.jsonl", metrics=None, stratified=None, seed=1)


def test_every_prefix_is_a_uniform_sample(tmp_path):
    """Over seeds, each item is first (and in the first 3) equally often: a chi-square check
    far from its critical value, for a permutation whose prefixes are uniform samples."""
    index = index_results(scored_results(tmp_path / "r.jsonl", [0.1 * n for n in range(6)]))
    firsts, first_three = Counter(), Counter()
    draws = 3000
    for seed in range(draws):
        order = [r.id for r in build_design(index, ["faithfulness"], "uniform", seed).order]
        assert sorted(order) == sorted(r.id for r in index.records)
        firsts[order[0]] += 1
        first_three.update(order[:3])
    for counts, per_draw in ((firsts, 1), (first_three, 3)):
        expected = draws * per_draw / 6
        chi2 = sum((counts[r.id] - expected) ** 2 / expected for r in index.records)
        assert chi2 < 20.5  # chi-square, 5 degrees of freedom, p = 0.001
    assert [r.id for r in build_design(index, ["faithfulness"], "uniform", 4).order] == \
        [r.id for r in build_design(index, ["faithfulness"], "uniform", 4).order]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=1, max_size=40), st.integers(0, 2**31))
def test_stratified_counts_follow_the_recorded_probabilities(tmp_path_factory, scores, seed):
    tmp = tmp_path_factory.mktemp("strata")
    index = index_results(scored_results(tmp / "r.jsonl", scores))
    if all(score is None for score in scores):
        with pytest.raises(LabellingError, match="no record has a judged faithfulness"):
            build_design(index, ["faithfulness"], "stratified", seed)
        return
    design = build_design(index, ["faithfulness"], "stratified", seed)
    strata = {s["name"]: s for s in design.header["strata"]}
    judged = [s for s in scores if s is not None]
    assert design.header["n_items"] == len(judged) == len(design.order)
    expect = {"low": sum(s < 0.25 for s in judged), "unsure": sum(0.25 <= s <= 0.75 for s in judged),
              "high": sum(s > 0.75 for s in judged)}
    assert {name: s["n_items"] for name, s in strata.items()} == {k: v for k, v in expect.items() if v}
    assert sum(s["n_items"] * s["inclusion_probability"] for s in strata.values()) == pytest.approx(1.0)
    if "unsure" in strata and "low" in strata:
        assert strata["unsure"]["inclusion_probability"] == pytest.approx(
            UNSURE_OVERSAMPLING * strata["low"]["inclusion_probability"])
    for position, (record, name) in enumerate(zip(design.order, design.strata)):
        stratum = strata[name]
        assert stratum["low"] <= record.scores["faithfulness"] <= stratum["high"]
    # every prefix of n labels: each open stratum holds its share n x N_h x p_h, within one label
    taken = Counter()
    for n, name in enumerate(design.strata, 1):
        taken[name] += 1
        full = {h for h in strata if taken[h] >= strata[h]["n_items"]}
        if full:
            continue  # after a stratum is used up the others share its labels
        for h, s in strata.items():
            assert abs(taken[h] - n * s["n_items"] * s["inclusion_probability"]) <= 1.0 + 1e-9


def test_within_a_stratum_the_order_is_uniform(tmp_path):
    index = index_results(scored_results(tmp_path / "r.jsonl", [0.5, 0.5, 0.5, 0.5, 0.0, 1.0]))
    firsts = Counter()
    for seed in range(2000):
        design = build_design(index, ["faithfulness"], "stratified", seed)
        firsts[next(r.id for r, name in zip(design.order, design.strata) if name == "unsure")] += 1
    assert set(firsts) == {"item-0", "item-1", "item-2", "item-3"}
    chi2 = sum((count - 500) ** 2 / 500 for count in firsts.values())
    assert chi2 < 16.3  # 3 degrees of freedom, p = 0.001


def test_calibrate_reads_the_labels_file(tmp_path):
    s = session(tmp_path, [0.1, 0.9, 0.4, 0.6])
    label_current(s, {"faithfulness": 1, "context_relevance": 1, "answer_relevance": 1})
    label_current(s, {"faithfulness": 0, "context_relevance": 1, "answer_relevance": 1})
    current = s.current()
    s.skip(current.position, current.record.id)
    label_current(s, {"faithfulness": 1, "context_relevance": 0, "answer_relevance": 1})
    s.undo()  # the third label is cancelled
    labels = read_labels(tmp_path / "labels.jsonl", "faithfulness")
    order = [r.id for r in s.design.order]
    assert [(e.id, e.label) for e in labels.items] == [(order[0], 1.0), (order[1], 0.0)]
    item = labels.items[0].item
    assert item["metrics"] == ["faithfulness"] and item["rubric"] == "rag" and "position" not in item
    assert [e.label for e in read_labels(tmp_path / "labels.jsonl", "context_relevance").items] == [1.0, 1.0]


def test_calibrate_refuses_a_metric_the_file_does_not_label(tmp_path):
    s = session(tmp_path, [0.1, 0.9], metrics=["context_relevance"])
    label_current(s, {"context_relevance": 1})
    label_current(s, {"context_relevance": 0})
    with pytest.raises(LabelsError, match="its labels are for context_relevance, not faithfulness"):
        read_labels(tmp_path / "labels.jsonl", "faithfulness")


def test_an_items_file_given_as_results_is_named(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text('{"question": "q", "context": "c", "answer": "a"}\n' * 3, encoding="utf-8")
    with pytest.raises(LabellingError, match=r"is not a judgegraph results file: none of its 3 line\(s\)"):
        start_session(items, tmp_path / "labels.jsonl", metrics=None, stratified=None, seed=1)
    assert not (tmp_path / "labels.jsonl").exists()  # nothing is created for a refused start


def test_a_record_with_an_impossible_score_is_refused_with_its_line(tmp_path):
    bad = results_record(1, 0.5)
    bad["result"]["faithfulness"] = 7.0
    results = write_results(tmp_path / "results.jsonl", [results_record(0, 0.5), bad])
    with pytest.raises(LabellingError, match=r"line 2: 'result.faithfulness' should be less than or equal to 1, got 7.0"):
        start_session(results, tmp_path / "labels.jsonl", metrics=None, stratified=None, seed=1)
