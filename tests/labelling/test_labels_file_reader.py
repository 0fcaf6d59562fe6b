"""The labels file `judgegraph label` writes, read by every command: design line, skips,
undos, per-metric labels, and what is refused with its lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegraph.fitting.labels import LabelsError, read_labels
from judgegraph.schemas.labels_file import LabelsFileError, active_entries, human_for, read_labels_file

ITEM = {"question": "Capital of France?", "context": "Paris is the capital.", "answer": "Paris."}
DESIGN = {"design": {"kind": "stratified", "seed": 7, "results": "results.jsonl", "results_sha256": "ab" * 32,
                     "n_items": 40, "order": "seeded permutation", "metrics": ["faithfulness"],
                     "strata": [{"name": "low", "low": 0.0, "high": 0.5, "n_items": 10, "inclusion_probability": 0.5},
                                {"name": "high", "low": 0.5, "high": 1.0, "n_items": 30, "inclusion_probability": 0.1}]}}


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_page_file_with_design_skips_and_undos_gives_the_labels_that_stand(tmp_path):
    rows = [DESIGN,
            {"id": "a", "human": {"faithfulness": 1, "context_relevance": 0}, "stratum": "high", "position": 0, **ITEM},
            {"id": "b", "skipped": True, "position": 1},
            {"id": "c", "human": "no", "note": "made up", "stratum": "low", "position": 2, **ITEM},
            {"id": "c", "undo": True},
            {"id": "c", "human": "yes", "stratum": "low", "position": 2, **ITEM},
            {"id": "d", "human": 0, "position": 3, **ITEM},
            {"id": "d", "undo": True}]
    labels = read_labels_file(write(tmp_path / "labels.jsonl", rows))
    assert labels.design is not None and labels.design.kind == "stratified"
    assert [s.name for s in labels.design.strata] == ["low", "high"] and labels.design.strata_metric == "faithfulness"
    assert labels.design.stratum_of(0.5) == 1 and labels.design.stratum_of(1.0) == 1 and labels.design.stratum_of(0.2) == 0
    assert [(entry.id, entry.line) for entry in labels.labels] == [("a", 2), ("c", 6)]
    assert labels.skipped == ["b"] and labels.undone == 2
    assert human_for(labels.labels[0], "context_relevance") == 0 and human_for(labels.labels[1], "faithfulness") == "yes"
    assert labels.labels[0].item == ITEM and labels.labels[1].stratum == "low"


def test_calibrate_reads_a_page_file_for_the_metric_it_fits(tmp_path):
    rows = [DESIGN,
            {"id": "a", "human": {"faithfulness": 1, "context_relevance": 0}, **ITEM},
            {"id": "b", "skipped": True},
            {"id": "c", "human": "no", **ITEM}, {"id": "c", "undo": True}, {"id": "c", "human": True, **ITEM},
            {"id": "e", "human": {"faithfulness": 0, "context_relevance": 1}, "note": "wrong year", **ITEM}]
    path = write(tmp_path / "labels.jsonl", rows)
    faithfulness = read_labels(path, "faithfulness")
    assert [(e.id, e.label) for e in faithfulness.items] == [("a", 1.0), ("c", 1.0), ("e", 0.0)]
    assert set(faithfulness.items[0].item) == {*ITEM, "rubric", "metrics"}  # no note, stratum or position
    # the design names faithfulness: a bare label (line 4's) is not one for another metric
    with pytest.raises(LabelsError, match="line 4: its labels are for faithfulness, not context_relevance"):
        read_labels(path, "context_relevance")


def test_two_labels_for_one_id_are_refused_naming_both_lines(tmp_path):
    path = write(tmp_path / "labels.jsonl", [{"id": "a", "human": 1}, {"id": "b", "human": 0}, {"id": "a", "human": 0}])
    with pytest.raises(LabelsFileError, match=r"labels.jsonl line 3: id 'a' is labelled twice, on lines 1 and 3"):
        read_labels_file(path)


@pytest.mark.parametrize("rows, message", [
    ([{"id": "a", "human": 1}, DESIGN], "line 2: a design line must be the file's first line"),
    ([{"design": {"kind": "clustered"}}], "line 1: design kind must be one of uniform, stratified"),
    ([{"design": {"kind": "stratified", "metrics": ["faithfulness"]}}], "line 1: a stratified design must list"),
    ([{"design": {"kind": "uniform", "seed": 1.5}}], "line 1: design seed must be a whole number"),
    ([{"design": {"kind": "stratified", "metrics": ["f"], "strata": [{"name": "x", "low": 1, "high": 0}]}}],
     "line 1: design strata\\[0\\] needs numbers low <= high"),
])
def test_a_bad_design_is_one_line_naming_it(tmp_path, rows, message):
    with pytest.raises(LabelsFileError, match=message):
        read_labels_file(write(tmp_path / "labels.jsonl", rows))


def test_an_undo_with_nothing_to_cancel_is_noted_not_applied_to_another_id(tmp_path):
    labels = read_labels_file(write(tmp_path / "l.jsonl", [{"id": "a", "human": 1}, {"id": "b", "undo": True}]))
    assert [e.id for e in labels.labels] == ["a"] and labels.undone == 0
    assert labels.notes == ["l.jsonl line 2: undo of id 'b', which has no label above it: ignored"]


def test_active_entries_apply_undos_to_the_ids_last_entry():
    rows = [{"design": {}}, {"id": "a", "human": 1}, {"id": "b", "skipped": True}, {"id": "a", "undo": True},
            {"id": "c", "undo": True}, {"id": "a", "human": 0}, {"id": "b", "undo": True}]
    assert active_entries(rows) == [{"id": "a", "human": 0}]


actions = st.lists(st.tuples(st.sampled_from(["label", "skip", "undo"]), st.sampled_from("abc")), max_size=25)


@settings(max_examples=200, deadline=None)
@given(actions=actions)
def test_undo_cancels_the_last_word_on_its_id_and_the_rest_stands(tmp_path_factory, actions):
    """A model of the page: each id's words form a stack; an undo pops it. The file's reading
    is what the stacks hold at the end (a second standing label would be refused)."""
    stacks: dict[str, list[tuple[str, int]]] = {}
    rows, refused_at = [], None
    for number, (action, item_id) in enumerate(actions, 1):
        stack = stacks.setdefault(item_id, [])
        if action == "undo":
            rows.append({"id": item_id, "undo": True})
            if stack:
                stack.pop()
        elif action == "skip":
            rows.append({"id": item_id, "skipped": True})
            stack.append(("skip", number))
        else:
            rows.append({"id": item_id, "human": number % 2})
            if any(kind == "label" for kind, _ in stack) and refused_at is None:
                refused_at = number
            stack.append(("label", number))
    path = write(tmp_path_factory.mktemp("undo") / "labels.jsonl", rows)
    if refused_at is not None:
        with pytest.raises(LabelsFileError, match=f"line {refused_at}: id"):
            read_labels_file(path)
        return
    labels = read_labels_file(path)
    expected = sorted(number for stack in stacks.values() for kind, number in stack if kind == "label")
    assert [entry.line for entry in labels.labels] == expected
    assert all(entry.human == entry.line % 2 for entry in labels.labels)
