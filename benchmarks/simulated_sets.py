"""The bench sets the simulated judge is run on: their rows, items, people's labels and truths.

Each set is read where its own benchmark reads it (nothing is copied into the project), with
that benchmark's row choice (`select_rows` and the tune / report split of `benchmarks.split`),
and says for every row:
- the judgegraph item (the set's own `to_item`: one metric per set);
- the `SimulatedRow` the judge knows (its `truth`, `benchmarks.simulated_judge`);
- people's label as one "good" bool (faithful, relevant, similar), so the judge's own
  item-level decision, judgegraph's and people's are compared alike.

The sets: HaluEval unseen rows (`benchmarks.regression`'s 300), FaithBench, MS MARCO (context
relevance), WikiQA (answer relevance), STS-B (similarity: good iff people's 0-5 score >= 2.5;
the judge's truth is that score rounded half up), the NLI pairs of
`benchmarks.multilingual_faithfulness` (every language, `--rows` split evenly between them),
and the paraphrase probes of issue #30 (`tests/nodes/claims/test_grounding.py`: per language a
faithful paraphrase, and twins naming someone the context never names or another number).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.datasets import SETS, hallucinated, load_rows, sample_path, select_rows
from benchmarks.simulated_judge import SimulatedRow


@dataclass(frozen=True)
class SimulatedCase:
    """One row of a set: its id, the item judged, what the judge knows, people's verdict."""

    id: str
    item: dict
    row: SimulatedRow
    good: bool


@dataclass(frozen=True)
class SimulatedSet:
    """A set: the metric it judges, the judge's step that decides it, and its cases."""

    name: str
    metric: str
    step: str
    """The simulated judge's step whose decision is the judge's own item-level verdict."""
    decision: str
    """How judgegraph's item-level verdict is read: "claims" (`benchmarks.figures.flagged`,
    the HaluEval and FaithBench benchmarks' rule) or "score" (good iff score >= 0.5)."""
    load: Callable[[int, str, "SetPaths"], list[SimulatedCase]]


@dataclass(frozen=True)
class SetPaths:
    """Where the data sets are: bench-data samples, the unseen HaluEval rows, snapshots."""

    data_root: Path
    unseen_data: Path
    mirror_root: Path


def _row(row: dict, truth: dict, item: dict) -> SimulatedRow:
    return SimulatedRow(row["id"], item.get("question"), item.get("context"), item.get("answer"),
                        row.get("reference"), truth)


def _bench_cases(name: str, path: Path, rows: int, part: str, truth: Callable[[dict], dict],
                 good: Callable[[dict], bool]) -> list[SimulatedCase]:
    bench = SETS[name]
    chosen = select_rows(load_rows(path), bench, rows, part)
    cases = []
    for row in chosen:
        item = bench.to_item(row)
        cases.append(SimulatedCase(row["id"], item, _row(row, truth(row), item), good(row)))
    return cases


def _faithfulness_cases(name: str, path: Path, rows: int, part: str) -> list[SimulatedCase]:
    return _bench_cases(name, path, rows, part, lambda row: {"faithful": not hallucinated(row)},
                        lambda row: not hallucinated(row))


def halueval_unseen(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    return _faithfulness_cases("halueval_qa", paths.unseen_data, rows, part)


def faithbench(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    return _faithfulness_cases("faithbench", sample_path("faithbench", paths.data_root), rows, part)


def msmarco(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    relevant = lambda row: row["human"]["relevant"] == 1  # noqa: E731
    return _bench_cases("msmarco_ctxrel", sample_path("msmarco_ctxrel", paths.data_root), rows, part,
                        lambda row: {"context_relevant": relevant(row)}, relevant)


def stsb_rating(row: dict) -> int:
    """People's 0-5 score rounded half up: the judge's true rating."""
    return min(5, math.floor(row["human"]["score_0_5"] + 0.5))


def stsb(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    return _bench_cases("stsb", sample_path("stsb", paths.data_root), rows, part,
                        lambda row: {"similarity": stsb_rating(row)},
                        lambda row: row["human"]["score_0_5"] >= 2.5)


def wikiqa(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    from benchmarks import wikiqa_relevance

    chosen = select_rows(wikiqa_relevance.load_rows(paths.mirror_root), wikiqa_relevance.BENCH, rows, part)
    cases = []
    for row in chosen:
        item = wikiqa_relevance.to_item(row)
        relevant = row["human"]["relevant"] == 1
        cases.append(SimulatedCase(row["id"], item, _row(row, {"answer_relevant": relevant}, item), relevant))
    return cases


def nli(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    from benchmarks import multilingual_faithfulness as nli_pairs

    languages = list(nli_pairs.LOADERS)
    per_language = 2 * math.ceil(rows / len(languages) / 2)
    cases = []
    for language in languages:
        for pair in nli_pairs.chosen_pairs(language, paths.mirror_root, part, per_language):
            item = nli_pairs.item_for(language, pair)
            case_id = nli_pairs.pair_id(language, pair)
            faithful = pair["label"] == "entailment"
            row = SimulatedRow(case_id, item["question"], item["context"], item["answer"], None,
                               {"faithful": faithful})
            cases.append(SimulatedCase(case_id, item, row, faithful))
    return cases


def paraphrases(rows: int, part: str, paths: SetPaths) -> list[SimulatedCase]:
    """Issue #30's probes: every row (they are few and were never tuned on by this benchmark)."""
    from tests.nodes.claims.test_grounding import CURIE

    cases = []
    for language, question, context, faithful, unnamed, number in CURIE:
        for kind, answer in (("faithful", faithful), ("unnamed", unnamed), ("number", number)):
            if answer is None:
                continue
            case_id = f"{language}:{kind}"
            item = {"rubric": "rag", "question": question, "context": context, "answer": answer,
                    "metrics": ["faithfulness"], "language": language}
            good = kind == "faithful"
            cases.append(SimulatedCase(case_id, item, SimulatedRow(case_id, question, context, answer, None,
                                                                   {"faithful": good}), good))
    return cases[:rows]


SIMULATED_SETS: dict[str, SimulatedSet] = {s.name: s for s in (
    SimulatedSet("halueval_unseen", "faithfulness", "claim_check", "claims", halueval_unseen),
    SimulatedSet("faithbench", "faithfulness", "claim_check", "claims", faithbench),
    SimulatedSet("msmarco_ctxrel", "context_relevance", "context_relevance", "score", msmarco),
    SimulatedSet("wikiqa_answer_relevance", "answer_relevance", "answer_relevance", "score", wikiqa),
    SimulatedSet("stsb", "semantic_similarity", "similarity", "score", stsb),
    SimulatedSet("nli", "faithfulness", "claim_check", "score", nli),
    SimulatedSet("paraphrase_probes", "faithfulness", "claim_check", "score", paraphrases),
)}


def judge_says_good(step: str, chosen: list) -> bool:
    """The judge's own item-level verdict from the labels it wrote at `step` for one row: every
    claim supported; the context "yes"; the answer direct; a rating of 3 or more."""
    if step == "claim_check":
        return all(label == "supported" for label in chosen)
    if step == "context_relevance":
        return all(label == "yes" for label in chosen)
    if step == "answer_relevance":
        return all(label == "direct" for label in chosen)
    if step == "similarity":
        return all(rating >= 3 for rating in chosen)
    raise ValueError(f"no item-level reading for step {step!r}")
