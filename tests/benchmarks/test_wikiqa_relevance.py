"""The WikiQA answer-relevance benchmark on a tiny made-up snapshot, never the real data.

The fixture is a bare git repository laid out like a fetched one (`<root>/<owner>+<name>/repo`)
holding two WikiQA-format files; the module's pinned commit is pointed at it, so the loader
reads through `benchmarks.fetched` exactly as on the real snapshot.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from benchmarks import wikiqa_relevance as wikiqa
from benchmarks.figures import ranking_figures
from benchmarks.split import part_of, rows_in_part, split_key
from judgegraph.run.context import JudgeContext
from tests.support import fakes

HEADER = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel"


def tsv(*questions: tuple[str, str, str, list[tuple[str, int]]]) -> str:
    lines = [HEADER]
    for question_id, question, title, sentences in questions:
        document = "D" + question_id[1:]
        for n, (sentence, label) in enumerate(sentences):
            lines.append(f"{question_id}\t{question}\t{document}\t{title}\t{document}-{n}\t{sentence}\t{label}")
    return "\n".join(lines) + "\n"


DEV = tsv(
    ("Q1", "how tall is the blue tower", "Blue Tower", [
        ("The Blue Tower is an office building in Exampleville .", 0),
        ("It is 212 metres tall .", 1),
        ("At 212 metres, it is the \"tallest\" building in the region .", 1),
        ("It was designed by the firm Stone and Glass .", 0),
    ]),
    ("Q2", "who founded the red guild", "Red Guild", [  # no answer sentence: no pair
        ("The Red Guild is a society of painters .", 0),
        ("Its hall is in the old town .", 0),
    ]),
    ("Q3", "when did the green river flood", "Green River", [
        ("The Green River flows through three provinces .", 0),
        ("It flooded in 1911 .", 1),
    ]),
)
TEST = tsv(
    ("Q4", "what is a silver fern", "Silver fern", [
        ("The silver fern is a tree fern native to an island nation .", 1),
        ("Its fronds are silver underneath .", 0),
        ("It grows up to ten metres tall .", 0),
    ]),
    ("Q5", "what does the golden gate span", "Golden gate", [  # only answers: no pair
        ("The golden gate spans the strait .", 1),
    ]),
)


@pytest.fixture
def snapshot(tmp_path, monkeypatch) -> Path:
    """A mirror root whose WikiQA snapshot holds DEV and TEST; the module reads it at its commit."""
    work = tmp_path / "work"
    (work / "WikiQACorpus").mkdir(parents=True)
    (work / "WikiQACorpus" / "WikiQA-dev.tsv").write_text(DEV, encoding="utf-8")
    (work / "WikiQACorpus" / "WikiQA-test.tsv").write_text(TEST, encoding="utf-8")
    git_dir = tmp_path / "mirror" / wikiqa.REPO.replace("/", "+") / "repo"

    def git(*args: str) -> str:
        done = subprocess.run(["git", "--git-dir", str(git_dir), "--work-tree", str(work), *args],
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    subprocess.run(["git", "init", "--bare", "-q", str(git_dir)], check=True)
    git("add", "-A")
    git("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "fixture")
    monkeypatch.setattr(wikiqa, "COMMIT", git("rev-parse", "HEAD"))
    return tmp_path / "mirror"


def test_the_loader_pairs_an_answer_with_a_non_answer_of_the_same_question(snapshot):
    rows = wikiqa.load_rows(snapshot)
    assert [row["id"] for row in rows] == [f"wikiqa_answer_relevance:{q}:{side}"
                                           for q in ("Q1", "Q3", "Q4") for side in ("pos", "neg")]
    sentences = {s["Sentence"]: int(s["Label"]) for text in (DEV, TEST) for s in wikiqa.read_sentences(text)}
    for positive, negative in zip(rows[::2], rows[1::2]):
        assert positive["meta"]["pair_id"] == negative["meta"]["pair_id"]
        assert positive["question"] == negative["question"] and positive["context"] == negative["context"]
        assert (positive["human"]["relevant"], negative["human"]["relevant"]) == (1, 0)
        assert sentences[positive["answer"]] == 1 and sentences[negative["answer"]] == 0
        assert positive["answer"] in positive["context"] and negative["answer"] in positive["context"]
    q1 = rows[0]
    assert q1["context"].startswith("The Blue Tower is") and q1["context"].endswith("Stone and Glass .")
    assert "\"tallest\"" in q1["context"]  # quotes are text, not CSV quoting
    assert rows[4]["meta"]["source"] == "WikiQACorpus/WikiQA-test.tsv"
    assert wikiqa.load_rows(snapshot) == rows  # the picks are fixed
    item = wikiqa.to_item(q1)
    assert item["metrics"] == ["answer_relevance"] and item["rubric"] == "rag" and item["answer"] == q1["answer"]


def test_a_missing_snapshot_says_how_to_get_it(tmp_path):
    from benchmarks.fetched import SnapshotMissing

    with pytest.raises(SnapshotMissing, match="fetch github:JasonRui/WikiQA-LSTM-Keras"):
        wikiqa.load_rows(tmp_path)


def test_the_split_keeps_pairs_whole_is_disjoint_and_does_not_depend_on_order():
    rows = [{"id": f"x:Q{n}:{side}", "meta": {"pair_id": f"Q{n}"}} for n in range(200) for side in ("pos", "neg")]
    parts = {part: rows_in_part(wikiqa.SET_NAME, rows, part) for part in ("tune", "report")}
    assert len(parts["tune"]) + len(parts["report"]) == len(rows)
    assert not {r["id"] for r in parts["tune"]} & {r["id"] for r in parts["report"]}
    assert 60 <= len(parts["report"]) // 2 <= 140  # about half of the 200 pairs
    for part, members in parts.items():
        pair_ids = [r["meta"]["pair_id"] for r in members]
        assert all(pair_ids.count(p) == 2 for p in pair_ids), part
    reversed_rows = list(reversed(rows))
    assert rows_in_part(wikiqa.SET_NAME, reversed_rows, "report") == list(reversed(parts["report"]))
    # the key is the pair, not the row's id; MS MARCO's key is as it was
    assert split_key(wikiqa.SET_NAME, {"id": "anything", "meta": {"pair_id": "Q7"}}) == "wikiqa_answer_relevance:Q7"
    assert split_key("msmarco_ctxrel", {"id": "a", "meta": {"pair_id": "q1"}}) == "msmarco_ctxrel:q1"


def test_pairwise_accuracy_and_auroc_match_hand_computed_values():
    scores = [(1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (0.75, 0.5)]  # a win, a tie, a loss, a win
    rows, flat = [], []
    for n, (positive, negative) in enumerate(scores):
        rows += [{"meta": {"pair_id": n}, "human": {"relevant": 1}}, {"meta": {"pair_id": n}, "human": {"relevant": 0}}]
        flat += [positive, negative]
    figures = ranking_figures(rows, flat)
    assert figures["pairs"] == 4
    assert figures["pairwise_accuracy"] == (1 + 0.5 + 0 + 1) / 4
    # AUROC over the 4 x 4 positive/negative comparisons, ties 1/2: 3.5 + 2 + 0.5 + 3 = 9 of 16
    assert figures["auroc"] == round(9 / 16, 3)
    for key in ("pairwise_accuracy_ci", "auroc_ci"):
        low, high = figures[key]
        assert 0.0 <= low <= figures[key.removesuffix("_ci")] <= high <= 1.0


def answer_in(prompt: str) -> str:
    return re.search(r"<answer>\n(.*?)\n</answer>", prompt, flags=re.DOTALL).group(1)


def test_both_methods_run_on_the_same_pairs_with_a_scripted_judge_and_resume(snapshot, tmp_path, capsys):
    answers = {s["Sentence"] for text in (DEV, TEST) for s in wikiqa.read_sentences(text) if s["Label"] == "1"}

    def answered(prompt: str) -> bool:
        return answer_in(prompt) in answers

    judge = fakes.judge(
        judge_answer_relevance=lambda prompt: fakes.answer_relevance(parts=[answered(prompt)]),
        BaselineJudgment=lambda prompt: {"reasoning": "r", "score": 0.9 if answered(prompt) else 0.2},
    )
    context = JudgeContext(model=judge, model_id="scripted")
    part = part_of(wikiqa.SET_NAME, {"id": "-", "meta": {"pair_id": "Q1"}}, 0)
    out = tmp_path / "out"
    argv = ["--part", part, "--limit", "0", "--mirror-root", str(snapshot), "--out-dir", str(out)]
    assert wikiqa.main(argv, context) == 0
    summary = json.loads(capsys.readouterr().out)
    pairs = len(rows_in_part(wikiqa.SET_NAME, wikiqa.load_rows(snapshot), part)) // 2
    assert summary["items"] == 2 * pairs >= 2
    for method in ("graph", "baseline"):
        figures = summary["methods"][method]
        assert figures["pairs"] == pairs and figures["pairwise_accuracy"] == 1.0 and figures["auroc"] == 1.0
        assert figures["failed"] == 0 and figures["calls_per_item"] == 1  # one judgment per item each
        records = [json.loads(line) for line in
                   (out / f"items-wikiqa_answer_relevance-{part}-{method}.jsonl").read_text().splitlines()]
        assert len(records) == 2 * pairs
    assert judge.count("judge_answer_relevance") == judge.count("BaselineJudgment") == 2 * pairs
    report = json.loads((out / f"agreement-wikiqa_answer_relevance-{part}.json").read_text())
    assert report["sets"][0]["data"].startswith("JasonRui/WikiQA-LSTM-Keras@")
    shown = judge.prompts_for("judge_answer_relevance") + judge.prompts_for("BaselineJudgment")
    assert sum("Stone and Glass" in prompt for prompt in shown) == 4  # Q1's paragraph, both sides, both methods
    # the same command again judges nothing new
    calls = len(judge.calls)
    assert wikiqa.main(argv, context) == 0
    assert len(judge.calls) == calls



def test_the_labels_reply_runs_beside_the_reasoned_one_on_the_same_pairs(snapshot, tmp_path, capsys):
    answers = {s["Sentence"] for text in (DEV, TEST) for s in wikiqa.read_sentences(text) if s["Label"] == "1"}

    def labels(prompt: str):
        sure = 0.9 if answer_in(prompt) in answers else 0.6  # both "answered": only the probabilities tell them apart
        return fakes.graded_answer_labels([sure], {"direct": 1.0})

    judge = fakes.judge(judge_answer_relevance=fakes.answer_relevance(), judge_answer_relevance_labels=labels)
    context = JudgeContext(model=judge, model_id="scripted")
    part = part_of(wikiqa.SET_NAME, {"id": "-", "meta": {"pair_id": "Q1"}}, 0)
    out = tmp_path / "out"
    argv = ["--part", part, "--limit", "0", "--mirror-root", str(snapshot), "--out-dir", str(out),
            "--methods", "graph,graph-labels"]
    assert wikiqa.main(argv, context) == 0
    summary = json.loads(capsys.readouterr().out)
    pairs = len(rows_in_part(wikiqa.SET_NAME, wikiqa.load_rows(snapshot), part)) // 2
    assert list(summary["methods"]) == ["graph", "graph-labels"]
    assert summary["methods"]["graph"]["pairwise_accuracy"] == 0.5  # the written labels tie every pair
    assert summary["methods"]["graph-labels"]["pairwise_accuracy"] == 1.0
    assert judge.count("judge_answer_relevance") == judge.count("judge_answer_relevance_labels") == 2 * pairs
    records = [json.loads(line) for line in
               (out / f"items-wikiqa_answer_relevance-{part}-graph-labels.jsonl").read_text().splitlines()]
    assert all(r["detail"]["judge_answer_relevance"]["reply"] == "labels" for r in records)
    assert context.profile.answer_relevance_parameters.reply == "reasoned"  # the run's own context is untouched


def test_the_pairs_of_a_part_become_a_grouped_labels_file_for_calibrate(snapshot, tmp_path):
    from benchmarks.calibration_labels import wikiqa_labelled_items
    from judgegraph.fitting.labels import read_labels

    part = part_of(wikiqa.SET_NAME, {"id": "-", "meta": {"pair_id": "Q1"}}, 0)
    items = wikiqa_labelled_items(part, None, snapshot)
    expected = rows_in_part(wikiqa.SET_NAME, wikiqa.load_rows(snapshot), part)
    assert [item["id"] for item in items] == [row["id"] for row in expected]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    labels = read_labels(path, "answer_relevance")
    assert labels.kind == "binary" and {entry.label for entry in labels.items} == {0.0, 1.0}
    assert all(entry.item["metrics"] == ["answer_relevance"] for entry in labels.items)
    assert labels.groups == {item["id"]: item["id"].split(":")[1] for item in items}
