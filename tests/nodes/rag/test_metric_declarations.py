"""A rag metric is one unit: declared once, decided once, its signals typed up to the trace.

Why: the plan, the scorers, the metric records, the signal hash and `judgegraph calibrate` read
each metric's declaration (`nodes/rag/metrics.py`), so they cannot drift apart; a claim's verdict
and context relevance's recall are decided by one function each, which a test (and a refit)
calls with signals alone; and a trace event is emitted whole, so what streams live is what the
stored trace (and so the metric record) holds.
"""

from __future__ import annotations

import pytest

from judgegraph.calibration import default_profile
from judgegraph.calibration.metric_names import CALIBRATED_METRICS
from judgegraph.calibration.relevance_decisions import RecallSignals
from judgegraph.calibration.calibrated_metrics import CALIBRATED, calibrated_metric
from judgegraph.calibration.signal_hash import signal_hash
from judgegraph.fitting.fitted_metrics import FITTED_METRICS
from judgegraph.graph.api import default_graph, graph_input
from judgegraph.run.judge_builder import build_judge
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.claims import verdict as verdict_module
from judgegraph.nodes.rag import answer_relevance, context_relevance
from judgegraph.nodes.rag.metric_records import METRICS
from judgegraph.nodes.rag.metrics import DECLARED, RAG_METRICS, plan_rag
from judgegraph.nodes.rag.rubric import RUBRIC
from judgegraph.run.context import JudgeContext
from judgegraph.run.state import MeasuredSignals
from judgegraph.schemas.rag import RagInput
from judgegraph.schemas.rag import AnswerRelevanceJudgment, ContextRelevanceJudgment
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.support.profiles import with_second_look

PROFILE = default_profile()


def test_every_table_is_read_from_the_declarations(rag_item):
    seed = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")
    assert RAG_METRICS == seed
    assert tuple(metric.key for metric in DECLARED) == seed + ("citation_recall", "citation_precision")
    assert tuple(metric.key for metric in DECLARED if metric.needs_context) == ("faithfulness", "context_relevance")
    # the names an item may request are the declared keys, and nothing else
    requestable = RUBRIC.input_model.model_fields["metrics"].annotation
    assert "citation_precision" in str(requestable) and "fluency" not in str(requestable)
    assert RUBRIC.question_nodes == (context_relevance.NODE, answer_relevance.NODE)
    assert RUBRIC.metrics == METRICS == tuple(metric.spec for metric in DECLARED)
    assert [node.name for node in RUBRIC.nodes] == [
        "extract_claims", context_relevance.NODE, answer_relevance.NODE,
        "judge_semantic_similarity"]
    # an uncited answer: the metrics of every item (citations apply to cited answers only)
    assert plan_rag(RagInput.model_validate(rag_item)) == [node for metric in DECLARED if metric.applies is None
                                                           for node in metric.entry_nodes]
    assert tuple(FITTED_METRICS) == CALIBRATED_METRICS == tuple(m.key for m in DECLARED if m.calibrated)
    assert tuple(m.calibration for m in DECLARED if m.calibrated) == CALIBRATED
    for metric in DECLARED:
        if metric.calibrated:
            assert metric.signal_sources == metric.calibration.signal_sources
            assert signal_hash(metric.key, metric.signal_sources) == calibrated_metric(metric.key).signal_hash


def _stream(item: dict, context: JudgeContext) -> tuple[list[dict], list]:
    """The trace events streamed live, and the run's stored trace."""
    streamed, final = [], None
    for mode, chunk in default_graph().stream(graph_input(item, None, None), context=build_judge(context),
                                              stream_mode=["custom", "values"]):
        if mode == "custom" and "trace_event" in chunk:
            streamed.append(chunk["trace_event"])
        elif mode == "values":
            final = chunk
    return streamed, final["trace"]


def test_streamed_events_carry_what_the_stored_trace_holds(rag_item):
    """Context relevance's recall, precision and probabilities, answer relevance's graded
    probabilities and what of a cut context a step saw join the event before it streams."""
    rag_item["context"] = [f"Line {i} says something about classified advertisements." for i in range(30)] + \
        list(rag_item["context"])
    model = fakes.judge(**happy_scripts())
    context = JudgeContext(model=model, embeddings=False, context_cap_tokens=60, record_all_signals=True)
    streamed, stored = _stream(rag_item, context)

    def without_time(event: dict) -> dict:
        return {key: value for key, value in event.items() if key != "duration_s"}

    def key(event: dict) -> tuple:
        return event["node"], event["label"] or ""

    emitted = {key(event) for event in streamed}
    stored_events = [e.model_dump() for e in stored if key(e.model_dump()) in emitted]
    assert len(stored_events) == len(streamed) >= 4
    assert sorted(map(without_time, streamed), key=key) == sorted(map(without_time, stored_events), key=key)
    by_node = {event["node"]: event["detail"] for event in streamed}
    assert {"recall", "precision", "probabilities", "context_lines_shown"} <= set(by_node[context_relevance.NODE])
    assert {"probabilities", "context_lines_shown"} <= set(by_node[answer_relevance.NODE])


def test_a_claims_verdict_is_decided_once_even_after_a_second_reading(monkeypatch):
    decided = []
    real = verdict_module.decide

    def counting(signals, parameters):
        decided.append(signals)
        return real(signals, parameters)

    monkeypatch.setattr(verdict_module, "decide", counting)
    item = {"question": "Who founded Craigslist?", "metrics": ["faithfulness"],
            "context": ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark."],
            "answer": "Craig Newmark"}
    model = fakes.judge(**happy_scripts(check_claim=fakes.verdict("not-in-context", 1),
                                        answer_from_context={"answer": "Craig Newmark"}))
    streamed, stored = _stream(item, JudgeContext(model=model, embeddings=False,
                                                  calibration=with_second_look(default_profile())))
    assert model.count("answer_from_context") == 1
    assert len(decided) == 1 and decided[0].own_answer_agreement == 1.0
    check = next(event for event in streamed if event["node"] == "check_claim")
    assert check["detail"]["own_answer_agrees"] and check["detail"]["verdict"] == "supported"


def test_context_relevance_is_decided_from_signals_alone_as_the_node_decides_it(rag_item):
    judgment = ContextRelevanceJudgment(answer_in_context="partly", useful_lines=[1])
    signals = context_relevance.ContextRelevanceSignals(
        rag_item["context"], "fact-checking", judgment, RecallSignals({"yes": 0.2, "partly": 0.6, "no": 0.2}))
    decided = context_relevance.decide_context_relevance(signals, PROFILE.context_relevance_parameters)
    assert decided.signals["recall"] == pytest.approx(0.5) and decided.error is None
    assert decided.signals["probabilities"] == {"yes": 0.2, "partly": 0.6, "no": 0.2}

    rag_item["evaluation_goal"] = "fact-checking"
    model = fakes.judge(**happy_scripts(judge_context_relevance=fakes.context_relevance("partly", [1])))
    _, stored = _stream(rag_item | {"metrics": ["context_relevance"]}, JudgeContext(model=model, embeddings=False))
    live = context_relevance.decide_context_relevance(
        context_relevance.ContextRelevanceSignals(rag_item["context"], "fact-checking", judgment,
                                                  RecallSignals({"yes": 0.0, "partly": 1.0, "no": 0.0})),
        PROFILE.context_relevance_parameters)
    event = next(e for e in stored if e.node == context_relevance.NODE)
    assert {k: event.detail[k] for k in ("recall", "precision", "probabilities")} == dict(live.signals)


def test_a_metric_whose_recall_cannot_be_read_says_so_in_its_error_field(rag_item):
    from judgegraph.calibration.profile import LogisticRecall

    parameters = PROFILE.context_relevance_parameters.model_copy(
        update={"recall": LogisticRecall(intercept=0.0, coefficients={"closeness": 1.0})})
    signals = context_relevance.ContextRelevanceSignals(
        rag_item["context"], None, ContextRelevanceJudgment(answer_in_context="yes", useful_lines=[1]),
        RecallSignals({"yes": 1.0, "partly": 0.0, "no": 0.0}))
    decided = context_relevance.decide_context_relevance(signals, parameters)
    assert decided.score is None and decided.error == context_relevance.NO_CLOSENESS
    assert decided.signals["recall"] is None


def test_answer_relevance_is_decided_from_signals_alone(rag_item):
    judgment = AnswerRelevanceJudgment.model_validate(fakes.answer_relevance(parts=[True, False], directness="partial"))
    signals = answer_relevance.AnswerRelevanceSignals(judgment, answer_relevance.written_signals(judgment),
                                                      context_empty=False)
    decided = answer_relevance.decide_answer_relevance(signals, PROFILE.answer_relevance_parameters)
    assert decided.score == pytest.approx(0.5 * 0.75)
    rag = RagInput.model_validate(rag_item)
    finished = {"judgments": {answer_relevance.NODE: StepOutcome(judgment)},
                "measured": {answer_relevance.METRIC_KEY: MeasuredSignals(signals, PROFILE.answer_relevance_parameters)}}
    scored = answer_relevance.score_answer_relevance(finished, rag, PROFILE)
    assert (scored.score, scored.explanation) == (decided.score, decided.explanation)
    assert scored.signals["parts_answered"] == 1 and scored.signals["reply"] == "reasoned"
    broken = {"judgments": {answer_relevance.NODE: StepOutcome(None, [], "boom")}, "measured": {}}
    failed = answer_relevance.score_answer_relevance(broken, rag, PROFILE)
    assert failed.score is None and failed.error == "boom"


def test_every_rag_metric_declares_the_files_its_signals_mean_and_they_exist():
    from judgegraph.calibration.signal_hash import PACKAGE_ROOT

    for metric in DECLARED:
        assert metric.signal_sources, metric.key
        missing = [path for path in metric.signal_sources if not (PACKAGE_ROOT / path).is_file()]
        assert missing == [], metric.key


def test_no_module_keeps_a_table_of_metric_names_beside_the_declarations():
    """Which metrics judge against the context, which are calibrated, which are the seed's: each
    is read from the declarations (`needs_context`, `calibration`, `applies`), never listed by
    name in a module (CONTEXT_METRICS, CALIBRATED_METRICS and RAG_METRICS were)."""
    import ast

    from judgegraph.graph import rubrics
    from tests.test_import_cycles import ROOT, module_files

    keys = {metric.key for rubric in rubrics.RUBRICS for metric in rubric.metrics}
    tables = []
    for path in module_files().values():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and len(value.elts) >= 2 and all(
                    isinstance(e, ast.Constant) and e.value in keys for e in value.elts):
                tables.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert tables == []
