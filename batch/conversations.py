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
reference name). The line's `rubric`, `evaluation_goal`, `metrics`, `language` and
`context_ids` apply to every turn, and so does a line-level context; a line-level reference is
read for a conversation of one turn. Every other key is reported, as a single item's are: it
is put on the turn items under a name that says where it was (`team`, `messages[2].tool_calls`),
which the item reading lists as unused. Two keys for one thing (`messages` and `turns`, a
message's `context` and `contexts`, a line's context beside a message's) are refused, never
picked. A line whose messages cannot be read, or with no assistant turn to judge, is one
failed record under the conversation's id, as any bad line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..schemas.conversation import MAX_HISTORY_MESSAGES, HistoryError, read_message
from ..schemas.field_aliases import (
    CONTEXT_NAMES,
    CONVERSATION_KEYS,
    HISTORY_NAMES,
    REFERENCE_NAMES,
    context_value,
    is_conversation,
)
from rich.table import Table
from rich.text import Text

from ..text.visible import visible
from .reader import PREFIX, Entry, TurnOf
from .summary import metric_values, record_failure

SHARED_KEYS: tuple[str, ...] = ("rubric", "evaluation_goal", "metrics", "language")
"""Keys of a conversation line that every one of its turns takes."""
TURN_SEPARATOR = "/turn-"
MAX_CONVERSATION_MESSAGES = MAX_HISTORY_MESSAGES + 2
"""A conversation's last turn has every message but its question and answer as history, which
is bounded (`MAX_HISTORY_MESSAGES`): a longer line is refused before any turn is built."""
MESSAGE_KEYS: frozenset[str] = frozenset({"role", "content", "type", "data", "lc", "kwargs", "id"})
"""What a message is read from (`schemas.conversation.read_message`): never reported as unread."""
_TURN_ID = re.compile(r".*" + re.escape(TURN_SEPARATOR) + r"[1-9][0-9]*")


def turn_id(conversation: str | int, turn: int) -> str:
    return f"{conversation}{TURN_SEPARATOR}{turn}"


def is_turn_id(value: str | int) -> bool:
    """`value` has the form of a conversation turn's id (`<conversation>/turn-<n>`)."""
    return isinstance(value, str) and _TURN_ID.fullmatch(value) is not None


@dataclass(frozen=True)
class _Message:
    role: str
    content: str
    context: Any = None
    reference: str | None = None
    unread: tuple[str, ...] = ()
    """The message's keys holding a value that nothing reads (`tool_calls`, `name`)."""


def _holds_value(value: Any) -> bool:
    return value is not None and value is not False and not (isinstance(value, (str, list, dict)) and not value)


def _one_of(holder: Mapping[str, Any], names: Sequence[str], what: str, where: str) -> tuple[str, Any] | None:
    """The one key of `names` holding a value, or None; two of them are a clash, never a pick."""
    present = [name for name in names if holder.get(name) is not None]
    if len(present) > 1:
        raise HistoryError(f"{where} gives the {what} under both {present[0]!r} and {present[1]!r}; keep one")
    return (present[0], holder[present[0]]) if present else None


def _message(raw: Any, where: str) -> _Message:
    message = read_message(raw, where)
    extra = raw if isinstance(raw, Mapping) else {}
    context = _one_of(extra, CONTEXT_NAMES, "context", where)
    reference = _one_of(extra, REFERENCE_NAMES, "reference", where)
    if reference is not None and not isinstance(reference[1], str):
        raise HistoryError(f"{where}'s reference must be text")
    read = MESSAGE_KEYS | set(CONTEXT_NAMES) | set(REFERENCE_NAMES)
    data = extra.get("data") if isinstance(extra.get("data"), Mapping) else {}
    unread = tuple([key for key, value in extra.items() if key not in read and _holds_value(value)]
                   + [f"data.{key}" for key, value in data.items()
                      if key not in ("content", "role", "type") and _holds_value(value)])
    return _Message(message.role, message.content, None if context is None else context_value(context[1]),
                    None if reference is None else reference[1], unread)


@dataclass(frozen=True)
class _Line:
    """A conversation line's own keys, read as a single item's are."""

    key: str
    shared: dict[str, Any]
    context: tuple[str, Any] | None
    reference: tuple[str, Any] | None
    unknown: dict[str, Any]


def _line(item: Mapping[str, Any]) -> _Line:
    given = [key for key in CONVERSATION_KEYS if item.get(key) is not None]
    if len(given) > 1:
        raise HistoryError(f"the line gives both {given[0]!r} and {given[1]!r}; a conversation is one list of messages")
    key = given[0]
    if not isinstance(item[key], list):
        raise HistoryError(f"{key!r} must be a list of messages")
    history = [name for name in HISTORY_NAMES if item.get(name) is not None]
    if history:
        raise HistoryError(f"a conversation line's history is its {key!r}; {history[0]!r} beside them is not read "
                           "(move those messages to the start of the list)")
    context = _one_of(item, CONTEXT_NAMES, "context", "the line")
    reference = _one_of(item, REFERENCE_NAMES, "reference", "the line")
    if reference is not None and not isinstance(reference[1], str):
        raise HistoryError("the line's reference must be text")
    read = {"id", *CONVERSATION_KEYS, *SHARED_KEYS, *CONTEXT_NAMES, *REFERENCE_NAMES}
    shared = {name: item[name] for name in (*SHARED_KEYS, "context_ids") if item.get(name) is not None}
    unknown = {name: value for name, value in item.items() if name not in read and name != "context_ids"
               and value is not None}
    return _Line(key, shared, context, reference, unknown)


@dataclass(frozen=True)
class _Turn:
    user: int
    reply: int


def _turn_item(line: _Line, history: list[dict[str, str]], messages: list[_Message], turn: _Turn,
               unread: dict[str, Any]) -> dict[str, Any]:
    liverag = line.shared.get("rubric") == "liverag"
    reply = messages[turn.reply]
    item: dict[str, Any] = {
        **line.shared,
        "question": messages[turn.user].content,
        "answer": reply.content,
        "history": history[:turn.user],
    }
    context = reply.context if reply.context is not None else (
        context_value(line.context[1]) if line.context is not None else None)
    if context is not None or liverag:
        item["documents" if liverag else "context"] = context if context is not None else []
    reference = reply.reference if reply.reference is not None else (
        line.reference[1] if line.reference is not None else None)
    if reference is not None:
        item["gold_reference" if liverag else "reference"] = reference
    return {**item, **unread}


def _turns(messages: list[_Message]) -> list[_Turn]:
    turns: list[_Turn] = []
    last_user: int | None = None
    for index, message in enumerate(messages):
        if message.role == "user":
            last_user = index
        elif message.role == "assistant" and message.content.strip() and last_user is not None:
            turns.append(_Turn(last_user, index))
    return turns


def _check_clashes(line: _Line, messages: list[_Message], turns: list[_Turn]) -> None:
    """A line-level context or reference beside a message's own is a clash, refused; a
    line-level reference names no turn, so it is read only for a conversation of one turn."""
    for turn in turns:
        reply = messages[turn.reply]
        if line.context is not None and reply.context is not None:
            raise HistoryError(f"the line gives a context ({line.context[0]!r}) and message {turn.reply + 1} its own: "
                               "give it once (on the line for every turn, or on each assistant message)")
        if line.reference is not None and reply.reference is not None:
            raise HistoryError(f"the line gives a reference ({line.reference[0]!r}) and message {turn.reply + 1} its own: "
                               "give it once")
    if line.reference is not None and len(turns) > 1:
        raise HistoryError(f"the line's reference ({line.reference[0]!r}) does not say which of its {len(turns)} turns "
                           "it is for: put it on that assistant message")


def _unread_keys(line: _Line, messages: list[_Message], raw_key: str, turns: list[_Turn]) -> list[dict[str, Any]]:
    """Per turn, the keys nothing reads, under names that say where they were: the line's own
    unknown keys on every turn, a message's on the first turn that holds it (as history,
    question or answer), so each is reported once per turn it could concern."""
    per_turn: list[dict[str, Any]] = [dict(line.unknown) for _ in turns]
    position = 0
    for index, message in enumerate(messages):
        while position + 1 < len(turns) and turns[position].reply < index:
            position += 1
        for key in message.unread:
            per_turn[position][f"{raw_key}[{index + 1}].{key}"] = True
    return per_turn


def expand(entry: Entry) -> list[Entry]:
    """A conversation entry as one entry per assistant turn (a turn answers the last user
    message before it); any other entry as it is.

    Each turn's history is a slice of one list of message dicts shared by all turns (no message
    is copied per turn), and the line's message count is checked before any is read, so a
    line costs memory linear in its size times at most `MAX_CONVERSATION_MESSAGES`."""
    if entry.item is None or not is_conversation(entry.item):
        return [entry]
    try:
        line = _line(entry.item)
        raw = entry.item[line.key]
        if len(raw) > MAX_CONVERSATION_MESSAGES:
            raise HistoryError(f"{line.key!r} holds {len(raw)} messages, over the limit of {MAX_CONVERSATION_MESSAGES} "
                               f"(a turn's history is at most {MAX_HISTORY_MESSAGES} messages)")
        messages = [_message(message, f"{line.key!r} message {index + 1}") for index, message in enumerate(raw)]
        turns = _turns(messages)
        _check_clashes(line, messages, turns)
    except HistoryError as error:
        return [Entry(entry.line, entry.id, error=f"{PREFIX}: line {entry.line}: {error}.")]
    if not turns:
        return [Entry(entry.line, entry.id, error=(
            f"{PREFIX}: line {entry.line}: the conversation has no assistant turn after a user message to judge."))]
    history = [{"role": m.role, "content": m.content} for m in messages]
    unread = _unread_keys(line, messages, line.key, turns)
    entries = []
    for number, turn in enumerate(turns, start=1):
        item_id = turn_id(entry.id, number)
        item = {"id": item_id, **_turn_item(line, history, messages, turn, unread[number - 1])}
        entries.append(Entry(entry.line, item_id, item=item, conversation=TurnOf(entry.id, number, len(turns))))
    return entries


def expand_conversations(entries: Iterable[Entry]) -> Iterator[Entry]:
    """Every entry, a conversation as its turns (`expand`), with ids kept apart: an id of a
    turn's form (`c/turn-2`) is refused on any line, so no item takes a turn's place, and a
    conversation id given twice is an input error on the second line, so two chats never merge
    turn by turn. The same answer on every pass over the input."""
    conversations: dict[str, int] = {}
    for entry in entries:
        if entry.conversation is None and is_turn_id(entry.id):  # judged or not, its record must not take the id
            yield Entry(entry.line, f"line-{entry.line}", error=entry.error or (
                f"{PREFIX}: line {entry.line}: id {str(entry.id)[:80]!r} has the form of a conversation turn's id "
                f"(<conversation>{TURN_SEPARATOR}<n>); give this item another id."))
            continue
        if entry.item is not None and is_conversation(entry.item):
            first = conversations.setdefault(entry.key, entry.line)
            if first != entry.line:
                yield Entry(entry.line, entry.id, error=(
                    f"{PREFIX}: line {entry.line}: conversation id {str(entry.id)[:80]!r} is already the id of the "
                    f"conversation on line {first}; give each conversation its own id."))
                continue
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


class ConversationCollector:
    """Conversation summaries built one record at a time, for a reader that does not keep the
    records (`compare` streams a results file); `conversation_summaries` over a list."""

    def __init__(self) -> None:
        self._found: dict[str, ConversationSummary] = {}

    def add(self, record: dict) -> None:
        tag = record.get("conversation") if isinstance(record, dict) else None
        if not isinstance(tag, dict) or not isinstance(tag.get("turn"), int):
            return
        key = str(tag.get("id"))
        summary = self._found.setdefault(key, ConversationSummary(tag.get("id"), int(tag.get("turns") or 0)))
        summary.judged += 1
        if record_failure(record) is not None:
            summary.failed.append(tag["turn"])
        for metric, value in metric_values(record):
            summary.values.setdefault(metric, []).append((tag["turn"], value))

    def summaries(self) -> list[ConversationSummary]:
        """The conversations in first-record order, their turns in turn order."""
        for summary in self._found.values():
            summary.failed.sort()
            for values in summary.values.values():
                values.sort(key=lambda pair: pair[0])
        return list(self._found.values())


def conversation_summaries(records: Iterable[dict]) -> list[ConversationSummary]:
    """The conversations of a results file, in first-record order, from their turn records."""
    collector = ConversationCollector()
    for record in records:
        collector.add(record)
    return collector.summaries()


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
