"""Long contexts: what each step shows the judge (`run.context_view`), and that a context
far past the judge's window is judged, never failed.

Scripted judges, the hashed bag-of-words embedder of conftest; the real model's figures are in
benchmarks/long_context.py.
"""

from __future__ import annotations

import re

import pytest

from judgegraph.graph.api import run_evaluation
from judgegraph.run.context import JudgeContext
from judgegraph.run.context_view import (
    PROMPT_RESERVE_TOKENS,
    context_budget,
    estimate_tokens,
    fit_lines,
    question_view,
)
from tests.support import fakes

GOLD = "Craigslist was founded in 1995 by Craig Newmark in San Francisco."
QUESTION = "Who founded Craigslist?"


def filler(n: int) -> str:
    """A passage about something else, distinct per n."""
    return (f"Passage {n} is about the weather in town number {n}. "
            f"Rainfall reached {n + 10} millimetres in the month of storms number {n}.")


def long_context(passages: int, gold_at: int) -> list[str]:
    texts = [filler(n) for n in range(passages - 1)]
    texts.insert(gold_at, GOLD)
    return texts


def test_estimates_over_count_every_script():
    # tokenizers spend about 4.5 bytes per English token and 3-4 per CJK one: 3 bytes per token
    # is always at least the real count
    assert estimate_tokens("Craig Newmark founded Craigslist.") >= 6
    assert estimate_tokens("克雷格纽马克创立了网站") == 11  # one per CJK character: more than Qwen's ~0.7
    assert estimate_tokens("") == 0


def test_budget_is_the_cap_unless_the_window_leaves_less():
    assert context_budget(1024, None) == 1024
    assert context_budget(1024, 100_000, "question") == 1024
    assert context_budget(1024, 2048, "x" * 300) == 2048 - PROMPT_RESERVE_TOKENS - 100
    assert context_budget(1024, 1000, "a long answer " * 100) == 0  # the question and answer fill it
    assert context_budget(None, None) > 0


def test_a_context_that_fits_is_shown_whole_in_order():
    lines = ["One.", "Two.", "Three."]
    view = fit_lines(lines, [0.1, 0.9, 0.5], 1000)
    assert view.whole and view.lines == lines and view.note() is None


def test_a_long_context_keeps_the_closest_lines_in_their_order():
    lines = [f"Line {n} says something fairly long about topic {n}." for n in range(10)]
    scores = [0.0] * 10
    scores[7], scores[2], scores[5] = 0.9, 0.8, 0.7
    budget = sum(estimate_tokens(lines[i]) for i in (2, 5, 7))
    view = fit_lines(lines, scores, budget)
    assert view.positions == [2, 5, 7]
    assert view.lines == [lines[2], lines[5], lines[7]]
    assert not view.whole and "3 lines of the context closest to the question, of 10" in view.note()
    assert view.original_line_number(3) == 8 and view.original_line_number(4) is None


def test_one_huge_line_is_cut_to_the_budget_rather_than_dropped():
    huge = "word " * 5000
    view = fit_lines([huge], [1.0], 100)
    assert len(view.lines) == 1 and view.shown_tokens <= 101 and view.lines[0].endswith("…")


def test_a_chinese_context_without_spaces_is_cut_by_tokens_not_words():
    passage = "这是一个关于天气的很长的段落" * 400  # one "word" to str.split, thousands of tokens
    view = question_view("天气怎么样？", [passage], None, 512)
    assert view.shown_tokens <= 512


def test_the_gold_line_is_found_among_a_hundred_passages(fake_default_embedder):
    view = question_view(QUESTION, long_context(100, 63), fake_default_embedder, 200)
    assert GOLD in view.lines
    assert view.total_lines == 199 and len(view.lines) < 20


def _context(cap: int = 1024, window: int | None = 8192) -> JudgeContext:
    return JudgeContext(context_cap_tokens=cap, context_window=window)


def numbered_lines(prompt: str) -> list[str]:
    return re.findall(r"^\[\d+\] (.*)$", prompt, flags=re.MULTILINE)


def test_every_context_step_stays_inside_the_window_with_300_passages():
    passages = long_context(300, 151)
    window = 8192
    judge = fakes.judge(
        check_claim=fakes.verdict("supported", 1),
        judge_context_relevance=lambda prompt: fakes.context_relevance(
            "yes", [n for n, line in enumerate(numbered_lines(prompt), 1) if "Craig Newmark" in line]),
        judge_answer_relevance=fakes.answer_relevance(parts=[True]),
    )
    item = {"question": QUESTION, "context": passages, "answer": "Craig Newmark founded Craigslist in 1995.",
            "metrics": ["faithfulness", "context_relevance", "answer_relevance"]}
    context = _context(window=window)
    context.model, context.model_id = judge, "scripted"
    run = run_evaluation(item, model=context)
    assert run.result["evaluation_status"] == "success", run.result
    assert run.result["faithfulness"] == pytest.approx(1.0, abs=0.2)
    total = estimate_tokens("\n".join(passages))
    assert total > window  # the context alone is longer than the window
    for step, prompt, _ in judge.calls:
        assert estimate_tokens(prompt) < window - 512, step
        if step != "ClaimCheck":
            assert GOLD in prompt  # the gold line is among what the judge reads
    # precision is counted over the whole context: one useful line of 599
    relevance = next(e for e in run.trace if e.node == "judge_context_relevance")
    assert relevance.detail["context_lines"] == 599
    assert relevance.detail["useful_lines"] == [passages.index(GOLD) * 2 + 1]
    assert relevance.detail["precision"] < 0.01 and relevance.detail["recall"] == 1.0


def test_a_cut_context_is_announced_in_the_shared_block_before_the_answer():
    judge = fakes.judge(judge_answer_relevance=fakes.answer_relevance(parts=[True]))
    item = {"question": QUESTION, "context": long_context(100, 10),
            "answer": "Craig Newmark.", "metrics": ["answer_relevance"]}
    context = _context()
    context.model, context.model_id = judge, "scripted"
    run_evaluation(item, model=context)
    prompt = judge.prompts_for("judge_answer_relevance")[0]
    assert prompt.index("<question>") < prompt.index("The context is long; it shows the") < prompt.index("<context>")
    assert prompt.index("</context>") < prompt.index("<answer>")


def test_a_short_context_is_shown_whole_in_the_shared_block():
    """Every step's block is question, context (prompts.item_data), short or long; answer
    relevance shows the answer after it; a short context is shown whole, unannounced."""
    judge = fakes.judge(judge_answer_relevance=fakes.answer_relevance(parts=[True]))
    item = {"question": QUESTION, "context": GOLD, "answer": "Craig Newmark.", "metrics": ["answer_relevance"]}
    context = _context()
    context.model, context.model_id = judge, "scripted"
    run_evaluation(item, model=context)
    prompt = judge.prompts_for("judge_answer_relevance")[0]
    assert prompt.index("<question>") < prompt.index("<context>") < prompt.index("<answer>") < prompt.index("TASK:")
    assert f"[1] {GOLD}" in prompt
    assert "The context is long" not in prompt


def test_a_smaller_cap_shows_less(fake_default_embedder):
    item = {"question": QUESTION, "context": long_context(100, 40), "answer": "Craig Newmark.",
            "metrics": ["context_relevance"]}
    sizes = {}
    for cap in (256, 2048):
        judge = fakes.judge(judge_context_relevance=fakes.context_relevance("yes", [1]))
        context = _context(cap=cap)
        context.model, context.model_id = judge, "scripted"
        run_evaluation(item, model=context)
        sizes[cap] = len(numbered_lines(judge.prompts_for("judge_context_relevance")[0]))
    assert 0 < sizes[256] < sizes[2048]
