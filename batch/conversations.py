"""A conversation file: one conversation per line, judged turn by turn.

Why here, where entries are read: a conversation line becomes one entry per assistant turn,
each an ordinary rag (or liverag) item with the conversation so far as its `history`. So every
part of the batch works per turn with no other change: the triage, resume and duplicates go by
the turn's id (`<conversation id>/turn-<n>`), each turn gets its record, the engines and the dry
run judge turns like any item, and the record says which turn it is (`conversation`:
`{"id", "turn", "turns"}`), from which the summary, `compare` and the report build the
per-conversation view (`conversation_summaries`).

A line is a conversation by its shape (docs/conversations.md): an object with a `messages` (or
DeepEval's `turns`) list and no question or answer key. Each message is `{"role", "content"}`
(or a LangChain message dict); an assistant message may carry the context it retrieved under
any context name (`context`, `retrieval_context`, `documents`, ...) and a `reference` (any
reference name). The line's `rubric`, `evaluation_goal`, `metrics` and `language` apply to
every turn. A line whose messages cannot be read, or with no assistant turn to judge, is one
failed record under the conversation's id, as any bad line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..schemas.conversation import HistoryError, read_message
from ..schemas.field_aliases import (
    ANSWER_NAMES,
    CONTEXT_NAMES,
    QUESTION_NAMES,
    REFERENCE_NAMES,
    context_value,
)
from rich.table import Table
from rich.text import Text

from ..text.visible import visible
from .reader import PREFIX, Entry, TurnOf
from .summary import metric_values, record_failure

CONVERSATION_KEYS: tuple[str, ...] = ("messages", "turns")
"""judgegraph's conversation line, DeepEval's `ConversationalTestCase`."""
SHARED_KEYS: tuple[str, ...] = ("rubric", "evaluation_goal", "metrics", "language")
"""Keys of a conversation line that every one of its turns takes."""
TURN_SEPARATOR = "/turn-"


def is_conversation(item: Any) -> bool:
    """An object with a list of messages and no key a single item's question or answer has."""
    if not isinstance(item, Mapping):
        return False
    if not any(isinstance(item.get(key), list) for key in CONVERSATION_KEYS):
        return False
    return not any(item.get(key) is not None for key in (*QUESTION_NAMES, *ANSWER_NAMES))


def turn_id(conversation: str | int, turn: int) -> str:
    return f"{conversation}{TURN_SEPARATOR}{turn}"


@dataclass(frozen=True)
class _Message:
    role: str
    content: str
    context: Any = None
    reference: str | None = None


def _first(message: Mapping[str, Any], names: Sequence[str]) -> Any:
    return next((message[name] for name in names if message.get(name) is not None), None)


def _messages(item: Mapping[str, Any]) -> list[_Message]:
    key = next(key for key in CONVERSATION_KEYS if isinstance(item.get(key), list))
    read: list[_Message] = []
    for index, raw in enumerate(item[key]):
        message = read_message(raw, f"'{key}' message {index + 1}")
        extra = raw if isinstance(raw, Mapping) else {}
        context = _first(extra, CONTEXT_NAMES)
        reference = _first(extra, REFERENCE_NAMES)
        if reference is not None and not isinstance(reference, str):
            raise HistoryError(f"'{key}' message {index + 1}'s reference must be text")
        read.append(_Message(message.role, message.content,
                             None if context is None else context_value(context), reference))
    return read


def _turn_item(shared: dict[str, Any], messages: list[_Message], user: int, reply: _Message) -> dict[str, Any]:
    liverag = shared.get("rubric") == "liverag"
    item: dict[str, Any] = {
        **shared,
        "question": messages[user].content,
        "answer": reply.content,
        "history": [{"role": m.role, "content": m.content} for m in messages[:user]],
    }
    if reply.context is not None or liverag:
        item["documents" if liverag else "context"] = reply.context if reply.context is not None else []
    if reply.reference is not None:
        item["gold_reference" if liverag else "reference"] = reply.reference
    return item


def expand(entry: Entry) -> list[Entry]:
    """A conversation entry as one entry per assistant turn (a turn answers the last user
    message before it); any other entry as it is."""
    if entry.item is None or not is_conversation(entry.item):
        return [entry]
    try:
        messages = _messages(entry.item)
    except HistoryError as error:
        return [Entry(entry.line, entry.id, error=f"{PREFIX}: line {entry.line}: {error}.")]
    shared = {key: entry.item[key] for key in SHARED_KEYS if entry.item.get(key) is not None}
    turns: list[tuple[int, _Message]] = []
    last_user: int | None = None
    for index, message in enumerate(messages):
        if message.role == "user":
            last_user = index
        elif message.role == "assistant" and message.content.strip() and last_user is not None:
            turns.append((last_user, message))
    if not turns:
        return [Entry(entry.line, entry.id, error=(
            f"{PREFIX}: line {entry.line}: the conversation has no assistant turn after a user message to judge."))]
    entries = []
    for number, (user, reply) in enumerate(turns, start=1):
        item_id = turn_id(entry.id, number)
        item = {"id": item_id, **_turn_item(shared, messages, user, reply)}
        entries.append(Entry(entry.line, item_id, item=item, conversation=TurnOf(entry.id, number, len(turns))))
    return entries


def expand_conversations(entries: Iterable[Entry]) -> Iterator[Entry]:
    for entry in entries:
        yield from expand(entry)


@dataclass
class ConversationSummary:
    """One conversation's turns, read back from their records: the mean per metric and the
    worst turn per metric (the lowest value; a failed turn counts as failed, not as 0)."""

    id: str | int
    turns: int
    """Turns the conversation has."""
    judged: int = 0
    """Turn records read."""
    failed: list[int] = field(default_factory=list)
    values: dict[str, list[tuple[int, float | None]]] = field(default_factory=dict)
    """Per metric column: (turn, value) of each turn record, None when null or failed."""

    def mean(self, metric: str) -> float | None:
        scored = [value for _, value in self.values.get(metric, []) if value is not None]
        return sum(scored) / len(scored) if scored else None

    def worst(self, metric: str) -> tuple[int, float] | None:
        scored = [(value, turn) for turn, value in self.values.get(metric, []) if value is not None]
        if not scored:
            return None
        value, turn = min(scored)
        return turn, value

    def as_dict(self) -> dict[str, Any]:
        metrics = {}
        for metric in self.values:
            worst = self.worst(metric)
            mean = self.mean(metric)
            metrics[metric] = {"mean": None if mean is None else round(mean, 4),
                               "worst_turn": None if worst is None else worst[0],
                               "worst": None if worst is None else worst[1]}
        return {"id": self.id, "turns": self.turns, "judged": self.judged, "failed_turns": self.failed,
                "metrics": metrics}


def conversation_summaries(records: Iterable[dict]) -> list[ConversationSummary]:
    """The conversations of a results file, in first-record order, from their turn records."""
    found: dict[str, ConversationSummary] = {}
    for record in records:
        tag = record.get("conversation") if isinstance(record, dict) else None
        if not isinstance(tag, dict) or not isinstance(tag.get("turn"), int):
            continue
        key = str(tag.get("id"))
        summary = found.setdefault(key, ConversationSummary(tag.get("id"), int(tag.get("turns") or 0)))
        summary.judged += 1
        if record_failure(record) is not None:
            summary.failed.append(tag["turn"])
        for metric, value in metric_values(record):
            summary.values.setdefault(metric, []).append((tag["turn"], value))
    for summary in found.values():
        summary.failed.sort()
        for values in summary.values.values():
            values.sort(key=lambda pair: pair[0])
    return list(found.values())


SHOWN_CONVERSATIONS = 20
"""The summary prints the worst conversations first, this many; the records hold them all."""


def conversation_table(summaries: Sequence[ConversationSummary]) -> Table:
    """Per conversation: turns judged and failed, and per metric its mean and worst turn;
    conversations with a failed turn or the lowest first metric first."""
    metrics = list(dict.fromkeys(metric for summary in summaries for metric in summary.values))
    table = Table(title=f"Conversations ({len(summaries):,}; mean and worst turn per metric)", title_justify="left")
    table.add_column("conversation")
    table.add_column("turns", justify="right")
    table.add_column("failed turns", justify="right")
    for metric in metrics:
        table.add_column(Text(visible(metric)), justify="right")

    def order(summary: ConversationSummary) -> tuple[int, float]:
        first = summary.mean(metrics[0]) if metrics else None
        return (0 if summary.failed else 1, first if first is not None else -1.0)

    for summary in sorted(summaries, key=order)[:SHOWN_CONVERSATIONS]:
        cells = []
        for metric in metrics:
            mean, worst = summary.mean(metric), summary.worst(metric)
            cells.append("-" if mean is None else f"{mean:.2f} (turn {worst[0]}: {worst[1]:.2f})" if worst else f"{mean:.2f}")
        failed = ", ".join(str(turn) for turn in summary.failed) or "-"
        table.add_row(Text(visible(str(summary.id))), f"{summary.judged}/{summary.turns}", failed, *cells)
    return table
