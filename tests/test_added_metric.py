"""A fifth rag metric is one module and one line (docs/adding-a-metric.md).

The toy metric here, answer brevity, is declared the way a real one is (`MetricDeclaration` at
the end of its module) and registered only for these tests: the rubric is rebuilt over the
declared metrics plus this one (`rag_rubric`), as one more line in `nodes/rag/metrics.DECLARED`
would build it, and the product's rag output keeps the seed's 11 keys. It is judged end to end
through the command line (a batch against a fake OpenAI-compatible judge, with `--details`) and
through the LangSmith evaluators, has a signal hash over the files that define its signal, and
its decision is fitted on labelled records by the same cross-validation `judgegraph calibrate`
uses.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from judgegraph.calibration.signal_hash import signal_hash
from judgegraph.commands.cli import main
from judgegraph.declarations.metric_declaration import MetricDeclaration
from judgegraph.declarations.rubric_spec import MetricSpec, NodeSpec
from judgegraph.declarations.run_details import step_detail
from judgegraph.evaluators import create_evaluator
from judgegraph.fitting.cross_validation import MetricFit, cross_validate
from judgegraph.graph import api
from judgegraph.graph import rubrics
from judgegraph.graph.api import evaluate
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.rag.metrics import DECLARED
from judgegraph.nodes.rag.rubric import rag_rubric
from judgegraph.run.tracing import emit, plain_event
from judgegraph.schemas.metrics import Score
from judgegraph.schemas.rag import RagResult
from judgegraph.text.tokens import word_count
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.support.demo_judge import reply as demo_reply
from tests.support.fault_server import FaultServer

COMPILED_ONCE = api.default_graph
"""The graph module's cached builder, read before the conftest wraps it for the test's run."""

# --- the toy metric's module, as `nodes/rag/answer_brevity.py` would hold it -----------------------

NODE = "measure_answer_brevity"
KEY = "answer_brevity"


@dataclass(frozen=True)
class BrevitySignals:
    answer_words: int


@dataclass(frozen=True)
class BrevityParameters:
    max_words: int = 12
    """Answers up to this many words score 1.0; longer ones max_words / words."""


DEFAULT_PARAMETERS = BrevityParameters()


def measure_answer_brevity(state: dict, runtime) -> dict:
    """The node: measures its signal (no model call) and records it in its trace event."""
    started = time.perf_counter()
    signals = BrevitySignals(word_count(state["inputs"]["rag"].answer))
    event = emit(runtime, plain_event(NODE, started, answer_words=signals.answer_words))
    return {"judgments": {NODE: StepOutcome(signals)}, "trace": [event]}


def decide_answer_brevity(signals: BrevitySignals, parameters: BrevityParameters) -> Score:
    words = signals.answer_words
    if words <= parameters.max_words:
        return Score(1.0, f"{words} words, at most {parameters.max_words}.")
    return Score(parameters.max_words / words, f"{words} words, more than {parameters.max_words}.")


def score_answer_brevity(state: Mapping[str, Any], rag, profile) -> Score:
    outcome = state.get("judgments", {}).get(NODE)
    if outcome is None or outcome.value is None:
        return Score.failed("Answer brevity", outcome.error if outcome else "the step did not run")
    return decide_answer_brevity(outcome.value, DEFAULT_PARAMETERS)


def brevity_record_signals(details) -> dict[str, Any]:
    """From a results file's details."""
    detail = step_detail(details, NODE)
    return {"answer_words": detail["answer_words"]} if detail else {}


def brevity_signals_of_run(state: Mapping[str, Any], rag) -> dict[str, Any]:
    """From the finished state: the node's typed outcome."""
    outcome = state.get("judgments", {}).get(NODE)
    return {"answer_words": outcome.value.answer_words} if outcome is not None and outcome.value else {}


SOURCES = ("text/tokens.py",)
"""The rule its signal is measured by: judgegraph's word count."""

ANSWER_BREVITY = MetricDeclaration(
    spec=MetricSpec(KEY, kind="score", scale=(0, 1), field=KEY),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, measure_answer_brevity),),
    score=score_answer_brevity,
    decide=decide_answer_brevity,
    read_signals=brevity_record_signals,
    record_signals=brevity_signals_of_run,
    signal_sources=SOURCES,
)

# --- registered for these tests only ------------------------------------------------------------

SEED_KEYS = list(RagResult.model_fields)


@pytest.fixture
def added_metric(monkeypatch):
    """`DECLARED` plus the toy metric, as one more line there would make it."""
    rubric = rag_rubric((*DECLARED, ANSWER_BREVITY))
    monkeypatch.setattr(rubrics, "RUBRICS", tuple(rubric if r.name == "rag" else r for r in rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()  # the compiled graph is built once per process
    yield rubric
    COMPILED_ONCE.cache_clear()


ITEMS = [
    {"id": "short", "question": "Who founded Craigslist?", "answer": "Craig Newmark.",
     "context": ["Craigslist was founded in 1995 by Craig Newmark."]},
    {"id": "long", "question": "Who founded Craigslist?",
     "answer": "Craigslist, the classified advertisements website that started as an email list in San Francisco, "
               "was founded in 1995 by Craig Newmark.",
     "context": ["Craigslist was founded in 1995 by Craig Newmark in San Francisco."]},
]


def test_the_product_output_keeps_the_seed_keys(rag_item):
    result = evaluate(rag_item, model=fakes.judge(**happy_scripts()))
    assert list(result) == SEED_KEYS and KEY not in result
    # every item's metrics are the seed's four; judgegraph's own (citations) apply to cited answers only
    assert [m.key for m in DECLARED if m.applies is None] == ["faithfulness", "context_relevance", "answer_relevance",
                                                              "semantic_similarity"]
    assert KEY not in [m.key for m in DECLARED]


def test_the_added_metric_is_judged_through_the_command_line(added_metric, tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with FaultServer(reply=demo_reply) as server:
        code = main(["evaluate", str(items), "--out", str(out), "--details", "--no-embeddings",
                     "--base-url", server.base_url, "--model", "demo"])
    records = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert code == 0, capsys.readouterr().err[-2000:]
    short, long = records["short"]["result"], records["long"]["result"]
    assert list(short) == [*SEED_KEYS, KEY, f"{KEY}_explanation"]
    assert short[KEY] == 1.0 and short[f"{KEY}_explanation"] == "2 words, at most 12."
    assert long[KEY] == pytest.approx(round(12 / 21, 2)) and short["faithfulness"] is not None
    assert "answer_brevity" in capsys.readouterr().out + json.dumps(records)  # the summary lists it
    node_events = [e for e in records["long"]["details"]["nodes"] if e["node"] == NODE]
    assert [e["detail"] for e in node_events] == [{"answer_words": 21}]
    (metric,) = [m for m in added_metric.read_metrics(records["long"]["result"], None, records["long"]["details"])
                 if m.key == KEY]
    assert metric.status == "judged" and metric.signals == {"answer_words": 21}


def test_the_added_metric_is_judged_through_the_evaluators(added_metric):
    evaluator = create_evaluator("rag", model=fakes.judge(**happy_scripts()))
    rows = evaluator(inputs={"question": ITEMS[0]["question"], "context": ITEMS[0]["context"]},
                     outputs={"answer": ITEMS[0]["answer"]})
    by_key = {row["key"]: row for row in rows}
    assert list(by_key) == ["faithfulness", "context_relevance", "answer_relevance", "semantic_similarity", KEY]
    assert by_key[KEY]["score"] == 1.0
    run = api.run_evaluation(ITEMS[1], model=fakes.judge(**happy_scripts()))
    assert run.scores["rag"][KEY].signals == {"answer_words": 21} and run.scores["rag"][KEY].status == "judged"


def test_its_signal_hash_covers_its_declared_sources():
    own = signal_hash(KEY, ANSWER_BREVITY.signal_sources)
    assert len(own) == 16 and own == signal_hash(KEY, SOURCES)
    assert own != signal_hash(KEY, ()) and own != signal_hash(KEY, ("text/numbers.py",))


def _fit_max_words(items, labels, kind, start, levels, groups) -> BrevityParameters:
    """The cap that agrees most with the labels (ties: the cap closest to the start)."""
    def agreement(cap: int) -> int:
        return sum((decide_answer_brevity(item, BrevityParameters(cap)).score >= 0.99) == bool(label)
                   for item, label in zip(items, labels))
    return BrevityParameters(max(range(1, 40), key=lambda cap: (agreement(cap), -abs(cap - start.max_words))))


def test_its_decision_is_fitted_on_recorded_signals(added_metric, tmp_path):
    """People call answers of up to 5 words brief: the fit moves the cap from 12 to 5, with no
    judge call (the recorded signal is read back through the declaration)."""
    lengths = [2, 3, 4, 5, 6, 8, 10, 12, 3, 5, 7, 9, 11, 4, 2, 6, 8, 10, 3, 7]
    records = [{"details": {"nodes": [{"node": NODE, "outcome": "ok", "detail": {"answer_words": n}}]}}
               for n in lengths]
    items = [BrevitySignals(**ANSWER_BREVITY.read_signals(record["details"])) for record in records]
    labels = [1.0 if n <= 5 else 0.0 for n in lengths]
    fit = MetricFit(lambda item, parameters: ANSWER_BREVITY.decide(item, parameters).score, _fit_max_words)
    held = cross_validate(fit, items, labels, "binary", DEFAULT_PARAMETERS, folds=4)
    assert _fit_max_words(items, labels, "binary", DEFAULT_PARAMETERS, (0.0, 1.0), None) == BrevityParameters(5)
    after = [score >= 0.99 for score in held.after]
    before = [score >= 0.99 for score in held.before]
    assert sum(a == bool(y) for a, y in zip(after, held.labels)) > sum(b == bool(y) for b, y in zip(before, held.labels))
