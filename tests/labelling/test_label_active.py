"""`judgegraph label --design active` through the CLI: the next item is drawn with a
probability growing with the judge's uncertainty, each label line records it, `estimate` reads
the draw (inverse-probability-weighted PPI), and `--target-width` says after each label how
many labels in all would give +-W (issue 55, item 4)."""

from __future__ import annotations

import json
import random

from tests.estimates.test_estimate_command import run
from tests.labelling.test_label_terminal import label, rows
from tests.support.labelling_results import results_record, scored_results, write_results


def _scores(n: int = 60) -> list[float]:
    rng = random.Random(7)
    return [round(rng.choice([rng.uniform(0, 0.1), rng.uniform(0.9, 1.0), rng.uniform(0.3, 0.7)]), 2)
            for _ in range(n)]


def test_active_labels_record_their_draw_and_estimate_reads_it(tmp_path):
    scores = _scores()
    results = scored_results(tmp_path / "results.jsonl", scores)
    labels = tmp_path / "labels.jsonl"
    answers = "".join(f"{int(s >= 0.5)}\n" for s in range(12))  # twelve labels, whatever they are
    proc = label(results, labels, answers + "q\n", "--metric", "faithfulness", "--seed", "4", "--design", "active",
                 "--target-width", "0.1")
    assert proc.returncode == 0, proc.stderr
    design, *entries = rows(labels)
    assert design["design"]["kind"] == "active" and design["design"]["weights"]["metric"] == "faithfulness"
    probabilities = [entry["inclusion_probability"] for entry in entries]
    assert len(entries) == 12 and all(0 < q <= 1 for q in probabilities)
    assert [entry["position"] for entry in entries] == list(range(12))
    # the running figure appears once ten labels stand
    assert proc.stdout.count(" now; ") == 3 and proc.stdout.count("for +-0.1") == 3
    # unsure items (scores 0.3..0.7) come first more often than their third of the batch
    drawn = {entry["id"] for entry in entries}
    by_id = {f"item-{n}": s for n, s in enumerate(scores)}
    unsure = sum(1 for i in drawn if i in by_id and 0.2 < by_id[i] < 0.8)
    assert unsure >= 5
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--json"])
    assert code == 0, err
    [row] = json.loads(out)
    assert row["design"] == "active" and row["n_labels"] == 12
    assert 0 <= row["corrected"]["low"] <= row["corrected"]["estimate"] <= row["corrected"]["high"] <= 1


def test_an_active_label_without_its_probability_is_refused_with_its_line(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", _scores(20))
    labels = tmp_path / "labels.jsonl"
    lines = [{"design": {"kind": "active", "metrics": ["faithfulness"]}}] + [
        {"id": f"item-{n}", "human": 1, "position": n, "inclusion_probability": 0.05} for n in range(11)] + [
        {"id": "item-11", "human": 0, "position": 11}]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness"])
    assert code == 2 and out == "" and "line 13" in err and "inclusion_probability" in err


def test_resuming_with_another_design_is_refused(tmp_path):
    results = scored_results(tmp_path / "results.jsonl", _scores(20))
    labels = tmp_path / "labels.jsonl"
    assert label(results, labels, "1\nq\n", "--metric", "faithfulness", "--design", "active").returncode == 0
    again = label(results, labels, "q\n", "--design", "uniform")
    assert again.returncode == 2 and "holds a active design" in again.stderr


def test_compare_corrects_each_run_on_its_own_active_draw(tmp_path):
    scores = _scores(60)
    worse = [max(0.0, round(s - 0.3, 2)) for s in scores]
    before = scored_results(tmp_path / "before.jsonl", scores)
    after = scored_results(tmp_path / "after.jsonl", worse)
    la, lb = tmp_path / "la.jsonl", tmp_path / "lb.jsonl"
    for results, labels, answer in ((before, la, "1\n"), (after, lb, "0\n")):
        proc = label(results, labels, answer * 6 + "1\n0\n" * 3 + "q\n", "--metric", "faithfulness", "--seed", "2",
                     "--design", "active")
        assert proc.returncode == 0, proc.stderr
    code, out, err = run(["compare", str(before), str(after), "--labels-a", str(la), "--labels-b", str(lb), "--json",
                          "--fail-if-worse", "faithfulness:0.02"])
    assert code in (0, 1), err
    corrected = next(m for m in json.loads(out)["metrics"] if m["metric"] == "faithfulness")["corrected"]
    assert corrected["paired"] is False and any("an active draw" in note for note in corrected["notes"])
    assert -1 <= corrected["corrected"]["low"] <= corrected["corrected"]["estimate"] <= corrected["corrected"]["high"] <= 1


def test_an_active_draw_is_blind_by_default_and_records_the_judge_when_shown(tmp_path):
    """Items 3 and 4 together: an active session labels blind (nothing of the judge's before
    "saved", though the running precision line shows), each line records its draw's q_k, and
    `--show-judge` records `judge_shown` beside it, the same draw, which `estimate` warns about."""
    results = scored_results(tmp_path / "results.jsonl", _scores(40))
    blind, shown = tmp_path / "blind.jsonl", tmp_path / "shown.jsonl"
    answers = "1\n0\n" * 6 + "q\n"
    proc = label(results, blind, answers, "--metric", "faithfulness", "--seed", "5", "--design", "active",
                 "--target-width", "0.1")
    assert proc.returncode == 0, proc.stderr
    first_item = proc.stdout.split("saved (1 labelled)", 1)[0]
    for judge_text in ("the answer's claims", "supported", "the judge's scores", "explanation"):
        assert judge_text not in first_item
    assert proc.stdout.count(" now; ") == 3  # the precision line, from the tenth label on
    proc = label(results, shown, answers, "--metric", "faithfulness", "--seed", "5", "--design", "active",
                 "--show-judge")
    assert proc.returncode == 0, proc.stderr
    assert "supported" in proc.stdout.split("faithfulness? ", 1)[0]
    blind_rows, shown_rows = rows(blind)[1:], rows(shown)[1:]
    assert len(blind_rows) == len(shown_rows) == 12
    assert all(0 < row["inclusion_probability"] <= 1 and "judge_shown" not in row for row in blind_rows)
    assert all(0 < row["inclusion_probability"] <= 1 and row["judge_shown"] is True for row in shown_rows)
    assert ([(row["id"], row["inclusion_probability"]) for row in blind_rows]
            == [(row["id"], row["inclusion_probability"]) for row in shown_rows])  # showing the judge draws alike
    code, out, err = run(["estimate", str(results), "--labels", str(blind), "--metric", "faithfulness", "--json"])
    assert code == 0 and json.loads(out)[0]["design"] == "active" and "in view" not in err, err
    code, out, err = run(["estimate", str(results), "--labels", str(shown), "--metric", "faithfulness", "--json"])
    assert code == 0, err
    assert json.loads(out)[0]["design"] == "active" and json.loads(out)[0]["n_labels"] == 12
    assert "12 of its 12 labels were made with the judge's verdicts in view" in err


def test_an_item_field_cannot_stand_for_the_draw_or_the_judge_shown(tmp_path):
    """An item of the results may hold fields named like the label line's own: they are not
    copied over the draw's q_k nor over a blind label's missing judge_shown."""
    records = [results_record(n, s) for n, s in enumerate(_scores(20))]
    for record in records:
        record["details"]["item"] |= {"inclusion_probability": 7, "judge_shown": True}
    results = write_results(tmp_path / "results.jsonl", records)
    labels = tmp_path / "labels.jsonl"
    proc = label(results, labels, "1\n0\nq\n", "--metric", "faithfulness", "--seed", "1", "--design", "active")
    assert proc.returncode == 0, proc.stderr
    written = rows(labels)[1:]
    assert len(written) == 2 and all(0 < row["inclusion_probability"] <= 1 and "judge_shown" not in row
                                     for row in written)
