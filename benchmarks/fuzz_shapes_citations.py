"""Hostile cited answers and conversation lines for the fuzz soak: generators of input lines
with the records each must produce, and a soak that judges them through the batch CLI with
the demo judge (word overlap, no model) and checks what the lines promise.

    python -m benchmarks.fuzz_shapes_citations [--lines 1000] [--per-round 250] [--seed 42]

The generators (`citation_line`, `conversation_lines`, `shape_lines`) yield `ShapeLine`s: the
raw JSONL line, the record ids it owes, and a kind. Citation lines copy passage sentences
verbatim and cite them in one of the marker families an answer writes (source lists,
footnote and link definitions, `[[1]]`, `[-1]`, `^1`, superscripts, `` `[1]` ``), with blank
passages, `context_ids` of the wrong count, repeated sentences and answers of hundreds of
sentences. Conversation lines carry line-level context and reference, unknown keys, clashing
keys, LangChain `messages_to_dict` messages, ids of a turn's form, repeated conversation ids and
more messages than a line may hold.

Checked per round: exit 0 or the 1 a failed record owes, no traceback, no stall (the child is
killed at `--timeout` seconds), one record per owed id and none else (no lost or fabricated
record), no internal error, no score on an input error, every score in 0..1, no claim that
carries citation text, and no cited answer copied from its passages called contradicted on a
critical fact (a made-up score: a marker's digits read as the claim's number).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PASSAGES = (
    "The Eiffel Tower is 330 metres tall.",
    "Paris has about 2.1 million inhabitants.",
    "The tower was completed in March 1889.",
    "The Louvre received 8.7 million visitors in 2023.",
    "The Seine is 777 kilometres long.",
    "Notre-Dame was begun in 1163.",
)
QUESTION = "What are some facts about Paris?"


@dataclass(frozen=True)
class ShapeLine:
    """One input line, the record ids it owes and what it is."""

    raw: bytes
    ids: tuple[str, ...]
    kind: str
    verbatim: bool = False
    """A cited answer whose every sentence is copied from its passages: never contradicted."""


def _marker(family: str, number: int) -> str:
    return {
        "bracket": f" [{number}]", "footnote": f"[^{number}]", "doubled": f" [[{number}]]",
        "caret": f"^{number}", "superscript": "".join("⁰¹²³⁴⁵⁶⁷⁸⁹"[int(d)] for d in str(number)),
        "code": f" `[{number}]`", "fullwidth": f"【{number}】", "source word": f" (Source {number})",
        "signed": f" [-{number}]",
    }[family]


MARKER_FAMILIES = ("bracket", "footnote", "doubled", "caret", "superscript", "code", "fullwidth", "source word",
                   "signed")
TAILS = ("none", "sources heading", "sources inline", "source lines", "footnote definitions", "link definitions")


def _tail(kind: str, count: int) -> str:
    if kind == "sources heading":
        return "\n\nSources:\n" + "\n".join(f"[{n}] Paris - Wikipedia {2000 + n}" for n in range(1, count + 1))
    if kind == "sources inline":
        return "\n\nSources: " + "; ".join(f"[{n}] Source {2000 + n}" for n in range(1, count + 1))
    if kind == "source lines":
        return "\n\n" + "\n".join(f"[{n}] https://example.org/{n}/2021" for n in range(1, count + 1))
    if kind == "footnote definitions":
        return "\n\n" + "\n".join(f"[^{n}]: Census {2000 + n}, table {n}." for n in range(1, count + 1))
    if kind == "link definitions":
        return "\n\n" + "\n".join(f"[{n}]: https://example.org/{n}" for n in range(1, count + 1))
    return ""


def citation_line(rng: random.Random, item_id: str) -> ShapeLine:
    """A rag item whose answer cites its passages in a hostile way (module doc)."""
    chosen = rng.sample(PASSAGES, k=rng.randint(1, 4))
    context: list[str] = list(chosen)
    blanks = rng.random() < 0.25
    if blanks:
        for _ in range(rng.randint(1, 2)):
            context.insert(rng.randrange(len(context) + 1), rng.choice(["", "   ", "\n"]))
    family = rng.choice(MARKER_FAMILIES)
    repeats = rng.choice([1, 1, 2, 3, 200 if rng.random() < 0.1 else 1])
    sentences = []
    for passage in chosen:
        cited = context.index(passage) + 1
        sentences.append(passage[:-1] + _marker(family, cited) + ".")
    order = [s for s in sentences for _ in range(repeats)]
    rng.shuffle(order)
    answer = " ".join(order) + _tail(rng.choice(TAILS), len(context))
    item: dict = {"id": item_id, "question": QUESTION, "answer": answer, "context": context}
    kind = f"citation {family}" + (" with blanks" if blanks else "") + (" repeated" if repeats > 1 else "")
    ids_shape = rng.random()
    if ids_shape < 0.15:
        item["context_ids"] = [f"doc{n}" for n in range(1, len(context))]  # one short: an input error
        kind += " short ids"
    elif ids_shape < 0.3:
        item["context_ids"] = [f"doc{n}" for n in range(1, len(context) + 1)]
        item["answer"] = " ".join(p[:-1] + f" [doc{context.index(p) + 1}]." for p in chosen)
        kind = "citation by id"
    return ShapeLine(json.dumps(item, ensure_ascii=False).encode("utf-8"), (item_id,), kind, verbatim=True)


def _messages(rng: random.Random, turns: int, context_on_messages: bool) -> list[dict]:
    messages: list[dict] = []
    for _ in range(turns):
        passage = rng.choice(PASSAGES)
        messages.append({"role": "user", "content": f"Tell me about {passage.split()[1]}?"})
        reply = {"role": "assistant", "content": passage}
        if context_on_messages:
            reply["context"] = [passage]
        messages.append(reply)
    return messages


def _as_langchain(messages: list[dict]) -> list[dict]:
    converted = []
    for message in messages:
        data = {"content": message["content"], "additional_kwargs": {}, "response_metadata": {}, "name": None,
                "id": None}
        if message["role"] == "user" or len(converted) % 4 == 1:
            converted.append({"type": "chat", "data": {**data, "type": "chat", "role": message["role"]}})
        else:
            converted.append({"type": "ai", "data": {**data, "type": "ai", "tool_calls": []}})
        if "context" in message:
            converted[-1]["context"] = message["context"]
    return converted


CONVERSATION_KINDS = ("valid", "line context", "line reference", "unknown keys", "langchain", "both lists",
                      "context clash", "turn id item", "duplicate id", "too long", "no turn")


def conversation_lines(rng: random.Random, conv_id: str, line: int) -> list[ShapeLine]:
    """One conversation shape (module doc) as its lines (two for a repeated id), starting at
    file line `line`."""
    kind = rng.choice(CONVERSATION_KINDS)
    turns = rng.randint(1, 4)
    messages = _messages(rng, turns, context_on_messages=kind not in ("line context",))
    item: dict = {"id": conv_id, "messages": messages}
    owed = tuple(f"{conv_id}/turn-{n}" for n in range(1, turns + 1))
    if kind == "line context":
        item["context"] = list(PASSAGES)
    elif kind == "line reference":
        item["reference"] = "Paris"
        if turns > 1:
            owed = (conv_id,)
    elif kind == "unknown keys":
        item["team"] = "search"
        messages[-1]["tool_calls"] = [{"name": "lookup"}]
    elif kind == "langchain":
        item["messages"] = _as_langchain(messages)
    elif kind == "both lists":
        item["turns"] = list(messages)
        owed = (conv_id,)
    elif kind == "context clash":
        messages[-1]["contexts"] = ["Lyon is in France."]
        owed = (conv_id,)
    elif kind == "too long":
        item["messages"] = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"m{n}"} for n in range(600)]
        owed = (conv_id,)
    elif kind == "no turn":
        item["messages"] = [{"role": "user", "content": "hello?"}]
        owed = (conv_id,)
    lines = [ShapeLine(json.dumps(item, ensure_ascii=False).encode("utf-8"), owed, f"conversation {kind}")]
    if kind == "turn id item" and turns >= 1:
        plain = {"id": f"{conv_id}/turn-1", "question": QUESTION, "answer": "Lyon.", "context": ["Lyon."]}
        lines.insert(rng.randrange(2), ShapeLine(json.dumps(plain).encode("utf-8"), (), "plain item with a turn id"))
    if kind == "duplicate id":
        again = dict(item, messages=_messages(rng, turns + 1, True))
        lines.append(ShapeLine(json.dumps(again).encode("utf-8"), (conv_id,), "conversation repeated id"))
    for offset, shape in enumerate(lines):  # the refused plain item's record is its line's
        if shape.kind == "plain item with a turn id":
            lines[offset] = ShapeLine(shape.raw, (f"line-{line + offset}",), shape.kind)
    return lines


def shape_lines(rng: random.Random, count: int, tag: str = "r") -> Iterator[ShapeLine]:
    """About `count` lines, citation items and conversation lines in equal shares."""
    line = 1
    number = 0
    while line <= count:
        number += 1
        made = ([citation_line(rng, f"{tag}-cite-{number}")] if rng.random() < 0.5
                else conversation_lines(rng, f"{tag}-chat-{number}", line))
        for shape in made:
            yield shape
            line += 1


@dataclass
class RoundCounts:
    lines: int = 0
    records: int = 0
    lost: int = 0
    fabricated: int = 0
    crashes: int = 0
    stalls: int = 0
    made_up: int = 0
    citation_text_in_claims: int = 0
    problems: list[str] = field(default_factory=list)
    kinds: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)


_CITATION_TEXT = ("[", "^", "Sources", "://", "¹", "²", "³", "`")


def check_round(shapes: list[ShapeLine], out: Path, code: int | None, stderr: str) -> RoundCounts:
    """The module's invariants over one round's results (violations counted, never raised)."""
    from judgegraph.batch.summary import holds_a_failure, metric_values

    counts = RoundCounts(lines=len(shapes), kinds=Counter(shape.kind for shape in shapes))
    if code is None:
        counts.stalls += 1
        counts.problems.append("the batch did not finish in time")
    if "Traceback" in stderr:
        counts.crashes += 1
        counts.problems.append("traceback on stderr")
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    counts.records = len(records)
    owed = Counter(i for shape in shapes for i in shape.ids)
    written = Counter(str(record.get("id")) for record in records)
    counts.lost = sum((owed - written).values())
    counts.fabricated = sum((written - owed).values())
    if counts.lost or counts.fabricated:
        counts.problems.append(f"lost {sorted(owed - written)[:3]}, fabricated {sorted(written - owed)[:3]}")
    verbatim = {i for shape in shapes if shape.verbatim for i in shape.ids}
    for record in records:
        result = record.get("result") or {}
        counts.failures[(result.get("reason") or "judged").split(":")[0][:40]] += 1
        if record.get("internal_error"):
            counts.crashes += 1
            counts.problems.append(f"{record.get('id')!r}: internal error {result.get('reason')!r}")
        values = [value for _, value in metric_values(record)]
        if record.get("input_error") and any(v is not None for v in values):
            counts.problems.append(f"{record.get('id')!r}: a score on an unjudged record")
        if any(v is not None and not 0.0 <= v <= 1.0 for v in values):
            counts.problems.append(f"{record.get('id')!r}: a score out of 0..1")
        claims = [c["claim"] for s in (result.get("citations") or {}).get("sentences", []) for c in s["claims"]]
        if any(text in claim for claim in claims for text in _CITATION_TEXT):
            counts.citation_text_in_claims += 1
            counts.problems.append(f"{record.get('id')!r}: citation text in a claim {claims[:2]}")
        if str(record.get("id")) in verbatim and "critical fact" in str(result.get("faithfulness_explanation")):
            counts.made_up += 1
            counts.problems.append(f"{record.get('id')!r}: {result.get('faithfulness_explanation')[:160]!r}")
    if code is not None and code != (1 if any(holds_a_failure(r) for r in records) else 0):
        counts.problems.append(f"exit {code}")
    return counts


def run_round(shapes: list[ShapeLine], work: Path, number: int, timeout: float, concurrency: int) -> RoundCounts:
    """Judge one round's lines through the batch CLI, the demo judge behind the fake server."""
    from tests.support import demo_judge
    from tests.support.fault_server import FaultServer

    items, out = work / f"shapes-{number}.jsonl", work / f"shapes-out-{number}.jsonl"
    items.write_bytes(b"".join(shape.raw + b"\n" for shape in shapes))
    with FaultServer(reply=demo_judge.reply) as server:
        command = [sys.executable, str(ROOT / "cli.py"), "evaluate", str(items), "--out", str(out),
                   "--base-url", server.base_url, "--model", "demo", "--no-embeddings",
                   "--concurrency", str(concurrency), "--timeout", "20"]
        try:
            child = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   timeout=timeout, check=False)
            code, stderr = child.returncode, child.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as expired:
            code, stderr = None, (expired.stderr or b"").decode("utf-8", "replace")
    return check_round(shapes, out, code, stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000, help="input lines in all")
    parser.add_argument("--per-round", type=int, default=250, help="lines per batch")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before a round counts as stalled")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="judgegraph-shapes-soak-"))
    totals = RoundCounts()
    started = time.monotonic()
    number = 0
    while totals.lines < args.lines:
        number += 1
        shapes = list(shape_lines(rng, min(args.per_round, args.lines - totals.lines), tag=f"r{number}"))
        counts = run_round(shapes, work, number, args.timeout, args.concurrency)
        for name in ("lines", "records", "lost", "fabricated", "crashes", "stalls", "made_up",
                     "citation_text_in_claims"):
            setattr(totals, name, getattr(totals, name) + getattr(counts, name))
        totals.kinds.update(counts.kinds)
        totals.failures.update(counts.failures)
        totals.problems += [f"round {number}: {p}" for p in counts.problems]
        print(f"round {number}: {counts.lines} lines, {counts.records} records, {len(counts.problems)} problems",
              file=sys.stderr, flush=True)
    figures = {name: getattr(totals, name) for name in ("lines", "records", "lost", "fabricated", "crashes",
                                                         "stalls", "made_up", "citation_text_in_claims")}
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["kinds"] = dict(totals.kinds.most_common())
    figures["outcomes"] = dict(totals.failures.most_common())
    figures["problems"] = totals.problems[:30]
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0 if not totals.problems else 1


if __name__ == "__main__":
    sys.exit(main())
