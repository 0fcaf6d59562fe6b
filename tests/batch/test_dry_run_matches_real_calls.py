"""`--dry-run` predicts the calls a real run makes, item by item (issue #33, item 4).

Each edge item is estimated by `evaluate --dry-run` and then judged for real by the same
command against a scripted OpenAI-compatible server whose replies are valid on the first try
and list what the dry run assumes (one claim per answer sentence under `--claims model`, one
fact per reference sentence for coverage). The calls the server saw must equal the dry run's
`calls`, and its steps the dry run's steps; a second reading, which only a reply decides, is
`possible_calls` (the real run may make it or not).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judgegraph.batch.dry_run import estimated_claims, estimated_elements
from judgegraph.commands import cli
from tests.support import fakes
from tests.support.scripted_server import ScriptedEndpoint

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUESTION = "Who founded Craigslist, and when?"
CONTEXT = ["Craigslist is a classified advertisements website.",
           "Craigslist was founded in 1995 by Craig Newmark in San Francisco."]
ANSWER = "Craig Newmark founded Craigslist. He founded it in 1995."


def _filler(n: int) -> str:
    return (f"Passage {n} is about the weather in town number {n}. "
            f"Rainfall reached {n + 10} millimetres in the month of storms number {n}.")


def rag(**fields: Any) -> dict:
    return {"question": QUESTION, "answer": ANSWER, "context": CONTEXT, "reference": "Craig Newmark, in 1995."} | fields


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


EDGE_ITEMS: dict[str, dict] = {
    "normal": rag(),
    "empty answer": rag(answer=""),
    "refusal, empty context": rag(answer="I cannot answer: the context does not say.", context=[], reference=None),
    "empty context": rag(context=[]),
    "no reference": rag(reference=None),
    "no checkable claims": rag(answer="I don't know."),
    "no words at all": rag(answer="?!"),
    "one claim": rag(answer="Craig Newmark."),
    "same text as the reference": rag(answer="Craig Newmark, in 1995"),
    "long context": rag(context=[_filler(n) for n in range(40)] + CONTEXT),
    "faithfulness only": rag(metrics=["faithfulness"]),
    "relevance only": rag(metrics=["context_relevance", "answer_relevance"]),
    "liverag": example("liverag_item.json"),
    "liverag, no documents": example("liverag_item.json") | {"documents": []},
    "coverage": example("coverage_item.json"),
    "expected_output categorical": example("expected_output_categorical.json"),
    "expected_output numerical": example("expected_output_numerical.json"),
    "expected_output range": example("expected_output_range_quality.json"),
}


def _claims_reply(prompt: str) -> dict:
    answer = prompt.split("<answer>\n", 1)[1].split("\n</answer>", 1)[0]
    return fakes.claims(*estimated_claims(answer))


def _elements_reply(prompt: str) -> dict:
    reference = prompt.split("<reference>\n", 1)[1].split("\n</reference>", 1)[0]
    return estimated_elements(reference)


def _category_reply(prompt: str) -> dict:
    section = prompt.split("available categories:\n", 1)[1].split("</config>", 1)[0]
    category = section.splitlines()[0].removeprefix("- ")
    return _comparison() | {"category": category}


def _comparison() -> dict:
    return {"reasoning": "Compared.", "semantic_match": True, "partial_match": False,
            "missing_elements": [], "incorrect_elements": [], "confidence": 0.9}


def _score_reply(prompt: str) -> dict:
    low = int(prompt.split("score range: ", 1)[1].split(" to ", 1)[0])
    return _comparison() | {"score": low}


def scripted_judge(check: str) -> fakes.ScriptedJudge:
    """Valid first-try replies for every step of every rubric; claim checks say `check`."""
    return fakes.judge(
        extract_claims=_claims_reply,
        check_claim=fakes.verdict(check, 1),
        check_claims_batch=lambda prompt: {"checks": [
            {"claim": n, "verdict": "supported", "line": 1}
            for n in range(1, prompt.split("<claims>", 1)[1].split("</claims>", 1)[0].count("\n"))]},
        answer_from_context={"answer": "Craig Newmark"},
        judge_context_relevance=fakes.context_relevance("yes", [1]),
        judge_answer_relevance=fakes.answer_relevance(),
        judge_semantic_similarity=fakes.similarity(4),
        LiveRagRelevanceJudgment={"reasoning": "r", "addresses_question": True, "no_answer": False,
                                  "answers_correctly": True, "contains_irrelevant_content": False,
                                  "irrelevant_content_harms_usefulness": False},
        ReferenceElements=_elements_reply,
        ElementCheck={"quote": "", "justification": "Checked.", "present": False},
        BatchElementChecks=lambda prompt: {"checks": [
            {"element": n, "quote": "", "justification": "Checked.", "present": False}
            for n in range(1, prompt.split("<elements>", 1)[1].split("</elements>", 1)[0].count("\n"))]},
        OrganizationJudgment={"reasoning": "Alike.", "structure": "comparable"},
        ExpectedOutputCategory=_category_reply,
        ExpectedOutputScore=_score_reply,
    )


def dry_run(path: Path, flags: list[str], capsys) -> dict:
    assert cli.main(["evaluate", str(path), "--dry-run", *flags]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])["estimate"]


def real_steps(path: Path, flags: list[str], check: str, capsys) -> Counter:
    judge = scripted_judge(check)
    with ScriptedEndpoint(judge) as endpoint:
        cli.main(["evaluate", str(path), *flags, *endpoint.flags])
    capsys.readouterr()
    return Counter(step for step, _, _ in judge.calls)


MODES = {
    "default": ["--no-embeddings"],
    "model claims": ["--no-embeddings", "--claims", "model"],
    "batch checks": ["--no-embeddings", "--claim-check", "batch"],
}


@pytest.mark.parametrize("mode", MODES)
def test_the_dry_run_counts_the_calls_a_real_run_makes(mode, tmp_path, capsys):
    flags = MODES[mode]
    mismatches = []
    for name, item in EDGE_ITEMS.items():
        path = tmp_path / "item.json"
        path.write_text(json.dumps(item))
        estimate = dry_run(path, flags, capsys)
        made = real_steps(path, flags, "supported", capsys)
        second_readings = made.pop("OwnAnswer", 0)  # a supported check of an ungrounded claim may ask
        if (sum(made.values()) != estimate["calls"] or dict(made) != estimate["steps"]
                or second_readings > estimate["possible_calls"]):
            mismatches.append((name, estimate["calls"], dict(estimate["steps"]), sum(made.values()), dict(made)))
    assert not mismatches, mismatches


def _second_look_profile(tmp_path) -> list[str]:
    """`--calibration` flags for the default profile with the second reading on (the embedded
    judge's profile reads it; the default's band is closed)."""
    from judgegraph.calibration.profile import SHIPPED_DIR

    profile = json.loads((SHIPPED_DIR / "default.json").read_text(encoding="utf-8"))
    profile["id"] = "default-second-look"
    profile["faithfulness"]["parameters"]["second_look_below"] = None
    path = tmp_path / "second-look.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    return ["--calibration", str(path)]


@pytest.mark.parametrize(("check", "extra"), [("supported", 0), ("not-in-context", 1)])
def test_a_second_reading_is_a_possible_call(check, extra, tmp_path, capsys):
    path = tmp_path / "item.json"
    path.write_text(json.dumps(EDGE_ITEMS["one claim"]))
    flags = ["--no-embeddings", *_second_look_profile(tmp_path)]
    estimate = dry_run(path, flags, capsys)
    assert estimate["possible_calls"] == 1
    made = real_steps(path, flags, check, capsys)
    assert sum(made.values()) == estimate["calls"] + extra
    assert made["OwnAnswer"] == extra


def test_the_default_profile_makes_no_second_reading_and_the_dry_run_counts_it_only_as_possible(tmp_path, capsys):
    """A dry run does not resolve the judge, so not its profile: the second reading stays a
    possible call (an upper bound) unless --calibration names a profile whose band is closed."""
    from judgegraph.calibration.profile import SHIPPED_DIR

    path = tmp_path / "item.json"
    path.write_text(json.dumps(EDGE_ITEMS["one claim"]))
    assert dry_run(path, ["--no-embeddings"], capsys)["possible_calls"] == 1
    default = ["--calibration", str(SHIPPED_DIR / "default.json")]
    estimate = dry_run(path, ["--no-embeddings", *default], capsys)
    assert estimate["possible_calls"] == 0
    made = real_steps(path, ["--no-embeddings"], "not-in-context", capsys)  # a judge with no fitted profile
    assert sum(made.values()) == estimate["calls"] and "OwnAnswer" not in made


def test_calls_code_decides_are_not_made(tmp_path, capsys):
    """The edge items where code decides: no call for them, in the dry run or for real."""
    expected = {
        "empty answer": {},
        "refusal, empty context": {"AnswerRelevanceJudgment": 1},
        "no checkable claims": {"ContextRelevanceJudgment": 1, "AnswerRelevanceJudgment": 1,
                                "SimilarityJudgment": 1},
        "faithfulness only": {"ClaimCheck": 2},
    }
    for name, steps in expected.items():
        path = tmp_path / "item.json"
        path.write_text(json.dumps(EDGE_ITEMS[name]))
        assert dry_run(path, ["--no-embeddings"], capsys)["steps"] == steps, name
    for name in ("empty context", "no words at all"):
        path = tmp_path / "item.json"
        path.write_text(json.dumps(EDGE_ITEMS[name]))
        assert "ExtractedClaims" not in real_steps(path, ["--no-embeddings", "--claims", "model"], "supported", capsys)
