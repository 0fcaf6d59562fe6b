"""A conversation's earlier turns, as every chat stack writes them, read as one typed list.

Why: chat RAG answers "and how tall is it?" after three turns, and judged alone that question
is unanswerable. rag and liverag items may therefore carry `history`: the messages before the
question. People hand them over in the shapes their stack writes, and each is read here, below
the graph, into `ChatMessage(role, content)`:

- OpenAI-style `{"role": "user" | "assistant" | "system" | "developer" | "tool", "content"}`,
  with `content` a string or a list of parts (`{"type": "text", "text": ...}`);
- LangChain's dicts: `{"type": "human" | "ai" | "system" | "tool", "content"}` (RAGAS's
  messages too), `messages_to_dict`'s `{"type": "human", "data": {"content": ...}}` (a
  `ChatMessage`'s `{"type": "chat", "data": {"role": ..., "content": ...}}` by its role) and the
  serialized `{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs": {...}}`;
- LangChain `BaseMessage` objects, from Python callers.

Three rules keep it honest:

- a role no stack here writes is an input error naming it (never guessed, never dropped);
- a history is bounded (`MAX_HISTORY_MESSAGES`, `MAX_HISTORY_CHARS`), an input error beyond;
  the judge sees only its last turns (`prompt_window`), so a long chat costs a bounded prompt;
- the messages are data: their text reaches one step only (the standalone question), as a
  template variable inside a delimited section, never evaluated (docs/untrusted-input.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictStr

from .text import short_text

Role = Literal["user", "assistant", "system", "tool"]

ROLE_NAMES: Mapping[str, Role] = {
    "user": "user", "human": "user", "humanmessage": "user",
    "assistant": "assistant", "ai": "assistant", "aimessage": "assistant",
    "system": "system", "developer": "system", "systemmessage": "system",
    "tool": "tool", "function": "tool", "toolmessage": "tool", "functionmessage": "tool",
}
"""Every role name read, OpenAI's and LangChain's (its message types and class names)."""

MAX_HISTORY_MESSAGES = 500
"""More earlier messages than this in one item is an input error: a chat that long is a
conversation file (judged turn by turn), not one item's history."""
MAX_HISTORY_CHARS = 400_000
"""The history's text, summed; beyond it, an input error (a batch line is capped by
`--max-line-bytes` too)."""

WINDOW_MESSAGES = 12
"""The judge sees at most the last 12 earlier messages (six exchanges): what a follow-up
refers to is almost always in the last few turns, and the prompt stays bounded."""
WINDOW_CHARS = 6_000
"""...and at most this much of their text, the newest first; an older message that does not
fit is left out whole, a newest one that alone is longer is cut at its end."""
MESSAGE_CHARS = 1_500
"""Each message shown is cut to this many characters (an assistant's long answer matters by
its first lines: the entity a follow-up points back to)."""


class ChatMessage(BaseModel):
    """One earlier message: who said it and what, as text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    content: StrictStr


class HistoryError(ValueError):
    """A history that cannot be read; `str(error)` is one line naming the message."""


def _known_roles() -> str:
    return "user, assistant, system, developer, tool (LangChain: human, ai, system, tool)"


def _lc_class_role(ids: Any) -> str | None:
    if isinstance(ids, (list, tuple)) and ids and isinstance(ids[-1], str):
        return ids[-1].removesuffix("Chunk").lower()
    return None


def _role_and_content(message: Any, where: str) -> tuple[str, Any]:
    """The raw role name and content of one message in any of the shapes read."""
    if isinstance(message, Mapping):
        if message.get("lc") is not None and isinstance(message.get("kwargs"), Mapping):
            kwargs = message["kwargs"]
            role = kwargs.get("role") or _lc_class_role(message.get("id"))
            return str(role or ""), kwargs.get("content")
        if "role" in message:
            return str(message.get("role") or ""), message.get("content")
        if "type" in message:
            data = message.get("data")
            holder = data if isinstance(data, Mapping) and "content" in data else message  # messages_to_dict
            kind = str(message["type"])
            if kind.strip().lower() in ("chat", "chatmessage"):  # a ChatMessage: its role is its own field
                return str(holder.get("role") or message.get("role") or ""), holder.get("content")
            return kind, holder.get("content")
        raise HistoryError(f"{where} has neither 'role' nor 'type' (a message is "
                           "{\"role\": ..., \"content\": ...} or a LangChain message)")
    kind = getattr(message, "type", None)
    if isinstance(kind, str) and hasattr(message, "content"):  # a LangChain BaseMessage
        if kind == "chat":
            return str(getattr(message, "role", "")), message.content
        return kind, message.content
    got = "null" if message is None else type(message).__name__
    raise HistoryError(f"{where} is {got}, not a message")


def _content_text(content: Any, where: str) -> str:
    """A message's content as text: a string, or a list of parts (text parts joined, any other
    part named, never silently dropped)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif isinstance(part, Mapping):
                pieces.append(f"[{str(part.get('type') or 'non-text')[:40]} part not shown]")
            else:
                raise HistoryError(f"{where}'s content holds a {type(part).__name__}, not text")
        return "\n".join(pieces)
    raise HistoryError(f"{where}'s content is {type(content).__name__}, not text")


def read_message(message: Any, where: str = "message") -> ChatMessage:
    """One message in any shape read, as a `ChatMessage`; `HistoryError` otherwise."""
    if isinstance(message, ChatMessage):
        return message
    raw_role, content = _role_and_content(message, where)
    role = ROLE_NAMES.get(raw_role.strip().lower())
    if role is None:
        shown = raw_role.strip()[:40] or "(empty)"
        raise HistoryError(f"{where} has an unknown role {shown!r} (known: {_known_roles()})")
    return ChatMessage(role=role, content=_content_text(content, where))


def read_messages(value: Any, name: str = "history") -> list[ChatMessage]:
    """A list of messages, read and bounded; `HistoryError` (one line) otherwise."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        got = "a string" if isinstance(value, str) else type(value).__name__
        raise HistoryError(f"'{name}' must be a list of messages, got {got}")
    if len(value) > MAX_HISTORY_MESSAGES:
        raise HistoryError(f"'{name}' holds {len(value)} messages, over the limit of {MAX_HISTORY_MESSAGES} "
                           "(a long chat is a conversation file, judged turn by turn: docs/conversations.md)")
    messages = [read_message(message, f"'{name}' message {index + 1}") for index, message in enumerate(value)]
    total = sum(len(message.content) for message in messages)
    if total > MAX_HISTORY_CHARS:
        raise HistoryError(f"'{name}' holds {total} characters of text, over the limit of {MAX_HISTORY_CHARS}")
    return messages


def _history(value: Any) -> Any:
    if value is None:
        return None
    try:
        return read_messages(value)
    except HistoryError as error:
        raise ValueError(str(error)) from None


History = Annotated[list[ChatMessage] | None, BeforeValidator(_history)]
"""An input model's `history` field: None, or the earlier messages, read (`read_messages`)."""


def plain_messages(value: Any) -> Any:
    """Messages as plain `{"role", "content"}` dicts when they can be read, else the value as
    it is (for the input model to name the problem): LangChain objects become JSON data before
    the untrusted-value checks and the batch record see them."""
    if not isinstance(value, (list, tuple)):
        return value
    try:
        return [read_message(m).model_dump() for m in value]
    except HistoryError:
        return [m if isinstance(m, (Mapping, str, int, float, bool)) or m is None else repr(m)[:200]
                for m in value]


@dataclass(frozen=True)
class Window:
    """What of a history the judge is shown."""

    messages: tuple[ChatMessage, ...]
    total: int
    """The history's length: `total - len(messages)` older messages were left out."""
    cut: int
    """Messages shown cut short (`MESSAGE_CHARS`, or the newest over `WINDOW_CHARS`)."""

    @property
    def left_out(self) -> int:
        return self.total - len(self.messages)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def prompt_window(history: Sequence[ChatMessage]) -> Window:
    """The last `WINDOW_MESSAGES` messages that carry text, each cut to `MESSAGE_CHARS`, the
    oldest left out first while their text exceeds `WINDOW_CHARS`."""
    spoken = [m for m in history if m.content.strip()]
    shown: list[ChatMessage] = []
    used = cut = 0
    for message in reversed(spoken[-WINDOW_MESSAGES:]):
        text = _cut(message.content.strip(), MESSAGE_CHARS)
        if shown and used + len(text) > WINDOW_CHARS:
            break
        if not shown and len(text) > WINDOW_CHARS:
            text = _cut(text, WINDOW_CHARS)
        cut += text != message.content.strip()
        shown.append(ChatMessage(role=message.role, content=text))
        used += len(text)
    return Window(tuple(reversed(shown)), len(history), cut)


@dataclass(frozen=True)
class SplitTurns:
    """A message list given as the question (RAGAS `MultiTurnSample.user_input`), split."""

    question: str
    history: list[ChatMessage]
    answer: str | None
    """The assistant message after the last user message, when there is one."""


def split_last_user_turn(messages: Sequence[ChatMessage]) -> SplitTurns:
    """The last user message is the question, what precedes it the history, and an assistant
    message after it (the reply being judged) the answer; `HistoryError` without a user message."""
    last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None)
    if last_user is None:
        raise HistoryError("the message list has no user message to take as the question")
    after = [m for m in messages[last_user + 1:] if m.role == "assistant" and m.content.strip()]
    return SplitTurns(messages[last_user].content, list(messages[:last_user]),
                      after[-1].content if after else None)


STANDALONE_CHARS = 300
"""A standalone question is one question: longer replies are cut (`short_text`)."""


class StandaloneQuestionReply(BaseModel):
    """Reply of `write_standalone_question`: the last user turn, written to stand alone."""

    question: short_text(STANDALONE_CHARS, "the question, understandable without the conversation")  # type: ignore[valid-type]


class StandaloneQuestion(BaseModel):
    """What the run did with a conversation's last user turn: the question every step then
    judges, or why there is none (the steps that judge the question then fail with it)."""

    model_config = ConfigDict(frozen=True)

    followup: str
    """The last user turn as the item gives it."""
    question: str | None = None
    error: str | None = None
