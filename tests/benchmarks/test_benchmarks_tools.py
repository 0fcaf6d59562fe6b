"""The benchmark harness's own tools: the fixed tune/report split, the figures' intervals,
resumable per-item files, and `benchmarks.compare`. No real benchmark runs here."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks import compare
from benchmarks.datasets import DEFAULT_DATA_ROOT, SETS, load_rows, sample_path, select_rows
from benchmarks.figures import binary_figures
from benchmarks.judging import ItemOutcome, run_method
from benchmarks.split import HALUEVAL_PRETUNED_ROWS, PARTS, part_of, rows_in_part
from judgegraph.run.context import JudgeContext
from tests.support import fakes

HAVE_SAMPLES = all(sample_path(name).is_file() for name in SETS)
needs_samples = pytest.mark.skipif(not HAVE_SAMPLES, reason=f"bench-data samples not found under {DEFAULT_DATA_ROOT}")


# --- the split ------------------------------------------------------------------------------

@needs_samples
@pytest.mark.parametrize("name", list(SETS))
def test_the_split_is_disjoint_complete_and_deterministic(name):
    rows = load_rows(sample_path(name))
    tune, report = rows_in_part(name, rows, "tune"), rows_in_part(name, rows, "report")
    tune_ids, report_ids = {r["id"] for r in tune}, {r["id"] for r in report}
    assert tune and report  # both parts non-empty
    assert not tune_ids & report_ids
    assert tune_ids | report_ids == {r["id"] for r in rows}
    assert [r["id"] for r in rows_in_part(name, rows, "report")] == [r["id"] for r in report]
    assert len(tune) + len(report) == len(rows)


@needs_samples
@pytest.mark.parametrize("name", [n for n in SETS if n != "halueval_qa"])
def test_the_split_does_not_depend_on_file_order(name):
    rows = load_rows(sample_path(name))
    shuffled = rows[:]
    random.Random(7).shuffle(shuffled)
    assert ({r["id"] for r in rows_in_part(name, shuffled, "report")}
            == {r["id"] for r in rows_in_part(name, rows, "report")})


@needs_samples
def test_ms_marco_pairs_are_never_split():
    rows = load_rows(sample_path("msmarco_ctxrel"))
    parts: dict[str, set[str]] = {}
    for position, row in enumerate(rows):
        parts.setdefault(row["meta"]["pair_id"], set()).add(part_of("msmarco_ctxrel", row, position))
    assert parts and all(len(found) == 1 for found in parts.values())
    assert {next(iter(found)) for found in parts.values()} == set(PARTS)


@needs_samples
def test_halueval_rows_tuned_on_before_the_split_are_tune_rows():
    rows = load_rows(sample_path("halueval_qa"))
    assert all(part_of("halueval_qa", row, n) == "tune" for n, row in enumerate(rows[:HALUEVAL_PRETUNED_ROWS]))
    report_ids = {r["id"] for r in rows_in_part("halueval_qa", rows, "report")}
    assert not report_ids & {r["id"] for r in rows[:HALUEVAL_PRETUNED_ROWS]}
    assert any(part_of("halueval_qa", row, n) == "report" for n, row in enumerate(rows) if n >= HALUEVAL_PRETUNED_ROWS)


@needs_samples
@pytest.mark.parametrize("part", PARTS)
def test_selected_rows_come_from_the_asked_part(part):
    for name, bench in SETS.items():
        rows = load_rows(sample_path(name))
        allowed = {r["id"] for r in rows_in_part(name, rows, part)}
        chosen = select_rows(rows, bench, 10, part)
        assert chosen and {r["id"] for r in chosen} <= allowed


def test_the_key_of_a_row_is_its_id_or_its_pair():
    one = {"id": "x:1", "meta": {"pair_id": "q1"}}
    two = {"id": "x:2", "meta": {"pair_id": "q1"}}
    assert part_of("msmarco_ctxrel", one, 5) == part_of("msmarco_ctxrel", two, 6)
    assert part_of("stsb", one, 0) == part_of("stsb", one, 99)  # position only matters for HaluEval
    assert part_of("halueval_qa", one, 0) == "tune"


# --- intervals in the figures ---------------------------------------------------------------------

def test_figures_carry_intervals_around_their_values():
    rows = [{"human": {"hallucination": "yes" if n % 2 else "no"}} for n in range(20)]
    scores = [0.2 if n % 2 else 1.0 for n in range(20)]
    scores[1], scores[2] = 1.0, 0.3  # one miss each way
    figures = binary_figures(rows, scores)
    for key in ("balanced_accuracy", "balanced_accuracy_05", "auroc"):
        low, high = figures[f"{key}_ci"]
        assert low <= figures[key] <= high, key
    assert figures["balanced_accuracy_05"] == 0.9 and figures["balanced_accuracy"] == 0.9


# --- resumable per-item files ---------------------------------------------------------------------

def faithfulness_item(answer: str) -> dict:
    return {"rubric": "rag", "question": "Who founded Craigslist?", "metrics": ["faithfulness"],
            "context": "Craigslist was founded in 1995 by Craig Newmark.", "answer": answer}


def test_a_resumed_run_judges_only_the_missing_items(tmp_path):
    path = tmp_path / "items-halueval_qa-report-graph.jsonl"
    done = ItemOutcome("a", 0.25, False, None, calls=7, detail={"note": "from an earlier run"})
    path.write_text(json.dumps({"method": "graph", **done.to_json()}) + "\n"
                    + '{"method": "graph", "id": "b", "sco', encoding="utf-8")  # a kill mid-write
    model = fakes.judge(check_claim=fakes.verdict("supported", 1))
    context = JudgeContext(model=model, model_id="scripted")
    items = [("a", faithfulness_item("Craig Newmark founded Craigslist in Zanzibar.")),
             ("b", faithfulness_item("Craig Newmark founded Craigslist.")),
             ("c", faithfulness_item("Craigslist was founded in 1995."))]
    outcomes, _ = run_method("graph", context, "faithfulness", items, items_path=path)
    assert [o.id for o in outcomes] == ["a", "b", "c"]
    assert outcomes[0] == done  # reused as written, not judged again
    assert outcomes[1].score == 1.0 and outcomes[2].score == 1.0
    assert model.count("check_claim") == 2
    assert not any("Zanzibar" in prompt for prompt in model.prompts_for("check_claim"))
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["id"] for r in records) == ["a", "b", "c"]  # each id once, the partial line cut
    assert all(r["method"] == "graph" for r in records)
    fresh = next(r for r in records if r["id"] == "b")
    assert fresh["detail"]["claims"][0]["verdict"] == "supported" and fresh["calls"] == 1

    again, _ = run_method("graph", context, "faithfulness", items, items_path=path)
    assert [o.score for o in again] == [0.25, 1.0, 1.0] and model.count("check_claim") == 2


def test_without_an_items_file_every_item_is_judged(tmp_path):
    model = fakes.judge(check_claim=fakes.verdict("not-in-context", 0))
    outcomes, seconds = run_method("graph", JudgeContext(model=model, model_id="scripted"), "faithfulness",
                                   [("x", faithfulness_item("Craig Newmark founded Craigslist."))])
    assert outcomes[0].score == 0.0 and not outcomes[0].failed and seconds >= 0


def test_item_outcomes_round_trip_and_ignore_unknown_keys():
    outcome = ItemOutcome("id", None, True, "boom", 1, 2, 3, 0.5, {"k": 1})
    assert ItemOutcome.from_json(outcome.to_json() | {"method": "graph"}) == outcome
    assert ItemOutcome.from_json({"id": "old", "score": 0.5, "failed": False}).detail is None


# --- benchmarks.compare ---------------------------------------------------------------------------

def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def data_root(tmp_path) -> Path:
    root = tmp_path / "bench-data"
    write_jsonl(root / "halueval_qa" / "sample.jsonl", [
        {"id": f"halueval_qa:{n}", "human": {"hallucination": "yes" if n % 2 else "no"}} for n in range(4)])
    write_jsonl(root / "msmarco_ctxrel" / "sample.jsonl", [
        {"id": f"msmarco_ctxrel:q{q}:{kind}", "meta": {"pair_id": f"q{q}"}, "human": {"relevant": int(kind == "pos")}}
        for q in range(2) for kind in ("pos", "neg")])
    write_jsonl(root / "stsb" / "sample.jsonl", [
        {"id": f"stsb:{n}", "human": {"score_0_1": n / 4}} for n in range(3)])
    return root


def test_compare_lists_fixed_and_broken_items(tmp_path, data_root, capsys):
    # truth: 0 faithful, 1 hallucinated, 2 faithful, 3 hallucinated; flag = score < 0.5
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": "halueval_qa:0", "score": 0.2}, {"id": "halueval_qa:1", "score": 0.1},
                                           {"id": "halueval_qa:2", "score": 0.9}, {"id": "halueval_qa:3", "score": None}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "halueval_qa:0", "score": 0.8}, {"id": "halueval_qa:1", "score": 0.7},
                                           {"id": "halueval_qa:2", "score": 0.9}, {"id": "halueval_qa:3", "score": 0.0}])
    assert compare.main([str(a), str(b), "--data-root", str(data_root)]) == 0
    out = capsys.readouterr().out
    assert "halueval_qa: 4 items in both; B fixes 1, breaks 1" in out
    assert "fixed by B: halueval_qa:0 (faithful): 0.20 -> 0.80" in out
    assert "broken by B: halueval_qa:1 (hallucinated): 0.10 -> 0.70" in out
    assert "halueval_qa:2" not in out and "halueval_qa:3" not in out  # unchanged, or not judged by A
    assert compare.main([str(a), str(b), "--data-root", str(data_root), "--threshold", "0.15"]) == 0
    assert "B fixes 0, breaks 1" in capsys.readouterr().out  # item 0 is right either way at 0.15


def test_compare_orders_ms_marco_pairs(tmp_path, data_root, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [
        {"id": "msmarco_ctxrel:q0:pos", "score": 0.2}, {"id": "msmarco_ctxrel:q0:neg", "score": 0.6},
        {"id": "msmarco_ctxrel:q1:pos", "score": 0.9}, {"id": "msmarco_ctxrel:q1:neg", "score": 0.1}])
    b = write_jsonl(tmp_path / "b.jsonl", [
        {"id": "msmarco_ctxrel:q0:pos", "score": 0.7}, {"id": "msmarco_ctxrel:q0:neg", "score": 0.6},
        {"id": "msmarco_ctxrel:q1:pos", "score": 0.5}, {"id": "msmarco_ctxrel:q1:neg", "score": 0.5}])
    assert compare.main([str(a), str(b), "--data-root", str(data_root)]) == 0
    out = capsys.readouterr().out
    assert "B fixes 1, breaks 1" in out
    assert "fixed by B: q0 (pair): 0.00 -> 1.00" in out and "broken by B: q1 (pair): 1.00 -> 0.50" in out


def test_compare_lists_the_largest_similarity_changes(tmp_path, data_root, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": f"stsb:{n}", "score": 0.5} for n in range(3)])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "stsb:0", "score": 0.5}, {"id": "stsb:1", "score": 0.9},
                                           {"id": "stsb:2", "score": 0.3}])
    assert compare.main([str(a), str(b), "--data-root", str(data_root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "stsb: 3 items in both; largest score changes (B - A):"
    assert lines[1] == "  stsb:1: 0.50 -> 0.90 (human 0.25)" and lines[2] == "  stsb:2: 0.50 -> 0.30 (human 0.50)"


def test_compare_with_nothing_in_common_is_a_usage_error(tmp_path, data_root, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": "halueval_qa:0", "score": 0.2}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "halueval_qa:1", "score": 0.2}])
    assert compare.main([str(a), str(b), "--data-root", str(data_root)]) == 2
    assert "share no item id" in capsys.readouterr().err


def test_text_segmenters_reads_nli_rows_and_scores_grounding(tmp_path, capsys):
    """The segmenter benchmark: entailed rows against each comparison, the shipped tokens
    ground a faithful Chinese hypothesis, and a missing data file is reported, not raised."""
    from benchmarks import text_segmenters

    rows = [
        {"sentence1": "这家公司总部设在上海。", "sentence2": "公司总部在上海。", "label": "entailment"},
        {"sentence1": "他在北京工作了十年。", "sentence2": "他在北京工作。", "label": "entailment"},
        {"sentence1": "他在北京工作了十年。", "sentence2": "他从没去过北京。", "label": "contradiction"},
        {"sentence1": "这家公司总部设在上海。", "sentence2": "公司有五千名员工。", "label": "neutral"},
    ]
    (tmp_path / "zh-ocnli-dev-sample500.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    loaded = text_segmenters.load_rows(tmp_path / "zh-ocnli-dev-sample500.jsonl")
    assert [y for *_, y in text_segmenters.load_pairs(loaded, "neutral")] == [True, True, False]
    shifted = text_segmenters.load_pairs(loaded, "other premise")
    assert shifted[2] == (rows[1]["sentence1"], rows[0]["sentence2"], False)
    shipped = text_segmenters.candidates("zh")["chars (shipped)"]
    assert text_segmenters.grounding(shipped, "公司总部在上海。", "这家公司总部设在上海。") == 1.0
    assert text_segmenters.grounding(text_segmenters._whitespace, "公司总部在上海。", "这家公司总部设在上海。") == 0.0
    assert text_segmenters.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| zh | chars (shipped) | neutral | 2/1 |" in out and "missing" in out


def test_french_and_korean_nli_pairs_parse_their_files_and_keep_two_labels(monkeypatch):
    """RTE3-FR's TSV and KLUE-NLI's JSON read as the other languages' pairs: the people's label,
    the file's own id, and neutral pairs left out when pairs are chosen (alternating labels)."""
    from benchmarks import calibration_labels, multilingual_faithfulness as nli

    rte3 = ("id\tlanguage\tpremise\thypothesis\tlabel\tlabel_text\ttask\tlength\n"
            "1\tfr\tLe \"Boucher\" a été réalisé par Chabrol.\tChabrol a réalisé un film.\t0\tentailment\tIE\tshort\n"
            "2\tfr\tLe Boucher a été réalisé par Chabrol.\tChabrol n'a jamais réalisé de film.\t2\tcontradiction\tIE\tshort\n"
            "3\tfr\tLe Boucher a été réalisé par Chabrol.\tChabrol est né à Paris.\t1\tneutral\tIE\tshort\n")
    fr = nli.rte3_fr_pairs(rte3)
    assert fr[0] == {"id": "1", "premise": 'Le "Boucher" a été réalisé par Chabrol.',
                     "hypothesis": "Chabrol a réalisé un film.", "label": "entailment"}
    assert [p["label"] for p in fr] == ["entailment", "contradiction", "neutral"]

    klue = json.dumps([
        {"guid": "klue-nli-v1_dev_00000", "source": "airbnb", "premise": "발코니에서 흡연이 가능합니다.",
         "hypothesis": "어떤 방에서도 흡연은 금지됩니다.", "gold_label": "contradiction", "author": "contradiction",
         "label2": "contradiction", "label3": "neutral", "label4": "contradiction", "label5": "contradiction"},
        {"guid": "klue-nli-v1_dev_00001", "source": "airbnb", "premise": "10명이 함께 사용하기 불편함없이 만족했다.",
         "hypothesis": "10명이 함께 사용하기에 만족스러웠다.", "gold_label": "entailment", "author": "entailment",
         "label2": "entailment", "label3": "entailment", "label4": "entailment", "label5": "entailment"},
    ], ensure_ascii=False)
    ko = nli.klue_nli_pairs(klue)
    assert [(p["id"], p["label"]) for p in ko] == [("klue-nli-v1_dev_00000", "contradiction"),
                                                    ("klue-nli-v1_dev_00001", "entailment")]

    monkeypatch.setitem(nli.LOADERS, "fr", lambda root: fr)
    monkeypatch.setattr("benchmarks.multilingual_faithfulness.part_of", lambda *args: "report")
    chosen = nli.chosen_pairs("fr", Path("/nowhere"), "report", 10)
    assert [p["id"] for p in chosen] == ["1", "2"]  # the neutral pair is left out
    item = nli.item_for("fr", chosen[0])
    assert item["question"] == "Que dit le texte ?" and item["context"] == fr[0]["premise"]
    assert nli.item_for("ko", ko[0])["language"] == "ko" and nli.QUESTIONS["ko"]
    assert {"nli-fr", "nli-ko"} <= set(calibration_labels.NLI_SETS)
