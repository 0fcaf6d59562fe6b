"""A LangSmith thread (a conversation's runs) judged turn by turn, as feedback rows.

Why: LangSmith groups a chat app's traces into threads (`thread_id` / `session_id` metadata)
and runs thread evaluators over them; each trace is one turn, its top-level inputs and outputs
holding `messages` (LangChain, OpenAI) or the app's own keys. judgegraph reads the thread's
runs (oldest first) as a conversation (`batch.conversations`: the same reading as a
conversation file's line), judges each assistant turn with its history and the context that
turn retrieved, and returns:

- per turn, one row per metric (as `create_rag_evaluator`), with `target_run_id` set to the
  turn's run, so the feedback lands on that trace, and `metadata.turn`;
- per metric, a thread row `<metric>_thread_mean` whose comment names the worst turn.

    from langsmith import Client
    from judgegraph.evaluators.threads import create_thread_evaluator

    runs = list(Client().read_thread(thread_id=thread, project_name="my-chat-app"))
    rows = create_thread_evaluator(model="openai:gpt-4o-mini")(runs=runs)

A turn's context is read from its run's outputs or inputs (any context name: `context`,
`documents`, `source_documents`...), else from its child runs of type `retriever`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..batch.conversations import ConversationSummary, expand
from ..batch.reader import Entry
from ..graph.api import EvaluationRun, arun_evaluation, run_evaluation
from ..run.judge_builder import ModelSpec, build_judge
from ..schemas.conversation import HistoryError, read_messages
from ..schemas.evaluator_fields import ANSWER_KEYS, QUESTION_KEYS, context_of, passage_text, pick
from .feedback import feedback_rows
from .langsmith_offline import untraced_when_nothing_can_be_uploaded


def _part(run: Any, name: str) -> Any:
    return run.get(name) if isinstance(run, Mapping) else getattr(run, name, None)


def _last(messages: Any, role: str) -> str | None:
    if not isinstance(messages, (list, tuple)) or not messages:
        return None
    try:
        read = read_messages(messages, "messages")
    except HistoryError:
        return None
    return next((m.content for m in reversed(read) if m.role == role and m.content.strip()), None)


def _retrieved(run: Any) -> list[str] | None:
    for child in _part(run, "child_runs") or []:
        if _part(child, "run_type") == "retriever":
            documents = (_part(child, "outputs") or {}).get("documents")
            if isinstance(documents, list):
                return [passage_text(document) for document in documents]
    return None


def thread_conversation(runs: Iterable[Any]) -> dict[str, Any]:
    """The thread's runs (LangSmith `Run`s or their dicts), oldest first, as a conversation
    line: each run a user message and the assistant's reply with the context it retrieved."""
    ordered = sorted(runs, key=lambda run: str(_part(run, "start_time") or ""))
    messages: list[dict[str, Any]] = []
    for run in ordered:
        inputs, outputs = _part(run, "inputs") or {}, _part(run, "outputs") or {}
        question = _last(inputs.get("messages") if isinstance(inputs, Mapping) else None, "user") \
            or pick(inputs, QUESTION_KEYS)
        answer = _last(outputs.get("messages") if isinstance(outputs, Mapping) else None, "assistant") \
            or pick(outputs, ANSWER_KEYS)
        if not isinstance(question, str) or not isinstance(answer, str):
            continue
        context = context_of(inputs, outputs, {})
        reply: dict[str, Any] = {"role": "assistant", "content": answer, "run_id": str(_part(run, "id") or "")}
        if context is None:
            context = _retrieved(run)
        if context is not None:
            reply["context"] = context
        messages += [{"role": "user", "content": question}, reply]
    return {"messages": messages}


def _turn_items(runs: Iterable[Any], rubric: str, metrics: Sequence[str] | None) -> list[tuple[Entry, str]]:
    line = thread_conversation(runs)
    run_ids = [m["run_id"] for m in line["messages"] if m["role"] == "assistant"]
    line["rubric"] = rubric
    if metrics:
        line["metrics"] = list(metrics)
    entries = [entry for entry in expand(Entry(0, "thread", item=line)) if entry.item is not None]
    return [(entry, run_ids[entry.conversation.turn - 1]) for entry in entries if entry.conversation]


def _rows(rubric: str, judged: list[tuple[Entry, str, EvaluationRun]], metrics: Sequence[str] | None,
          prefix: str) -> list[dict]:
    rows: list[dict] = []
    summary = ConversationSummary("thread", len(judged))
    for entry, run_id, run in judged:
        turn = entry.conversation.turn if entry.conversation else 0
        for row in feedback_rows(rubric, run, tuple(metrics) if metrics else None, prefix):
            row["metadata"]["turn"] = turn
            if run_id:
                row["target_run_id"] = run_id
            rows.append(row)
            if isinstance(row.get("score"), (int, float)) or row.get("score") is None:
                summary.values.setdefault(row["key"], []).append((turn, row.get("score")))
    for key in list(summary.values):
        mean, worst = summary.mean(key), summary.worst(key)
        comment = "no turn was judged" if worst is None else \
            f"mean over {len(judged)} turn(s); worst turn {worst[0]} ({worst[1]:g})"
        rows.append({"key": f"{key}_thread_mean", "score": None if mean is None else round(mean, 4),
                     "comment": comment, "metadata": {"rubric": rubric, "turns": len(judged),
                                                      "worst_turn": None if worst is None else worst[0]}})
    return rows


def create_thread_evaluator(rubric: str = "rag", *, model: ModelSpec = None, metrics: list[str] | None = None,
                            feedback_key_prefix: str = "", max_concurrency: int | None = None,
                            base_url: str | None = None, **settings: Any):
    """An evaluator `(*, runs) -> rows` that judges a LangSmith thread turn by turn.

    Args:
        rubric: `rag` or `liverag` (the rubrics that read a conversation's history).
        model: as `create_rag_evaluator`'s.
        metrics: rag only: judge only these metrics; None: all.
        feedback_key_prefix: prepended to every row's key.
        max_concurrency: the most steps of a judged turn run at once (its nodes, and its claim
            checks; docs/architecture.md, "The claims node").
        base_url: the OpenAI-compatible server a model given by name is served at.
        **settings: `JudgeContext` settings.
    """
    if rubric not in ("rag", "liverag"):
        raise ValueError(f"a thread is judged with the rag or liverag rubric, not {rubric!r}")
    state: dict[str, Any] = {}

    def context():
        if "context" not in state:
            state["context"] = build_judge(model, base_url=base_url, **settings)
        return state["context"]

    def evaluator(*, runs: Iterable[Any], **_: Any) -> list[dict]:
        with untraced_when_nothing_can_be_uploaded():
            judged = [(entry, run_id, run_evaluation({k: v for k, v in entry.item.items() if k != "id"},
                                                     model=context(), rubric=rubric, max_concurrency=max_concurrency))
                      for entry, run_id in _turn_items(runs, rubric, metrics)]
        return _rows(rubric, judged, metrics, feedback_key_prefix)

    evaluator.__name__ = f"judgegraph_{rubric}_thread"
    return evaluator


def create_async_thread_evaluator(rubric: str = "rag", *, model: ModelSpec = None, metrics: list[str] | None = None,
                                  feedback_key_prefix: str = "", max_concurrency: int | None = None,
                                  base_url: str | None = None, **settings: Any):
    """The async twin of `create_thread_evaluator`: the turns are judged concurrently."""
    if rubric not in ("rag", "liverag"):
        raise ValueError(f"a thread is judged with the rag or liverag rubric, not {rubric!r}")
    state: dict[str, Any] = {}

    async def evaluator(*, runs: Iterable[Any], **_: Any) -> list[dict]:
        if "context" not in state:
            state["context"] = build_judge(model, base_url=base_url, **settings)
        turns = _turn_items(runs, rubric, metrics)
        with untraced_when_nothing_can_be_uploaded():
            judged_runs = await asyncio.gather(*(
                arun_evaluation({k: v for k, v in entry.item.items() if k != "id"}, model=state["context"],
                                rubric=rubric, max_concurrency=max_concurrency) for entry, _ in turns))
        judged = [(entry, run_id, run) for (entry, run_id), run in zip(turns, judged_runs)]
        return _rows(rubric, judged, metrics, feedback_key_prefix)

    evaluator.__name__ = f"judgegraph_{rubric}_thread"
    return evaluator
