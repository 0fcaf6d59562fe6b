"""The simulated judge of known quality (`benchmarks.simulated_judge`) and its runner
(`benchmarks.simulated_agreement`): every step of every rubric answered over real HTTP, the
truth at accuracy 1.0, the share of errors at 0.8, the two log-probability modes, a loud
failure on a request it cannot place, and a resumed run that judges nothing twice."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from dataclasses import replace

import pytest

from benchmarks import simulated_agreement
from benchmarks.simulated_agreement import judge_context
from benchmarks.simulated_judge import (
    SimulatedEndpoint,
    SimulatedJudge,
    SimulatedRow,
    confidence_band,
    draw,
)
from judgegraph.graph.api import run_evaluation

CONTEXT = ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
           "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts."]
QUESTION = "Who founded Craigslist, and when?"
FAITHFUL = "Craig Newmark founded Craigslist. He founded it in 1995."
HALLUCINATED = "Jim Buckmaster founded Craigslist in 1999."


def rag_row(row_id: str, answer: str, good: bool, **extra) -> SimulatedRow:
    return SimulatedRow(row_id, QUESTION, CONTEXT, answer, extra.pop("reference", None),
                        {"faithful": good, "context_relevant": True, "answer_relevant": good,
                         "similarity": 5 if good else 0, **extra})


def rag_item(answer: str, **extra) -> dict:
    return {"rubric": "rag", "question": QUESTION, "context": CONTEXT, "answer": answer, **extra}


LIVERAG = {"rubric": "liverag", "question": "Who founded Craigslist?", "answer": "Craig Newmark founded it in 1995.",
           "documents": CONTEXT, "gold_reference": "Craig Newmark founded Craigslist."}
COVERAGE = {"rubric": "coverage", "input": "Why do leaves change colour in autumn?",
            "reference": "Trees stop producing chlorophyll in autumn. Yellow pigments then become visible.",
            "output_text": "Trees stop making chlorophyll when days get shorter. The yellow pigments then show."}
EXPECTED_NUMERICAL = {"rubric": "expected_output", "input": "Summarise the refund policy.",
                      "actualOutput": "You can get your money back within 30 days.",
                      "expectedOutput": "Unused items can be returned within 30 days.",
                      "evaluationType": "numerical", "evaluationConfig": {"min_range": 1, "max_range": 10}}
EXPECTED_CATEGORICAL = {"rubric": "expected_output", "input": "Rate the greeting.",
                        "actualOutput": "Hello there, welcome!", "expectedOutput": "Hello, welcome.",
                        "evaluationType": "categorical",
                        "evaluationConfig": {"available_categories": ["Good", "Poor"]}}
HISTORY = [{"role": "user", "content": "What is Craigslist?"},
           {"role": "assistant", "content": "A classified advertisements website."}]


def every_rubric_rows() -> list[SimulatedRow]:
    return [
        rag_row("rag-good", FAITHFUL, True, reference="Craig Newmark founded Craigslist in 1995."),
        rag_row("rag-bad", HALLUCINATED, False, reference="Craig Newmark founded Craigslist in 1995."),
        SimulatedRow("liverag", LIVERAG["question"], LIVERAG["documents"], LIVERAG["answer"],
                     LIVERAG["gold_reference"], {"good": True}),
        SimulatedRow("coverage", COVERAGE["input"], None, COVERAGE["output_text"], COVERAGE["reference"],
                     {"good": True}),
        SimulatedRow("expected-numerical", EXPECTED_NUMERICAL["input"], None, EXPECTED_NUMERICAL["actualOutput"],
                     EXPECTED_NUMERICAL["expectedOutput"], {"good": True}),
        SimulatedRow("expected-categorical", EXPECTED_CATEGORICAL["input"], None,
                     EXPECTED_CATEGORICAL["actualOutput"], EXPECTED_CATEGORICAL["expectedOutput"],
                     {"good": True, "category": "Good"}),
    ]


@pytest.fixture
def endpoint_for():
    """`endpoint_for(judge, **context_changes)` -> (endpoint, context) reaching it as the CLI does."""
    opened = []

    def start(judge: SimulatedJudge, **changes):
        endpoint = SimulatedEndpoint(judge).__enter__()
        opened.append(endpoint)
        return endpoint, replace(judge_context(endpoint), **changes)

    yield start
    for endpoint in opened:
        endpoint.__exit__()


ITEMS = {
    "rag, every metric": rag_item(FAITHFUL, reference="Craig Newmark founded Craigslist in 1995."),
    "rag, hallucinated": rag_item(HALLUCINATED, reference="Craig Newmark founded Craigslist in 1995."),
    "rag, a conversation": rag_item(FAITHFUL, history=HISTORY),
    "rag, cited": rag_item("Craig Newmark founded Craigslist [1]. He founded it in 1995 [1]."),
    "liverag": LIVERAG,
    "coverage": COVERAGE,
    "expected_output, numerical": EXPECTED_NUMERICAL,
    "expected_output, categorical": EXPECTED_CATEGORICAL,
}


@pytest.mark.parametrize("settings", [
    {},
    {"claim_extraction": "model", "claim_check": "batch", "embeddings": False},
], ids=["default", "model claims, batch checks, no embeddings"])
@pytest.mark.parametrize("logprobs", [True, False], ids=["logprobs", "no-logprobs"])
def test_every_step_of_every_rubric_is_answered_so_a_whole_item_succeeds(endpoint_for, settings, logprobs):
    rows = every_rubric_rows() + [SimulatedRow("rag-cited", QUESTION, CONTEXT, ITEMS["rag, cited"]["answer"],
                                               None, {"good": True})]
    judge = SimulatedJudge(rows, 0.8, logprobs=logprobs)
    _, context = endpoint_for(judge, **settings)
    for name, item in ITEMS.items():
        run = run_evaluation(item, model=context)
        failed = [(event.node, event.errors) for event in run.trace if event.outcome == "failed" or event.errors]
        assert not failed, (name, failed)
        assert run.result.get("evaluation_status", "success") == "success", (name, run.result)
    steps = {record["step"] for record in judge.decisions}
    assert {"claim_check", "context_relevance", "answer_relevance", "liverag_relevance",
            "coverage_element", "organization", "expected_output"} <= steps
    if settings.get("embeddings") is False:
        assert "similarity" in steps


def test_at_accuracy_one_with_logprobs_every_verdict_is_the_truth_and_certain(endpoint_for):
    judge = SimulatedJudge(every_rubric_rows(), 1.0, logprobs=True)
    _, context = endpoint_for(judge)
    for answer, faithful in ((FAITHFUL, True), (HALLUCINATED, False)):
        run = run_evaluation(rag_item(answer, metrics=["faithfulness"]), model=context)
        expected = "supported" if faithful else "not-in-context"
        assert run.verdicts and all(v.model_verdict == expected for v in run.verdicts)
        assert all(v.graded and v.probabilities[expected] == pytest.approx(1.0) for v in run.verdicts)
    assert judge.decisions and all(record["right"] and record["chosen"] == record["truth"]
                                   for record in judge.decisions)


def test_at_accuracy_point_eight_a_fifth_of_the_decisions_are_wrong_and_the_confidence_is_calibrated():
    draws = [draw(f"row-{n}", "claim_check", 0.8) for n in range(4000)]
    wrong = sum(not d.right for d in draws) / len(draws)
    assert wrong == pytest.approx(0.2, abs=0.02)
    assert sum(d.confidence for d in draws) / len(draws) == pytest.approx(0.8, abs=0.01)
    low, high = confidence_band(0.8)
    assert (low, high) == pytest.approx((0.6, 1.0))
    sure = [d for d in draws if d.confidence >= 0.9]
    unsure = [d for d in draws if d.confidence < 0.7]
    assert sum(d.right for d in sure) / len(sure) > sum(d.right for d in unsure) / len(unsure) + 0.15


def test_errors_over_many_rows_through_the_server_are_near_the_chosen_share():
    rows = [SimulatedRow(f"row-{n}", f"Question {n}?", ["Line one.", "Line two."], f"Answer {n}.", None,
                         {"faithful": n % 2 == 0}) for n in range(400)]
    judge = SimulatedJudge(rows, 0.8, logprobs=False)
    for row in rows:
        prompt = (f"<question>\n{row.question}\n</question>\n<answer>\n{row.answer}\n</answer>\n"
                  f"<context>\n[1] Line one.\n[2] Line two.\n</context>\n<claim>\n{row.answer}\n</claim>")
        judge.reply("ClaimCheck", {}, {"messages": [{"role": "user", "content": prompt}]})
    assert len(judge.decisions) == 400
    assert sum(not record["right"] for record in judge.decisions) / 400 == pytest.approx(0.2, abs=0.05)


def _post(endpoint: SimulatedEndpoint, prompt: str, *, logprobs: bool) -> dict:
    body = {"model": "simulated-judge", "messages": [{"role": "user", "content": prompt}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "ClaimCheck", "schema": {}}}}
    if logprobs:
        body |= {"logprobs": True, "top_logprobs": 10}
    request = urllib.request.Request(endpoint.base_url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


CLAIM_PROMPT = (f"<question>\n{QUESTION}\n</question>\n<answer>\n{HALLUCINATED}\n</answer>\n"
                f"<context>\n[1] {CONTEXT[0]}\n</context>\n<claim>\n{HALLUCINATED}\n</claim>")


def test_the_logprobs_mode_sends_calibrated_logprobs_and_the_other_sends_none():
    rows = every_rubric_rows()
    with SimulatedEndpoint(SimulatedJudge(rows, 0.7, logprobs=True)) as endpoint:
        choice = _post(endpoint, CLAIM_PROMPT, logprobs=True)["choices"][0]
    tokens = choice["logprobs"]["content"]
    assert "".join(entry["token"] for entry in tokens) == choice["message"]["content"]
    verdict = json.loads(choice["message"]["content"])["verdict"]
    written = next(entry for entry in tokens if entry["token"] == verdict)
    confidence = draw("rag-bad", "claim_check", 0.7).confidence
    assert math.exp(written["logprob"]) == pytest.approx(confidence)
    assert sum(math.exp(alt["logprob"]) for alt in written["top_logprobs"]) == pytest.approx(1.0)

    with SimulatedEndpoint(SimulatedJudge(rows, 0.7, logprobs=False)) as endpoint:
        choice = _post(endpoint, CLAIM_PROMPT, logprobs=True)["choices"][0]
    assert not choice.get("logprobs")
    assert json.loads(choice["message"]["content"])["verdict"] == verdict  # the same decision


def test_a_request_it_cannot_place_is_an_http_error_that_says_why():
    with SimulatedEndpoint(SimulatedJudge(every_rubric_rows(), 1.0, logprobs=False)) as endpoint:
        with pytest.raises(urllib.error.HTTPError) as raised:
            _post(endpoint, CLAIM_PROMPT.replace(QUESTION, "Who founded eBay?"), logprobs=False)
    assert raised.value.code == 500
    assert "no row fits this request" in raised.value.read().decode()


def test_rows_of_different_content_that_a_request_fits_are_refused_not_guessed():
    rows = [rag_row("one", FAITHFUL, True), SimulatedRow("two", QUESTION, CONTEXT + ["More text here."], FAITHFUL,
                                                         None, {"faithful": False})]
    judge = SimulatedJudge(rows, 1.0, logprobs=False)
    prompt = f"<question>\n{QUESTION}\n</question>\n<answer>\n{FAITHFUL}\n</answer>\n<context>\n[1] {CONTEXT[0]}\n</context>"
    with pytest.raises(RuntimeError, match="rows of different content and different labels"):
        judge.reply("ContextRelevanceJudgment", {}, {"messages": [{"role": "user", "content": prompt}]})


def test_the_runner_resumes_without_judging_a_done_row_again(tmp_path, capsys):
    argv = ["--sets", "paraphrase_probes", "--accuracies", "0.9", "--logprobs", "yes", "--rows", "4",
            "--out-dir", str(tmp_path), "--concurrency", "1"]
    assert simulated_agreement.main(argv) == 0
    first = capsys.readouterr()
    decisions = next(tmp_path.glob("decisions-*.jsonl"))
    written = decisions.read_text()
    assert "| paraphrase_probes | faithfulness | 0.9 | yes | 4 (0) |" in first.out

    assert simulated_agreement.main(argv) == 0
    second = capsys.readouterr()
    assert "resuming: 4 of 4 items already judged" in second.err
    assert decisions.read_text() == written  # the judge was asked nothing
    assert second.out == first.out


def test_the_runner_refuses_an_unknown_set_or_accuracy_with_one_line(tmp_path, capsys):
    assert simulated_agreement.main(["--sets", "nope", "--out-dir", str(tmp_path)]) == 2
    assert simulated_agreement.main(["--accuracies", "0.3", "--out-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 2


def test_a_claim_cut_mid_word_is_placed_and_word_order_tells_reordered_rows_apart():
    question = "What does the text say?"
    rows = [SimulatedRow("first", question, ["On Sunday Jane had a party."], "Jane had a party on Sunday.", None,
                         {"faithful": True}),
            SimulatedRow("second", question, ["Jane had a party on Sunday."], "On Sunday Jane had a party.", None,
                         {"faithful": False})]
    judge = SimulatedJudge(rows, 1.0, logprobs=False)
    prompt = (f"<question>\n{question}\n</question>\n<context>\n[1] Jane had a party on Sun\n</context>\n"
              "<claim>\nOn Sunday Jane had a pa\n</claim>")
    reply = judge.reply("ClaimCheck", {}, {"messages": [{"role": "user", "content": prompt}]})
    assert reply["verdict"] == "not-in-context"
    assert judge.decisions[-1]["row"] == "second"


def test_rows_of_the_same_text_and_different_labels_are_refused():
    rows = [rag_row("pos", FAITHFUL, True), rag_row("neg", FAITHFUL, False)]
    judge = SimulatedJudge(rows, 1.0, logprobs=False)
    prompt = f"<question>\n{QUESTION}\n</question>\n<answer>\n{FAITHFUL}\n</answer>\n<context>\n[1] {CONTEXT[0]}\n</context>"
    with pytest.raises(RuntimeError, match="rows of the same text and different labels"):
        judge.reply("ClaimCheck", {}, {"messages": [{"role": "user", "content": prompt + f"\n<claim>\n{FAITHFUL}\n</claim>"}]})


def test_each_row_judgegraph_moved_is_put_down_to_the_rule_that_moved_it():
    from benchmarks.judging import ItemOutcome
    from benchmarks.simulated_agreement import rule_of, rules_counted

    def outcome(*claims: dict) -> ItemOutcome:
        return ItemOutcome("row", 0.0, False, detail={"claims": list(claims)})

    supported = {"model_verdict": "supported", "verdict": "supported", "support": 0.9, "grounding": 1.0}
    assert rule_of(outcome({**supported, "verdict": "contradicted", "conflict": "the claim says 2"})) == "number rule"
    assert rule_of(outcome({**supported, "model_verdict": "not-in-context"})) == "own answer"
    assert rule_of(outcome({**supported, "support": 0.3, "grounding": 0.4})) == "grounding"
    assert rule_of(outcome({**supported, "support": 0.4})) == "probability"
    assert rule_of(outcome(supported)) == rule_of(ItemOutcome("row", 0.2, False)) == "score"
    assert rules_counted([outcome(supported), outcome({**supported, "support": 0.3, "grounding": 0.4}),
                          outcome(supported)]) == {"grounding": 1, "score": 2}
