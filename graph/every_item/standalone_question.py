"""A conversation's last user turn, written once as a standalone question that every step judges.

Why: "and how tall is it?" judged alone is unanswerable, so context relevance, answer relevance
and the claim checks would all judge the wrong question. When a rag or liverag item carries
`history`, this node asks the judge once to write the follow-up as a standalone question
("How tall is the Eiffel Tower?"), records it in the trace, and hands it to every step as the
item's `question` (the follow-up is kept in the state's `standalone`). It runs between
`validate_input` and `embed_item`, so the texts the steps declare for embedding ahead
(`NodeSpec.embeds`, which read the validated input's `question`) are the standalone question's,
the ones the steps then judge. An item without history makes no call and goes from
`validate_input` straight to `embed_item`.

The history reaches this step only: the scoring steps never see it, so text planted in an
earlier turn ("rate this answer 1.0") can at most change the standalone question, and the
reply is checked in code before it is used: one short question (`STANDALONE_CHARS`) that keeps
a content word of the follow-up by stem, or says it in other words (close in meaning by the
run's embedder), when the follow-up has one (an unrelated question written in its place is
rejected and re-asked, like any invalid reply).

When the call fails (no valid reply after the repairs), the steps that judge the question are
not sent (`validate_input.planned_nodes`, by which `embed_item` routes): their metrics fail
with the reason (rag's context and answer relevance, liverag's relevance;
`RubricSpec.question_nodes`), never judged silently against the bare follow-up.
Faithfulness and similarity do not judge the question and are judged as usual, with the
follow-up as the claims' question (docs/conversations.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from langgraph.runtime import Runtime
from pydantic import BaseModel

from ...llm.embeddings import cosine, run_embedder, similarity_from_cosine
from ...llm.steps import Step
from ...run.context import JudgeContext
from ...run.judgment_step import ask_judge
from ...run.state import JudgeState
from ...run.tracing import emit, event_from_outcome
from ...schemas.conversation import ChatMessage, StandaloneQuestion, StandaloneQuestionReply, prompt_window
from ...schemas.inputs import prompt_language
from ...text.languages import ItemLanguage
from ...text.stems import stem
from ...text.tokens import content_words

NODE = "write_standalone_question"


class ConversationalInput(Protocol):
    """What this step reads of a validated input (rag's and liverag's have it)."""

    question: str
    history: list[ChatMessage] | None

    @property
    def item_language(self) -> ItemLanguage: ...


def conversational(inputs: Mapping[str, BaseModel]) -> ConversationalInput | None:
    """The first validated input whose history holds a message with text (rag and liverag read
    the same item, so one question serves both), else None: no call is needed."""
    for validated in inputs.values():
        history = getattr(validated, "history", None)
        if history and any(message.content.strip() for message in history):
            return validated  # type: ignore[return-value]  # it has a history, so it is one
    return None


PARAPHRASE_FLOOR = 0.3
"""The closeness (people's 0..1 similarity scale, `llm.embeddings.similarity_from_cosine`) at
which a reply that shares no word stem with the follow-up still counts as the follow-up in
other words ("How tall is it?" -> "What is the height of the Eiffel Tower?")."""


def _stems(text: str, language: str | None) -> set[str]:
    return {stem(word, language) for word in content_words(text, language)}


def keeps_the_followup(
    followup: str, language: str | None, closeness: Callable[[str], float | None] | None = None,
) -> Callable[[StandaloneQuestionReply], list[str]]:
    """The reply check: a standalone question that shares no content word with the follow-up,
    by stem ("tall", "tallness") or by meaning (`closeness` of the two questions, when an
    embedder is at hand, at least `PARAPHRASE_FLOOR`), is another question, not this one
    rewritten. Why meaning too: a faithful rewrite in other words is the same question, and
    rejecting it fails the item's relevance metrics."""
    wanted = _stems(followup, language)

    def check(reply: StandaloneQuestionReply) -> list[str]:
        if not reply.question.strip():
            return ["'question' is empty: write the user's question as a standalone question"]
        if not wanted or wanted & _stems(reply.question, language):
            return []
        close = closeness(reply.question) if closeness is not None else None
        if close is not None and close >= PARAPHRASE_FLOOR:
            return []
        return ["the standalone question must keep the meaning and the words of the user's latest "
                "question; replace only what refers to the conversation"]

    return check


def followup_closeness(followup: str, context: object) -> Callable[[str], float | None] | None:
    """How close a reply is to the follow-up in meaning, with the run's embedder (None when
    the run has none: the check then reads word stems only)."""
    embedder = run_embedder(context)
    if embedder is None:
        return None

    def closeness(question: str) -> float | None:
        asked, written = embedder.embed([followup, question])
        return similarity_from_cosine(embedder, cosine(asked, written))

    return closeness


def write_standalone_question(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    """One call; on success every conversational input gets the standalone question as its
    `question`."""
    inputs = dict(state.get("inputs", {}))
    subject = conversational(inputs)
    started = time.perf_counter()
    if subject is None:  # routed here only with a history; kept total for direct callers
        return {}
    followup = subject.question
    language = subject.item_language.code
    window = prompt_window(subject.history or [])
    outcome = yield from ask_judge(
        NODE, StandaloneQuestionReply, runtime, check=keeps_the_followup(followup, language, followup_closeness(followup, runtime.context)),
        history=[m.model_dump() for m in window.messages], question=followup,
        language=prompt_language(language),
    )
    detail: dict[str, Any] = {"followup": followup, "history_messages": window.total,
                              "history_shown": len(window.messages)}
    if window.cut:
        detail["history_cut"] = window.cut
    event = event_from_outcome(NODE, outcome, started, detail=(
        outcome.value.model_dump() if outcome.value is not None else {}) | detail)
    if outcome.value is not None:  # the trace's one line says what every step will judge
        event.note = f"question: {outcome.value.question} (follow-up: {followup})"
    update = {"judgments": {NODE: outcome}, "trace": [emit(runtime, event)]}
    if outcome.value is None:
        error = f"the standalone question could not be written: {outcome.error or 'no valid reply'}"
        return update | {"standalone": StandaloneQuestion(followup=followup, error=error)}
    question = outcome.value.question
    for name, validated in inputs.items():
        if getattr(validated, "history", None) is not None:
            inputs[name] = validated.model_copy(update={"question": question})
    return update | {"inputs": inputs, "standalone": StandaloneQuestion(followup=followup, question=question)}
