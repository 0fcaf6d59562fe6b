"""Context-relevance prompt variants, side by side on the same MS MARCO items and model.

Why: the shipped context-relevance step ("is the answer in the context: yes / partly / no",
then the useful lines) gave label probabilities close to uniform on the 1.5B judge and ranked
MS MARCO's hard-negative pairs at 0.70 (tune, 20 pairs) and 0.42 (report). This script asks
other one-call questions about the same items and keeps each reply's label probabilities per
item, so variants can be compared pair by pair before one of them replaces the shipped step.

Every variant puts the data first (context, then question) and its task last, so on a local
llama.cpp server the second variant of an item reuses the first one's prompt cache.

    python -m benchmarks.ctxrel_variants --part tune --limit 74 --out bench-out/tune/ctxrel-variants.jsonl

Running the same command again resumes: items already in `--out` are skipped.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Annotated, Literal

from judgegraph.llm.embeddings import cosine, default_embedder
from judgegraph.llm.models import resolve_model
from judgegraph.llm.structured import run_structured_step
from judgegraph.llm.verdict_probabilities import label_probabilities
from judgegraph.nodes.common.segmentation import context_lines
from judgegraph.prompts import environment
from judgegraph.schemas.text import Label
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from benchmarks.datasets import load_rows, sample_path, select_rows, set_for_path
from benchmarks.figures import pairwise_figure, query_pairs

_DATA = """\
{% include "_lines.j2" %}

<question>
{{ question | data }}
</question>
"""


class AnswersQuestion(BaseModel):
    answers_question: Annotated[Literal["yes", "no"], Label]


class ExtractThenDecide(BaseModel):
    answer: str = Field(max_length=300)
    answers_question: Annotated[Literal["yes", "no"], Label]


VARIANTS: dict[str, tuple[type[BaseModel], str]] = {
    "answers": (AnswersQuestion, """\
TASK: can a reader answer the question from these context lines alone?
- "yes": the lines state the answer the question asks for.
- "no": they do not. Lines about the same topic that do not state the answer are "no".
Reply with JSON: {"answers_question": "<yes or no>"}"""),
    "extract": (ExtractThenDecide, """\
TASK: find the answer to the question in the context lines.
- answer: copy the few words of the context that answer the question, or "" when no line states the answer (lines about the same topic that do not state it do not count).
- answers_question: "yes" when you copied an answer, else "no".
Reply with JSON: {"answer": "<words copied from the context, or empty>", "answers_question": "<yes or no>"}"""),
}


def _messages(task: str, question: str, context: str) -> list:
    env = environment()
    system = env.get_template("_system_qa.j2").render()
    data = env.from_string(_DATA).render(lines=context_lines([context]), question=question)
    return [SystemMessage(content=system), HumanMessage(content=f"{data}\n{task}")]


def judge_item(model, row: dict) -> dict:
    record: dict = {"id": row["id"], "pair": row["meta"]["pair_id"], "relevant": row["human"]["relevant"]}
    for name, (schema, task) in VARIANTS.items():
        started = time.perf_counter()
        outcome = run_structured_step(model, _messages(task, row["question"], row["context"]), schema,
                                      top_logprobs=10)
        entry: dict = {"seconds": round(time.perf_counter() - started, 2), "calls": outcome.calls,
                       "input_tokens": outcome.input_tokens, "output_tokens": outcome.output_tokens,
                       "error": outcome.error}
        if outcome.value is not None:
            probabilities, graded = label_probabilities(
                outcome.token_logprobs, "answers_question", ("yes", "no"), outcome.value.answers_question)
            entry |= {"p_yes": probabilities["yes"], "graded": graded, "reply": outcome.value.model_dump()}
        record[name] = entry
    return record


def _pairs(records: list[dict], rows: dict[str, dict], signal) -> list[tuple[float, float]]:
    """(positive, negative) values of `signal` per query whose two passages both have one."""
    valued = [(rows[record["id"]], signal(record)) for record in records]
    valued = [(row, value) for row, value in valued if value is not None]
    return query_pairs([row for row, _ in valued], [value for _, value in valued])


def summarise(records: list[dict]) -> None:
    embedder = default_embedder()
    rows = {row["id"]: row for row in load_rows(sample_path("msmarco_ctxrel"))}
    for record in records:
        row = rows[record["id"]]
        question, context = embedder.embed([row["question"], row["context"]])
        record["cosine"] = cosine(question, context)
    signals = {
        "cosine(question, context)": lambda r: r["cosine"],
        **{f"{name} P(yes)": (lambda r, n=name: r[n].get("p_yes")) for name in VARIANTS},
        **{f"{name} P(yes) + cosine": (lambda r, n=name: None if r[n].get("p_yes") is None
                                        else r[n]["p_yes"] + r["cosine"]) for name in VARIANTS},
        "answers + extract P(yes)": lambda r: (r["answers"].get("p_yes") or 0) + (r["extract"].get("p_yes") or 0),
    }
    for label, signal in signals.items():
        pairs = _pairs(records, rows, signal)
        if not pairs:
            continue
        accuracy, interval = pairwise_figure(pairs)
        low, high = interval or (float("nan"), float("nan"))
        print(f"{label:32s} pairwise {accuracy:.3f} [{low:.2f}, {high:.2f}] over {len(pairs)} pairs")
    for name in VARIANTS:
        seconds = sum(r[name]["seconds"] for r in records) / len(records)
        tokens = sum(r[name]["input_tokens"] for r in records) / len(records)
        print(f"{name}: {seconds:.1f} s/item, {tokens:.0f} tokens in/item (second variant reuses the prompt cache)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("tune", "report"), default="tune")
    parser.add_argument("--limit", type=int, default=74)
    parser.add_argument("--model", default="local")
    parser.add_argument("--out", type=Path, default=Path("bench-out/tune/ctxrel-variants.jsonl"))
    parser.add_argument("--summary-only", action="store_true")
    args = parser.parse_args(argv)
    path = sample_path("msmarco_ctxrel")
    rows = select_rows(load_rows(path), set_for_path(path), args.limit, args.part)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["id"] for line in args.out.open()} if args.out.exists() else set()
    if not args.summary_only:
        model = resolve_model(args.model).model
        with args.out.open("a") as out:
            for row in rows:
                if row["id"] in done:
                    continue
                out.write(json.dumps(judge_item(model, row)) + "\n")
                out.flush()
    wanted = {row["id"] for row in rows}
    records = [r for r in map(json.loads, args.out.open()) if r["id"] in wanted]
    summarise(records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
