"""One prefix per item: every judge step of a QA/RAG item opens with the same system message, and
every step but the claim check and the second reading with the same data block
(`prompts.item_data`), so a prefix cache reuses it. The claim check and the second reading keep
the layout the embedded profile's faithfulness was fitted and measured with (`OWN_LAYOUT`).

The prompts are the ones the nodes really send: each item runs through the graph with a judge
that records every request's messages; the last test runs a whole item against a scripted
OpenAI-compatible server and reads the recorded HTTP requests.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from judgegraph.commands import cli
from judgegraph.calibration import default_profile
from judgegraph.graph.api import run_evaluation
from judgegraph.prompts.item_data import ItemData, render_item_data
from judgegraph.run.context import JudgeContext
from judgegraph.run.context_view import context_budget, question_view
from judgegraph.text.segmentation import context_lines
from tests.support import fakes
from tests.support.profiles import with_second_look
from tests.support.scripted_server import ScriptedEndpoint

QUESTION = "Who founded Craigslist?"
ANSWER = "Craig Newmark founded Craigslist."
GOLD = "Craigslist was founded in 1995 by Craig Newmark in San Francisco."
SHORT_CONTEXT = ["Craigslist is a classified advertisements website.", GOLD]
REFERENCE = "Craig Newmark."
CLAIM_STEPS = {"ClaimCheck"}
"""Steps that may show lines of their own (a long context's lines closest to the claim)."""
OWN_LAYOUT = {"ClaimCheck", "OwnAnswer"}
"""Steps whose prompt keeps the layout faithfulness was measured with: the claim check opens with
its rules (then question, answer, lines, claim), the second reading with the context lines
(then the question); `prompts/check_claim.j2`, `prompts/answer_from_context.j2`."""


def _filler(n: int) -> str:
    return (f"Passage {n} is about the weather in town number {n}. "
            f"Rainfall reached {n + 10} millimetres in the month of storms number {n}.")


LONG_CONTEXT = [_filler(n) for n in range(60)]
LONG_CONTEXT.insert(37, GOLD)


class MessageRecorder(fakes.ScriptedJudge):
    """The scripted judge, keeping each request's messages apart (system, user)."""

    _requests: list[tuple[str, list[str]]] = PrivateAttr(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any):
        with self._lock:
            self._requests.append((fakes.schema_of(kwargs), [m.text for m in messages]))
        return super()._generate(messages, stop, run_manager, **kwargs)

    @property
    def requests(self) -> list[tuple[str, list[str]]]:
        return self._requests


def numbered(prompt: str) -> list[str]:
    """The numbered lines of the last context section of a prompt."""
    section = prompt.rsplit("<context>", 1)[1].split("</context>", 1)[0]
    return re.findall(r"^\[\d+\] (.*)$", section, flags=re.M)


def line_of_gold(prompt: str) -> int:
    return next(n for n, line in enumerate(numbered(prompt), 1) if "Craig Newmark" in line)


def scripts(**overrides: Any) -> dict[str, Any]:
    replies: dict[str, Any] = {
        "extract_claims": fakes.claims(ANSWER),
        # not supported: a one-claim answer gets the second reading, so that step is rendered too
        "check_claim": lambda prompt: fakes.verdict("not-in-context", line_of_gold(prompt)),
        "check_claims_batch": {"checks": [{"claim": 1, "verdict": "supported", "line": 1}]},
        "answer_from_context": {"answer": "Craig Newmark"},
        "judge_context_relevance": lambda prompt: fakes.context_relevance("yes", [line_of_gold(prompt)]),
        "judge_answer_relevance": fakes.answer_relevance(),
        "judge_semantic_similarity": fakes.similarity(5),
        "LiveRagRelevanceJudgment": {"reasoning": "r", "addresses_question": True, "no_answer": False,
                                     "answers_correctly": True, "contains_irrelevant_content": False,
                                     "irrelevant_content_harms_usefulness": False},
    }
    replies.update(overrides)
    return replies


def every_step(context_passages: list[str], language: str | None = None) -> list[tuple[str, list[str]]]:
    """Every judge step of one item, rendered by the nodes: rag with model-listed claims, the
    similarity fallback (no embeddings) and the second reading; rag with batch claim checks;
    liverag (its relevance and its claim check)."""
    tag = {"language": language} if language else {}
    rag = {"question": QUESTION, "answer": ANSWER, "context": context_passages, "reference": REFERENCE} | tag
    live = {"question": QUESTION, "answer": ANSWER, "documents": context_passages, "gold_reference": REFERENCE} | tag
    requests: list[tuple[str, list[str]]] = []
    for item, rubric, settings in [
        (rag, "rag", {"claim_extraction": "model"}),
        (rag, "rag", {"claim_check": "batch"}),
        (live, "liverag", {}),
    ]:
        judge = MessageRecorder(scripts={}, default={fakes.STEP_SCHEMAS.get(k, k): v for k, v in scripts().items()})
        context = JudgeContext(model=judge, model_id="scripted", embeddings=False,
                               calibration=with_second_look(default_profile()), **settings)  # OwnAnswer asked too
        run = run_evaluation(item, model=context, rubric=rubric)
        assert run.result.get("evaluation_status", "success") == "success", run.result  # liverag has none
        requests += judge.requests
    return requests


@pytest.mark.parametrize("language", [None, "de"])
def test_every_step_of_a_short_context_item_opens_with_the_same_block(language):
    requests = every_step(SHORT_CONTEXT, language)
    steps = {step for step, _ in requests}
    assert steps == {"ExtractedClaims", "ClaimCheck", "OwnAnswer", "ContextRelevanceJudgment",
                     "AnswerRelevanceJudgment", "SimilarityJudgment", "BatchClaimChecks", "LiveRagRelevanceJudgment"}
    block = render_item_data(ItemData(QUESTION, ANSWER, context_lines(SHORT_CONTEXT)))
    assert block.endswith("</context>") and f"[2] {GOLD}" in block
    systems = {system for _, (system, _) in requests}
    assert len(systems) == 1
    assert ("The item is written in German (de)." in systems.pop()) == (language == "de")
    lines = block[block.index("<context>"):]
    for step, (_, user) in requests:
        assert user.count("<context>") == 1, step  # one context, the same lines as the block's
        assert lines in user, step
        if step == "ClaimCheck":
            assert user.startswith("TASK: check a claim")
            assert user.index("TASK:") < user.index("<question>") < user.index("<context>") < user.index("<claim>")
        elif step == "OwnAnswer":
            assert user.startswith("<context>") and user.index("</context>") < user.index("<question>")
        else:
            assert user.startswith(block + "\n"), step


def test_every_step_of_a_long_context_item_shares_question_and_answer_and_the_others_the_view():
    """A long context: claim checks show the lines closest to their claim after the shared
    question and answer; every other step shows the one view closest to the question."""
    requests = every_step(LONG_CONTEXT)
    shared = render_item_data(ItemData(QUESTION, ANSWER, None))
    budget = context_budget(JudgeContext(model=None).context_cap_tokens, None, QUESTION, ANSWER)
    view = question_view(QUESTION, LONG_CONTEXT, None, budget)
    assert not view.whole
    block = render_item_data(view.item_data(QUESTION, ANSWER))
    assert "The context is long; it shows" in block and GOLD in block
    assert len({system for _, (system, _) in requests}) == 1
    claim_checks = 0
    for step, (_, user) in requests:
        if step in CLAIM_STEPS:
            claim_checks += 1
            assert user.startswith("TASK:")  # the rules, then the question, its own lines, the claim
            assert user.index("TASK:") < user.index("<question>") < user.index("<context>") < user.index("<claim>")
            assert "The context is long" not in user
        elif step == "OwnAnswer":
            assert user.startswith(block[block.index("The context is long"):]), step  # the view, then the question
        else:
            assert user.startswith(block + "\n"), step
        assert step in OWN_LAYOUT or user.startswith(shared.split("</question>")[0]), step
    assert claim_checks == 2  # rag's and liverag's


@pytest.mark.parametrize("passages", [SHORT_CONTEXT, LONG_CONTEXT], ids=["short", "long"])
def test_line_numbers_in_the_new_layout_map_to_the_original_lines(passages):
    """The judge numbers the lines it sees; the claim's evidence and context relevance's useful
    lines come back as the original lines."""
    judge = MessageRecorder(scripts={}, default={fakes.STEP_SCHEMAS.get(k, k): v for k, v in scripts(
        check_claim=lambda prompt: fakes.verdict("supported", line_of_gold(prompt))).items()})
    context = JudgeContext(model=judge, model_id="scripted", embeddings=False)
    item = {"question": QUESTION, "answer": ANSWER, "context": passages,
            "metrics": ["faithfulness", "context_relevance"]}
    run = run_evaluation(item, model=context)
    assert [verdict.evidence for verdict in run.verdicts] == [GOLD]
    relevance = next(e for e in run.trace if e.node == "judge_context_relevance")
    assert relevance.detail["useful_lines"] == [context_lines(passages).index(GOLD) + 1]


def test_a_whole_item_against_a_server_sends_one_shared_prefix(tmp_path, capsys):
    """The HTTP requests a real run sends for one item (claim checks, context and answer
    relevance, the similarity fallback) share the system message; all but the claim checks open
    with the data block."""
    item = tmp_path / "item.json"
    item.write_text(__import__("json").dumps(
        {"question": QUESTION, "answer": "Craig Newmark founded Craigslist. He was born in 1952.",
         "context": SHORT_CONTEXT, "reference": REFERENCE}))
    judge = fakes.judge(**scripts())
    with ScriptedEndpoint(judge) as endpoint:
        assert cli.main(["evaluate", str(item), "--no-embeddings", *endpoint.flags]) == 0
    capsys.readouterr()
    bodies = [body for _, _, body in judge.calls]
    assert {step for step, _, _ in judge.calls} == {"ClaimCheck", "ContextRelevanceJudgment",
                                                    "AnswerRelevanceJudgment", "SimilarityJudgment"}
    assert len(bodies) == 5
    block = render_item_data(ItemData(QUESTION, "Craig Newmark founded Craigslist. He was born in 1952.",
                                      context_lines(SHORT_CONTEXT)))
    systems = {body["messages"][0]["content"] for body in bodies}
    assert len(systems) == 1 and all(body["messages"][0]["role"] == "system" for body in bodies)
    for step, _, body in judge.calls:
        user = body["messages"][1]["content"]
        if step in OWN_LAYOUT:
            assert user.startswith("TASK: check a claim")
        else:
            assert user.startswith(block + "\n"), step
