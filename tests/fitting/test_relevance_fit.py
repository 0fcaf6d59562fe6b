"""Calibrating context and answer relevance (`fitting/relevance.py`,
`fitting/recompute_relevance.py`, `judgegraph calibrate --metric context_relevance |
answer_relevance`): monotone fits on recorded signals, scores recomputed exactly as the graph
makes them, the shared cross-validation for every metric, and the fitted profile applied.
Every judge here is scripted (`tests.support.fakes`)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.batch.item_judging import run_details
from judgegraph.calibration import default_profile, load_profile
from judgegraph.calibration.metric_names import CALIBRATED_METRICS
from judgegraph.calibration.profile import (
    AnswerRelevanceParameters,
    LogisticRecall,
    Profile,
    parse_profile,
    shipped_profiles,
    write_profile,
)
from judgegraph.calibration.relevance_decisions import RecallSignals, context_recall
from judgegraph.commands.cli import main
from judgegraph.declarations.scoring import round_half_up
from judgegraph.fitting.cross_validation import cross_validate, held_out_figures, learning_curve
from judgegraph.fitting.fitted_metrics import FITTED_METRICS
from judgegraph.fitting.labels import read_labels
from judgegraph.fitting.monotone import FitError
from judgegraph.fitting.recompute_relevance import (
    RecordedAnswerRelevance,
    RecordedContextRelevance,
    answer_relevance_score,
    context_relevance_score,
    recorded_answer_relevance,
    recorded_context_relevance,
)
from judgegraph.fitting.relevance import factor_grid, fit_answer_relevance, fit_context_relevance, fit_recall
from judgegraph.graph.api import run_evaluation
from judgegraph.llm import models
from judgegraph.llm.openai_compatible import ResolvedModel
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.rag import AnswerRelevanceJudgment, ContextRelevanceJudgment
from tests.support import fakes

CONTEXT_DEFAULT = default_profile().context_relevance_parameters
ANSWER_DEFAULT = default_profile().answer_relevance_parameters
RELEVANT, NOISE = "kappa", "sigma"
"""The scripted judge says "partly" (P 1.0) of a context carrying `kappa`, and leans "yes"
(P 0.6, "no" 0.4) for one carrying `sigma`: the default's P(yes) + P(partly)/2 ranks the
irrelevant ones higher (0.6 against 0.5); a monotone fit on P(partly) ranks them right."""


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    monkeypatch.setattr("judgegraph.fitting.cross_validation.BOOTSTRAP_RESAMPLES", 200)


def _graded_context_relevance(prompt: str):
    if RELEVANT in prompt:
        return fakes.with_logprobs(fakes.context_relevance("partly", [1]), "answer_in_context", {"partly": 1.0})
    return fakes.with_logprobs(fakes.context_relevance("yes", [1]), "answer_in_context", {"yes": 0.6, "no": 0.4})


def _answer_relevance(prompt: str) -> dict:
    if "evasive-answer" in prompt:
        return fakes.answer_relevance(directness="evasive")
    if "partial-answer" in prompt:
        return fakes.answer_relevance(parts=[True, False], directness="partial")
    return fakes.answer_relevance()


def _answer_labels(prompt: str) -> dict:
    if "evasive-answer" in prompt:
        return fakes.answer_labels(directness="evasive")
    if "partial-answer" in prompt:
        return fakes.answer_labels(parts=[True, False], directness="partial")
    return fakes.answer_labels()


def scripted_judge():
    return fakes.judge(judge_context_relevance=_graded_context_relevance, judge_answer_relevance=_answer_relevance,
                       judge_answer_relevance_labels=_answer_labels)


@pytest.fixture
def scripted_resolution(monkeypatch):
    judge = scripted_judge()
    monkeypatch.setattr(models, "resolve_model", lambda *a, **k: ResolvedModel(judge, "scripted:a", "json_schema"))
    return judge


def context_rows(n: int = 40) -> list[dict]:
    """Pairs of one question each: a relevant context (kappa) and an irrelevant one (sigma)."""
    rows = []
    for i in range(n):
        relevant = i % 2 == 0
        marker = RELEVANT if relevant else NOISE
        rows.append({"id": f"q{i // 2}:{'pos' if relevant else 'neg'}", "group": f"q{i // 2}",
                     "question": f"What is listed for case {i // 2}?",
                     "context": [f"Case {i // 2} lists the {marker} entry.", "Unrelated filler about weather."],
                     "answer": "(no answer given)", "human": {"relevant": int(relevant)}})
    return rows


def _evaluated(items, out, *flags: str) -> dict[str, dict]:
    """`judgegraph evaluate ITEMS --out OUT FLAGS...`: the records by id."""
    assert main(["evaluate", str(items), "--out", str(out), *flags]) == 0
    return {record["id"]: record for record in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _fitted_context_profile(judge_model: str | None = "scripted:a", **coefficients: float) -> Profile:
    recall = LogisticRecall(intercept=-3.0, coefficients=coefficients or {"p_partly": 6.0})
    section = {"parameters": CONTEXT_DEFAULT.model_copy(update={"recall": recall}).model_dump(),
               "signal_hash": calibrated_metric("context_relevance").signal_hash}
    return parse_profile({"id": "ctx-fitted", "judge_model": judge_model, "context_relevance": section})


# --- the decision layer -----------------------------------------------------------------------------

@pytest.mark.parametrize("probabilities", [{"yes": 0.2, "partly": 0.5, "no": 0.3}, {"yes": 1.0}, {"no": 1.0}])
def test_the_default_recall_is_still_p_yes_plus_half_p_partly(probabilities):
    expected = probabilities.get("yes", 0.0) + probabilities.get("partly", 0.0) / 2
    assert context_recall(RecallSignals(probabilities, closeness=0.9), CONTEXT_DEFAULT) == expected


def test_under_the_default_profile_closeness_is_neither_measured_nor_recorded(fake_default_embedder):
    item = {"question": "What is listed for case 7?", "context": CONTEXT, "answer": "(none)",
            "metrics": ["context_relevance"]}
    run = run_evaluation(item, model=JudgeContext(model=scripted_judge(), model_id="scripted:a"))
    (event,) = [e for e in run.trace_json()["nodes"] if e["node"] == "judge_context_relevance"]
    assert fake_default_embedder.calls == [] and "closeness" not in event["detail"]
    assert event["detail"]["recall"] == 0.5  # P(partly) 1.0 is worth half, as before
    assert run.result["context_relevance"] == round_half_up(0.5 * 0.5 + 0.5 * event["detail"]["precision"], 2)


def test_a_fitted_recall_that_reads_closeness_needs_it_measured():
    parameters = _fitted_context_profile(closeness=4.0).context_relevance_parameters
    assert parameters.reads_closeness and not CONTEXT_DEFAULT.reads_closeness
    assert context_recall(RecallSignals({"yes": 1.0}), parameters) is None
    assert context_recall(RecallSignals({"yes": 1.0}, 0.9), parameters) > context_recall(RecallSignals({"yes": 1.0}, 0.1), parameters)


@pytest.mark.parametrize("factors", [{"direct": 1.0, "partial": 0.4, "evasive": 0.6},
                                     {"direct": 0.5, "partial": 0.75, "evasive": 0.5},
                                     {"direct": 1.0, "partial": 0.5}, {"direct": 1.2, "partial": 0.5, "evasive": 0.1}])
def test_a_profile_whose_directness_factors_are_out_of_order_is_refused(factors):
    with pytest.raises(ValidationError):
        AnswerRelevanceParameters(directness_factor=factors)


# --- fitting ----------------------------------------------------------------------------------------

def _context(p_yes: float, p_partly: float, closeness: float | None = None) -> RecordedContextRelevance:
    probabilities = {"yes": p_yes, "partly": p_partly, "no": 1 - p_yes - p_partly}
    return RecordedContextRelevance("x", ["A context line."], None, ContextRelevanceJudgment(answer_in_context="yes"),
                                    RecallSignals(probabilities, closeness))


def test_the_recall_fit_recovers_a_monotone_relation():
    items = [_context(p, 0.0) for p in (0.05, 0.1, 0.2, 0.3, 0.35, 0.6, 0.7, 0.8, 0.9, 0.95)] * 2
    labels = [0.0] * 4 + [1.0, 0.0] + [1.0] * 4
    fitted = fit_recall(items, labels * 2, CONTEXT_DEFAULT)
    assert isinstance(fitted.recall, LogisticRecall) and fitted.recall.coefficients["p_yes"] > 0
    recalls = [context_recall(item.signals, fitted) for item in items[:10]]
    assert recalls == sorted(recalls) and recalls[0] < 0.5 < recalls[-1]
    assert fitted.answer_in_context_value == CONTEXT_DEFAULT.answer_in_context_value


def test_a_signal_pointing_the_wrong_way_is_dropped_and_the_rest_refitted():
    # relevance rises with P(yes) and *falls* with closeness: closeness must not get a negative weight
    rows = [(0.9, 0.1), (0.8, 0.2), (0.85, 0.0), (0.7, 0.1), (0.2, 0.9), (0.1, 1.0), (0.3, 0.8), (0.25, 0.95)]
    items = [_context(p, 0.0, c) for p, c in rows] * 2
    labels = [1.0] * 4 + [0.0] * 4
    fitted = fit_recall(items, labels * 2, CONTEXT_DEFAULT)
    assert fitted.recall.coefficients.get("closeness", 0.0) >= 0 and fitted.recall.coefficients["p_yes"] > 0
    assert all(weight >= 0 for weight in fitted.recall.coefficients.values())


def test_closeness_is_fitted_only_when_every_item_recorded_it():
    items = [_context(0.9, 0.0, 0.8), _context(0.1, 0.0, None)] * 4
    fitted = fit_recall(items, [1.0, 0.0] * 4, CONTEXT_DEFAULT)
    assert "closeness" not in fitted.recall.coefficients


def test_the_fitted_recall_replaces_the_default_only_when_it_wins_on_held_out_inner_folds():
    # the default's P(yes) + P(partly)/2 is already a calibrated recall here: the fit must not win
    calibrated = [_context(p, 0.0) for p in (0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0)] * 2
    assert fit_context_relevance(calibrated, [0.0] * 4 + [1.0] * 4 + [0.0] * 4 + [1.0] * 4, "binary",
                                 CONTEXT_DEFAULT) == CONTEXT_DEFAULT
    # here "partly" means relevant and a leaning "yes" does not (the scripted judge's rows): it wins
    rows = context_rows(20)
    items = [_context(0.0, 1.0) if row["human"]["relevant"] else _context(0.6, 0.0) for row in rows]
    fitted = fit_context_relevance(items, [float(row["human"]["relevant"]) for row in rows], "binary", CONTEXT_DEFAULT)
    assert isinstance(fitted.recall, LogisticRecall)


def _query_pairs(n: int = 16):
    """Per query, a relevant and an irrelevant passage with the same P(yes) (the judge cannot
    tell them apart) and a closeness that is higher for the relevant one by 0.1, on a level that
    differs from query to query (0.2 ... 0.8): only a within-query comparison sees it."""
    items, labels, groups = [], [], []
    for q in range(n):
        level = 0.2 + 0.6 * (q % 7) / 6
        for relevant in (True, False):
            items.append(_context(0.5, 0.2, level + (0.1 if relevant else 0.0)))
            labels.append(1.0 if relevant else 0.0)
            groups.append(f"q{q}")
    return items, labels, groups


def test_grouped_labels_fit_the_direction_within_groups_and_rank_every_query_right():
    from judgegraph.fitting.model_choice import pairwise_objective, within_group_pairs

    items, labels, groups = _query_pairs()
    pairs = within_group_pairs(labels, groups)
    assert len(pairs) == 16 and all(groups[g] == groups[b] for g, b in pairs)
    default_scores = [context_relevance_score(item, CONTEXT_DEFAULT) for item in items]
    assert pairwise_objective(default_scores, pairs) == 0.5  # the judge's P(yes) ties every pair
    fitted = fit_context_relevance(items, labels, "binary", CONTEXT_DEFAULT, groups=groups)
    assert isinstance(fitted.recall, LogisticRecall) and fitted.recall.coefficients["closeness"] > 0
    assert all(weight >= 0 for weight in fitted.recall.coefficients.values())
    scores = [context_relevance_score(item, fitted) for item in items]
    assert pairwise_objective(scores, pairs) == 1.0
    assert all(0.0 < score < 1.0 for score in scores)


def test_grouped_cross_validation_reports_the_within_query_gain_on_held_out_pairs():
    from judgegraph.fitting.cross_validation import MetricFit, cross_validate, held_out_figures

    items, labels, groups = _query_pairs(20)
    metric = MetricFit(context_relevance_score, fit_context_relevance)
    held = cross_validate(metric, items, labels, "binary", CONTEXT_DEFAULT, folds=4, groups=groups)
    figures = held_out_figures(held, "binary")
    assert figures["pairwise_accuracy"]["before"]["value"] == 0.5
    assert figures["pairwise_accuracy"]["after"]["value"] == 1.0
    assert figures["pairwise_accuracy"]["difference"][0] > 0


def _answer(directness: str, answered: int = 1, parts: int = 1) -> RecordedAnswerRelevance:
    reply = fakes.answer_relevance(parts=[i < answered for i in range(parts)], directness=directness)
    return RecordedAnswerRelevance("x", False, AnswerRelevanceJudgment.model_validate(reply))


def test_the_directness_grid_keeps_direct_at_1_and_partial_at_least_evasive():
    assert all(f["direct"] == 1.0 >= f["partial"] >= f["evasive"] >= 0 for f in factor_grid())
    assert {"direct": 1.0, "partial": 0.75, "evasive": 0.5} in factor_grid()
    # labels that rate evasive answers *above* partial ones: the order holds all the same
    items = [_answer("direct"), _answer("partial"), _answer("evasive"), _answer("direct", 1, 2)] * 3
    labels = [1.0, 0.0, 1.0, 0.0] * 3
    fitted = fit_answer_relevance(items, labels, "binary", ANSWER_DEFAULT).directness_factor
    assert fitted["direct"] == 1.0 >= fitted["partial"] >= fitted["evasive"]


def test_the_directness_fit_lowers_a_factor_the_labels_call_for_and_ties_keep_the_default():
    # evasive answers are bad, whole direct ones good, half-answered direct ones middling
    items = [_answer("direct"), _answer("evasive"), _answer("direct", 1, 2), _answer("direct", 1, 2)] * 3
    labels = [1.0, 0.0, 1.0, 0.0] * 3
    fitted = fit_answer_relevance(items, labels, "binary", ANSWER_DEFAULT).directness_factor
    assert fitted["evasive"] < 0.5  # below a half-answered direct reply's 0.5, which ties with it by default
    untouched = fit_answer_relevance([_answer("direct"), _answer("direct", 0, 1)] * 2, [1.0, 0.0] * 2, "binary",
                                     ANSWER_DEFAULT)
    assert untouched == ANSWER_DEFAULT
    with pytest.raises(FitError, match="same"):
        fit_answer_relevance(items, [1.0] * len(items), "binary", ANSWER_DEFAULT)


# --- cross-validation, for every metric -------------------------------------------------------------

def _faithfulness_items():
    from tests.support.calibration_items import recorded_claim_item

    return [recorded_claim_item(p, g) for p, g in [(0.9, 1.0), (0.2, 1.0), (0.8, 0.9), (0.3, 0.8), (0.7, 1.0), (0.1, 0.9)] * 5]


@pytest.mark.parametrize("metric", CALIBRATED_METRICS)
def test_cross_validation_serves_every_metric_with_intervals_and_a_learning_curve(metric):
    items = {
        "faithfulness": _faithfulness_items(),
        "context_relevance": [_context(p, 0.0, 1 - p) for p in (0.9, 0.2, 0.8, 0.3, 0.7, 0.1)] * 5,
        "answer_relevance": [_answer(d) for d in ("direct", "evasive", "direct", "partial", "direct", "evasive")] * 5,
    }[metric]
    labels = [1.0, 0.0] * 15
    spec = FITTED_METRICS[metric]
    default = default_profile().section(metric).parameters
    held = cross_validate(spec.fitting, items, labels, "binary", default, folds=5)
    figures = held_out_figures(held, "binary")
    assert figures["n"] == 30 and set(figures) >= {"auroc", "balanced_accuracy"}
    for name in ("auroc", "balanced_accuracy"):
        after = figures[name]["after"]
        assert after["value"] is not None and after["interval"][0] <= after["value"] <= after["interval"][1]
    curve = learning_curve(spec.fitting, items, labels, "binary", default, folds=5, full=held)
    assert [point["labels"] for point in curve] == ["all"] and curve[0]["statistic"] == "auroc"


def test_grouped_items_stay_in_one_fold_and_give_a_pairwise_accuracy():
    items = [_context(0.0, 1.0), _context(0.6, 0.0)] * 15  # relevant: partly; irrelevant: leans yes
    labels = [1.0, 0.0] * 15
    groups = [f"q{i // 2}" for i in range(30)]
    spec = FITTED_METRICS["context_relevance"]
    held = cross_validate(spec.fitting, items, labels, "binary", CONTEXT_DEFAULT, folds=5, groups=groups)
    figures = held_out_figures(held, "binary")
    pairwise = figures["pairwise_accuracy"]
    assert pairwise["pairs"] == 15
    assert pairwise["before"]["value"] == 0.0 and pairwise["after"]["value"] == 1.0
    assert pairwise["difference"][0] > 0


def test_graded_labels_give_spearman():
    items = [_context(p, 0.0) for p in (0.1, 0.3, 0.5, 0.7, 0.9)] * 4
    labels = [0.1, 0.3, 0.5, 0.7, 0.9] * 4
    spec = FITTED_METRICS["context_relevance"]
    held = cross_validate(spec.fitting, items, labels, "graded", CONTEXT_DEFAULT, folds=4)
    figures = held_out_figures(held, "graded")
    assert figures["spearman"]["after"]["value"] > 0.7 and "balanced_accuracy" not in figures
    assert figures["spearman"]["after"]["interval"] is not None


# --- recomputation from recorded signals equals the live score ------------------------------------

CONTEXT = ["Case 7 lists the kappa entry.", "Unrelated filler about weather."]


def _live_and_recomputed(metric: str, item: dict, profile: Profile | None, record_all: bool):
    judge = scripted_judge()
    run = run_evaluation(item | {"metrics": [metric]},
                         model=JudgeContext(model=judge, model_id="scripted:a", calibration=profile,
                                            record_all_signals=record_all))
    calls = len(judge.calls)
    record = {"id": "x", "details": json.loads(json.dumps(run_details(item, run)))}
    spec = FITTED_METRICS[metric]
    recomputed = spec.fitting.score(spec.read(record), (profile or default_profile()).section(metric).parameters)
    assert len(judge.calls) == calls  # no judge call
    return run, recomputed


LONG_CONTEXT = [f"Line {i} speaks of weather, tides and the harbour's old lighthouse keepers." for i in range(150)]
"""More than the 1,024-token cap: the judge sees the lines closest to the question, and its
useful lines are renumbered in the whole context before precision is computed."""


@pytest.mark.parametrize("context", [CONTEXT, ["Case 7 lists the sigma entry."], LONG_CONTEXT + CONTEXT])
@pytest.mark.parametrize(("profile", "record_all"), [(None, False), (None, True), ("partly", False), ("closeness", False),
                                                     ("closeness", True)])
@pytest.mark.parametrize("goal", [None, "fact-checking"])
def test_a_recomputed_context_relevance_equals_the_live_one(context, profile, record_all, goal):
    chosen = {None: None, "partly": _fitted_context_profile(None),
              "closeness": _fitted_context_profile(None, p_partly=3.0, closeness=2.0)}[profile]
    item = {"question": "What is listed for case 7?", "context": context, "answer": "(none)", "evaluation_goal": goal}
    run, recomputed = _live_and_recomputed("context_relevance", item, chosen, record_all)
    assert run.result["context_relevance"] is not None
    assert round_half_up(recomputed, 2) == run.result["context_relevance"]
    (event,) = [e for e in run.trace_json()["nodes"] if e["node"] == "judge_context_relevance"]
    assert ("closeness" in event["detail"]) == (record_all or profile == "closeness")
    assert ("context_lines_shown" in event["detail"]) == (len(context) > 2)  # the long context was cut


@pytest.mark.parametrize("reply", [
    fakes.answer_relevance(), fakes.answer_relevance(parts=[True, False, True], directness="partial"),
    fakes.answer_relevance(directness="evasive"),
    fakes.answer_relevance(refusal=True, reason=True, category="insufficient-context", cites=True),
    fakes.answer_relevance(refusal=True, reason=True, category="insufficient-context", cites=True,
                           context_has_answer=True),
    fakes.graded_answer_relevance([0.7], {"direct": 0.6, "partial": 0.3, "evasive": 0.1}),
    fakes.graded_answer_relevance([0.9, 0.2], {"direct": 0.2, "partial": 0.7, "evasive": 0.1}),
])
@pytest.mark.parametrize("factors", [None, {"direct": 1.0, "partial": 0.4, "evasive": 0.05}, "probabilities"])
def test_a_recomputed_answer_relevance_equals_the_live_one(reply, factors):
    parameters = ({"directness_factor": ANSWER_DEFAULT.directness_factor, "answered_from": "probabilities"}
                  if factors == "probabilities" else {"directness_factor": factors})
    profile = None if factors is None else parse_profile(
        {"id": "ans-fitted", "answer_relevance": {"parameters": parameters,
                                                  "signal_hash": calibrated_metric("answer_relevance").signal_hash}})
    judge = fakes.judge(judge_answer_relevance=reply)
    item = {"question": "Who founded it and when?", "context": CONTEXT, "answer": "Someone, once.",
            "metrics": ["answer_relevance"]}
    run = run_evaluation(item, model=JudgeContext(model=judge, model_id="scripted:a", calibration=profile))
    record = {"id": "x", "details": json.loads(json.dumps(run_details(item, run)))}
    parameters = (profile or default_profile()).answer_relevance_parameters
    assert round_half_up(answer_relevance_score(recorded_answer_relevance(record), parameters), 2) \
        == run.result["answer_relevance"]


@pytest.mark.parametrize("reply", [
    fakes.answer_labels(), fakes.answer_labels(parts=[True, False, True], directness="partial"),
    fakes.answer_labels(directness="evasive"),
    fakes.answer_labels(parts=[False], refusal=True, reason=True, category="insufficient-context", cites=True),
    fakes.answer_labels(parts=[False], refusal=True, reason=True, category="ambiguous", cites=True,
                        context_has_answer=True),
    fakes.graded_answer_labels([0.7], {"direct": 0.6, "partial": 0.3, "evasive": 0.1}),
    fakes.graded_answer_labels([0.9, 0.2], {"direct": 0.2, "partial": 0.7, "evasive": 0.1}),
])
@pytest.mark.parametrize(("answered_from", "factors"), [("labels", None), ("probabilities", None),
                                                         ("probabilities", {"direct": 1.0, "partial": 0.4, "evasive": 0.05})])
def test_a_recomputed_labels_reply_equals_the_live_one_under_either_reading(reply, answered_from, factors):
    """A run asked for the labels reply records its labels and probabilities; `calibrate` reads
    that shape back and, under any reading or factors, gives the score the live run gave."""
    live = parse_profile({"id": "ans-labels", "answer_relevance": {"parameters": {
        "directness_factor": factors or ANSWER_DEFAULT.directness_factor, "answered_from": answered_from,
        "reply": "labels"}, "signal_hash": calibrated_metric("answer_relevance").signal_hash}})
    judge = fakes.judge(judge_answer_relevance_labels=reply)
    item = {"question": "Who founded it and when?", "context": CONTEXT, "answer": "Someone, once.",
            "metrics": ["answer_relevance"]}
    run = run_evaluation(item, model=JudgeContext(model=judge, model_id="scripted:a", calibration=live))
    record = {"id": "x", "details": json.loads(json.dumps(run_details(item, run)))}
    recorded = recorded_answer_relevance(record)
    assert type(recorded.judgment).__name__ == "AnswerRelevanceLabels"
    assert round_half_up(answer_relevance_score(recorded, live.answer_relevance_parameters), 2) \
        == run.result["answer_relevance"]
    other = "labels" if answered_from == "probabilities" else "probabilities"
    assert answer_relevance_score(recorded, live.answer_relevance_parameters.model_copy(
        update={"answered_from": other})) is not None  # the same records serve the other reading


def test_the_fit_keeps_the_reply_the_records_were_judged_with():
    labels_start = ANSWER_DEFAULT.model_copy(update={"reply": "labels"})
    items = [_answer("direct"), _answer("evasive"), _answer("direct", 1, 2), _answer("direct", 1, 2)] * 3
    fitted = fit_answer_relevance(items, [1.0, 0.0, 1.0, 0.0] * 3, "binary", labels_start)
    assert fitted.reply == "labels"
    assert fit_answer_relevance(items, [1.0, 0.0, 1.0, 0.0] * 3, "binary", ANSWER_DEFAULT).reply == "reasoned"


def test_a_recorded_answer_relevance_detail_of_neither_shape_is_refused():
    from judgegraph.nodes.rag.answer_relevance import recorded_reply

    assert recorded_reply({}) is None
    assert recorded_reply({"reply": "labels", **fakes.answer_labels()}).refusal is None
    assert recorded_reply(fakes.answer_relevance()).reasoning == "judged"  # a record from before the labels reply
    with pytest.raises(ValidationError):
        recorded_reply({"reply": "labels", **fakes.answer_relevance()})


def test_an_empty_context_recomputes_to_the_seeds_zero_and_a_record_without_details_is_none():
    item = {"question": "What is listed?", "context": [], "answer": "(none)", "metrics": ["context_relevance"]}
    run = run_evaluation(item, model=JudgeContext(model=scripted_judge(), model_id="scripted:a"))
    recorded = recorded_context_relevance({"id": "x", "details": json.loads(json.dumps(run_details(item, run)))})
    assert context_relevance_score(recorded, CONTEXT_DEFAULT) == run.result["context_relevance"] == 0.0
    assert recorded_context_relevance({"id": "x"}) is None and recorded_answer_relevance({"id": "x"}) is None


def test_a_profile_that_reads_closeness_fails_the_metric_clearly_without_an_embedder():
    item = {"question": "What is listed for case 7?", "context": CONTEXT, "answer": "(none)",
            "metrics": ["context_relevance"]}
    run = run_evaluation(item, model=JudgeContext(model=scripted_judge(), model_id="scripted:a", embeddings=False,
                                                  calibration=_fitted_context_profile(closeness=2.0)))
    assert run.result["context_relevance"] is None and "no embedder" in run.result["context_relevance_explanation"]


# --- judgegraph calibrate, end to end -----------------------------------------------------------------

def test_calibrate_context_relevance_end_to_end_resumable_and_applied(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", context_rows(40))
    out = tmp_path / "ctx.json"
    assert main(["calibrate", str(labels), "--metric", "context_relevance", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Held-out agreement" in err and "pairwise_accuracy" in err and "(20 pairs)" in err and "Learning curve" in err
    assert scripted_resolution.count("judge_context_relevance") == 40
    assert scripted_resolution.count("judge_answer_relevance") == 0  # only the fitted metric is asked
    profile = load_profile(out)
    section = profile.context_relevance
    assert section.signal_hash == calibrated_metric("context_relevance").signal_hash and section.fit.n == 40
    assert isinstance(section.parameters.recall, LogisticRecall)
    assert section.parameters.recall.coefficients.get("p_yes", 0.0) >= 0
    figures = section.fit.figures
    assert figures["auroc"]["after"]["value"] > figures["auroc"]["before"]["value"] + 0.5
    assert figures["pairwise_accuracy"]["after"]["value"] == 1.0
    for other in ("faithfulness", "answer_relevance"):
        assert getattr(profile, other) == default_profile().section(other)
    judged = [json.loads(line) for line in (tmp_path / "ctx.judged.jsonl").read_text().splitlines()]
    assert all(r["result"]["faithfulness_explanation"] == "Not requested." for r in judged)
    calls = len(scripted_resolution.calls)
    assert main(["calibrate", str(labels), "--metric", "context_relevance", "-o", str(out)]) == 0
    assert len(scripted_resolution.calls) == calls  # resumed: a refit asks the judge nothing
    assert load_profile(out) == profile

    items = _write_jsonl(tmp_path / "items.jsonl", [{k: v for k, v in row.items() if k not in ("human", "group")}
                                                    | {"metrics": ["context_relevance"]} for row in context_rows(6)])
    before = _evaluated(items, tmp_path / "before.jsonl")
    capsys.readouterr()
    after = _evaluated(items, tmp_path / "after.jsonl", "--calibration", str(out), "--details")
    assert f"calibration profile {profile.id}" in " ".join(capsys.readouterr().err.split())
    for pair in range(3):
        relevant, irrelevant = f"q{pair}:pos", f"q{pair}:neg"
        assert before[relevant]["result"]["context_relevance"] < before[irrelevant]["result"]["context_relevance"]
        assert after[relevant]["result"]["context_relevance"] > after[irrelevant]["result"]["context_relevance"]
    assert all(record["details"]["profile"] == profile.id for record in after.values())
    trace = tmp_path / "trace.json"
    single = tmp_path / "one.json"
    single.write_text(json.dumps(json.loads(items.read_text().splitlines()[0])), encoding="utf-8")
    assert main(["evaluate", str(single), "--calibration", str(out), "--trace-out", str(trace)]) == 0
    assert json.loads(trace.read_text())["profile"] == profile.id


def _answer_label_rows() -> list[dict]:
    """24 labelled answers to one two-part question: direct, evasive and partial in turn; a human
    calls the evasive ones irrelevant (0) and the others relevant (1)."""
    rows = []
    for i in range(24):
        kind = ("direct-answer", "evasive-answer", "partial-answer")[i % 3]
        rows.append({"id": f"a{i}", "question": "Who founded it, and when?", "context": CONTEXT,
                     "answer": f"An {kind} number {i}.", "human": 0 if kind == "evasive-answer" else 1})
    return rows


def test_calibrate_answer_relevance_end_to_end(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", _answer_label_rows())
    out = tmp_path / "ans.json"
    assert main(["calibrate", str(labels), "--metric", "answer_relevance", "-o", str(out)]) == 0
    assert "Held-out agreement" in capsys.readouterr().err
    assert scripted_resolution.count("judge_context_relevance") == 0
    profile = load_profile(out)
    factors = profile.answer_relevance.parameters.directness_factor
    assert factors["direct"] == 1.0 >= factors["partial"] >= factors["evasive"]
    assert factors["evasive"] < factors["partial"] * 0.5  # a half-answered partial reply outranks any evasive one
    assert profile.answer_relevance.signal_hash == calibrated_metric("answer_relevance").signal_hash
    assert profile.context_relevance == default_profile().context_relevance


def test_calibrate_answer_relevance_from_the_labels_reply_end_to_end(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", _answer_label_rows())
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"id": "labels-start", "answer_relevance": {"parameters": {
        "directness_factor": ANSWER_DEFAULT.directness_factor, "reply": "labels"}}}), encoding="utf-8")
    out = tmp_path / "ans.json"
    assert main(["calibrate", str(labels), "--metric", "answer_relevance", "--start", str(start), "-o", str(out)]) == 0
    assert "Held-out agreement" in capsys.readouterr().err
    assert scripted_resolution.count("judge_answer_relevance_labels") == 24
    assert scripted_resolution.count("judge_answer_relevance") == 0
    profile = load_profile(out)
    parameters = profile.answer_relevance.parameters
    assert parameters.reply == "labels"
    assert parameters.directness_factor["evasive"] < parameters.directness_factor["partial"] * 0.5
    judged = [json.loads(line) for line in (tmp_path / "ans.judged.jsonl").read_text().splitlines()]
    details = [step for r in judged for step in r["details"]["nodes"] if step["node"] == "judge_answer_relevance"]
    assert len(details) == 24 and all(d["detail"]["reply"] == "labels" and "probabilities" in d["detail"]
                                      for d in details)


def test_every_profile_metric_can_be_calibrated_and_a_labels_group_is_read(tmp_path):
    assert tuple(FITTED_METRICS) == CALIBRATED_METRICS
    labels = read_labels(_write_jsonl(tmp_path / "l.jsonl", context_rows(4)), "context_relevance")
    assert labels.groups == {"q0:pos": "q0", "q0:neg": "q0", "q1:pos": "q1", "q1:neg": "q1"}
    assert all("group" not in entry.item for entry in labels.items)


# --- benchmarks.profile_report: profiles side by side on the same replies ---------------------------

def test_profile_report_compares_profiles_on_one_judging_with_pairwise_accuracy(tmp_path, capsys, scripted_resolution):
    from benchmarks import profile_report

    labels = _write_jsonl(tmp_path / "report.jsonl", context_rows(12))
    fitted = tmp_path / "ctx.json"
    write_profile(_fitted_context_profile(), fitted)
    argv = [str(labels), "--metric", "context_relevance", "--profiles", f"default,{fitted}", "--out-dir", str(tmp_path)]
    assert profile_report.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    default, fit = report["results"]
    assert report["metric"] == "context_relevance" and default["n"] == fit["n"] == 12 and default["pairs"] == 6
    # the scripted judge leans "yes" for the irrelevant contexts: the default ranks every pair
    # the wrong way round, the fitted recall (on P(partly)) every pair the right way
    assert default["pairwise"] == 0.0 and fit["pairwise"] == 1.0 and fit["auroc"] == 1.0
    assert fit["median_good"] > fit["median_bad"] and fit["brier"] < default["brier"]
    assert len(fit["ba_difference_to_first"]) == 2
    calls = len(scripted_resolution.calls)
    assert profile_report.main(argv) == 0  # judged once: a second report asks the judge nothing
    assert len(scripted_resolution.calls) == calls == 12


def test_a_judged_file_of_another_metric_is_refused_in_one_line_not_fitted_as_failures(tmp_path, capsys,
                                                                                       scripted_resolution):
    """Records judged for context relevance hold no answer-relevance signal: reusing their file
    for an answer-relevance fit must say so (exit 2), not crash or fit on phantom failures."""
    labels = _write_jsonl(tmp_path / "labels.jsonl", context_rows(12))
    judged = tmp_path / "shared.judged.jsonl"
    assert main(["calibrate", str(labels), "--metric", "context_relevance", "-o", str(tmp_path / "ctx.json"),
                 "--judged", str(judged)]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in judged.read_text(encoding="utf-8").splitlines()]
    assert all(recorded_answer_relevance(r) is None for r in records)  # not judged for it: absent, not failed
    assert all(recorded_context_relevance(r) is not None for r in records)
    code = main(["calibrate", str(labels), "--metric", "answer_relevance", "-o", str(tmp_path / "ans.json"),
                 "--judged", str(judged)])
    err = capsys.readouterr().err
    assert code == 2 and "was judged for answer_relevance" in err and "Traceback" not in err
    assert not (tmp_path / "ans.json").exists()


def test_a_relevance_fit_for_a_judge_with_a_shipped_profile_starts_from_it_and_keeps_its_other_sections(
        tmp_path, capsys, monkeypatch):
    """The embedded judge runs with its shipped faithfulness decisions: a context-relevance fit
    for it must keep them (and compare against the profile it really runs with)."""
    embedded = next(p for p in shipped_profiles() if p.id == "embedded-halueval")
    judge = scripted_judge()
    monkeypatch.setattr(models, "resolve_model",
                        lambda *a, **k: ResolvedModel(judge, embedded.judge_model, "json_schema"))
    labels = _write_jsonl(tmp_path / "labels.jsonl", context_rows(20))
    out = tmp_path / "ctx.json"
    assert main(["calibrate", str(labels), "--metric", "context_relevance", "-o", str(out)]) == 0
    assert "Held-out agreement" in capsys.readouterr().err
    profile = load_profile(out)
    assert profile.description.endswith(f"the other metrics as profile {embedded.id}.")
    assert profile.judge_model == embedded.judge_model
    assert profile.faithfulness == embedded.faithfulness  # the shipped fit, not default.json's
    assert profile.faithfulness_parameters.second_look_band_top == embedded.faithfulness_parameters.second_look_band_top
    assert profile.faithfulness_parameters.second_look_band_top > default_profile().faithfulness_parameters.second_look_band_top


def test_graded_answer_relevance_separates_answers_the_written_labels_tie():
    """Two answers the judge marks answered and direct, one surely and one barely: the written
    labels (the default) score both 1.0; a profile reading the probabilities ranks them, and
    only then are they read and recorded."""
    item = {"question": "Who founded it?", "context": CONTEXT, "answer": "Someone.", "metrics": ["answer_relevance"]}
    sure = fakes.graded_answer_relevance([0.95], {"direct": 0.9, "partial": 0.1, "evasive": 0.0})
    unsure = fakes.graded_answer_relevance([0.55], {"direct": 0.5, "partial": 0.3, "evasive": 0.2})
    graded = parse_profile({"id": "ans-graded", "answer_relevance": {
        "parameters": {"directness_factor": ANSWER_DEFAULT.directness_factor, "answered_from": "probabilities"},
        "signal_hash": calibrated_metric("answer_relevance").signal_hash}})
    assert ANSWER_DEFAULT.answered_from == "labels" and not ANSWER_DEFAULT.reads_probabilities
    scores = {}
    for name, reply in (("sure", sure), ("unsure", unsure)):
        for profile in (graded, None):
            judge = fakes.judge(judge_answer_relevance=reply)
            run = run_evaluation(item, model=JudgeContext(model=judge, model_id="scripted:a", calibration=profile))
            scores[name, profile is not None] = run.result["answer_relevance"]
            event = next(e for e in run.trace if e.node == "judge_answer_relevance")
            if profile is None:
                assert "probabilities" not in event.detail  # not graded: no log-probabilities read
            else:
                assert event.detail["probabilities"]["answered"] == [pytest.approx(0.95 if name == "sure" else 0.55)]
    assert scores["sure", False] == scores["unsure", False] == 1.0  # the written labels tie
    factors = ANSWER_DEFAULT.directness_factor
    assert scores["sure", True] == round_half_up(0.95 * (0.9 * factors["direct"] + 0.1 * factors["partial"]), 2)
    assert scores["unsure", True] == round_half_up(
        0.55 * (0.5 * factors["direct"] + 0.3 * factors["partial"] + 0.2 * factors["evasive"]), 2)
    assert scores["sure", True] > scores["unsure", True]


def test_boolean_probabilities_fall_back_to_the_written_values_when_the_reply_cannot_be_read():
    from judgegraph.llm.boolean_probabilities import boolean_probabilities

    reply = fakes.graded_answer_relevance([0.8, 0.3], {"direct": 1.0})
    content = reply.response_metadata["logprobs"]["content"]
    assert boolean_probabilities(content, "answered", [True, False]) == [pytest.approx(0.8), pytest.approx(0.3)]
    assert boolean_probabilities(None, "answered", [True, False]) == [1.0, 0.0]
    assert boolean_probabilities(content, "answered", [True]) == [1.0]  # one value written, two in the tokens
    no_alternatives = [{**entry, "top_logprobs": [{"token": " maybe", "logprob": -0.1}]} for entry in content]
    assert boolean_probabilities(no_alternatives, "answered", [True, False]) == [1.0, 0.0]
    assert boolean_probabilities([{"token": 3}], "answered", [False]) == [0.0]
