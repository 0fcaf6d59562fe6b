"""A LangSmith thread judged turn by turn (`create_thread_evaluator`), and the rag evaluator
reading a conversation's history from LangSmith's inputs; a scripted judge, no network."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid

import pytest
from langsmith.schemas import Run

from judgegraph.evaluators import create_rag_evaluator
from judgegraph.evaluators.threads import (
    create_async_thread_evaluator,
    create_thread_evaluator,
    thread_conversation,
)
from judgegraph.run.context import JudgeContext
from tests.conftest import happy_scripts
from tests.support import fakes

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def run(turn: int, question: str, answer: str, documents: list[str], *, retriever_child: bool = False) -> Run:
    """A thread's root run as LangSmith stores it: `messages` in, `messages` out."""
    outputs: dict = {"messages": [{"role": "assistant", "content": answer}]}
    children = []
    if retriever_child:
        children = [Run(id=uuid.uuid4(), name="retriever", run_type="retriever", start_time=START,
                        inputs={"query": question}, outputs={"documents": [{"page_content": d} for d in documents]},
                        trace_id=uuid.uuid4())]
    else:
        outputs["context"] = documents
    return Run(id=uuid.UUID(int=turn), name="chat", run_type="chain", start_time=START + dt.timedelta(minutes=turn),
               inputs={"messages": [{"role": "user", "content": question}]}, outputs=outputs,
               child_runs=children, trace_id=uuid.uuid4())


THREAD = [
    run(2, "How many people live there?", "About 2.1 million people.", ["Paris has 2.1 million inhabitants."],
        retriever_child=True),
    run(1, "What is the capital of France?", "Paris is the capital of France.", ["Paris is the capital of France."]),
]


def context(judge) -> JudgeContext:
    return JudgeContext(model=judge, model_id="scripted", embeddings=False)


def thread_judge():
    return fakes.judge(**happy_scripts(write_standalone_question=fakes.standalone("How many people live in Paris?")))


def test_a_thread_reads_as_a_conversation_oldest_run_first():
    line = thread_conversation(THREAD)
    assert [m["content"] for m in line["messages"]] == [
        "What is the capital of France?", "Paris is the capital of France.",
        "How many people live there?", "About 2.1 million people."]
    assert line["messages"][3]["context"] == ["Paris has 2.1 million inhabitants."]  # from the retriever child run
    assert line["messages"][3]["run_id"] == str(uuid.UUID(int=2))


def test_each_turn_gets_its_rows_on_its_run_and_the_thread_a_mean_with_the_worst_turn():
    judge = thread_judge()
    rows = create_thread_evaluator(model=context(judge), metrics=["faithfulness", "context_relevance"])(runs=THREAD)
    turn_rows = [r for r in rows if "turn" in r["metadata"]]
    assert [(r["key"], r["metadata"]["turn"], r["target_run_id"]) for r in turn_rows] == [
        ("faithfulness", 1, str(uuid.UUID(int=1))), ("context_relevance", 1, str(uuid.UUID(int=1))),
        ("faithfulness", 2, str(uuid.UUID(int=2))), ("context_relevance", 2, str(uuid.UUID(int=2)))]
    thread_rows = {r["key"]: r for r in rows if "turn" not in r["metadata"]}
    assert set(thread_rows) == {"faithfulness_thread_mean", "context_relevance_thread_mean"}
    assert thread_rows["faithfulness_thread_mean"]["score"] == 1.0
    assert "worst turn 1" in thread_rows["faithfulness_thread_mean"]["comment"]
    assert judge.count("write_standalone_question") == 1  # turn 2 only: turn 1 has no history
    assert any("How many people live in Paris?" in p for p in judge.prompts_for("judge_context_relevance"))


def test_the_async_thread_evaluator_gives_the_same_rows():
    sync_rows = create_thread_evaluator(model=context(thread_judge()), metrics=["faithfulness"])(runs=THREAD)
    async_rows = asyncio.run(create_async_thread_evaluator(model=context(thread_judge()),
                                                           metrics=["faithfulness"])(runs=THREAD))
    strip = lambda rows: [(r["key"], r["score"], r["metadata"].get("turn")) for r in rows]  # noqa: E731
    assert strip(async_rows) == strip(sync_rows)


def test_only_rubrics_that_read_history_judge_threads():
    with pytest.raises(ValueError, match="rag or liverag"):
        create_thread_evaluator("coverage")


def test_the_rag_evaluator_reads_history_and_langsmith_message_inputs():
    judge = thread_judge()
    evaluator = create_rag_evaluator(model=context(judge), metrics=["context_relevance"])
    history = [{"role": "user", "content": "What is the capital of France?"},
               {"role": "assistant", "content": "Paris."}]
    evaluator(inputs={"question": "How many people live there?", "chat_history": history},
              outputs={"answer": "2.1 million.", "context": ["Paris has 2.1 million inhabitants."]})
    evaluator(inputs={"messages": [*history, {"role": "user", "content": "How many people live there?"}]},
              outputs={"answer": "2.1 million.", "context": ["Paris has 2.1 million inhabitants."]})
    assert judge.count("write_standalone_question") == 2
    assert all("How many people live in Paris?" in p for p in judge.prompts_for("judge_context_relevance"))
