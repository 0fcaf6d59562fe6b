"""The standalone question against people's rewrites: TREC CAsT's manual rewrites of follow-ups.

    python -m benchmarks.conversation_agreement --model local [--part tune|report] [--limit 100]
        [--methods last_turn,baseline,graph] [--out-dir bench-out/conversation_agreement]

Data: the TREC Conversational Assistance Track topics (Dalton, Xiong and Callan, TREC CAsT
2021 and 2022), read from a fetched snapshot (`benchmarks.fetched`) of `daltonj/treccastweb`
(MIT licence), never copied into the project. In each topic a person asks a sequence of
questions; for every turn the organisers wrote a manual rewrite that resolves what the turn
refers to ("How deadly is it?" -> "How deadly is lobular carcinoma in situ?"). The history a
turn is asked after is the earlier questions and the system's earlier replies the topics carry
(2021: the canonical passage of each turn; 2022: the turn's `response`). A row is every turn
after a topic's first (the first has no history: judgegraph makes no call for it). 2022's topics
are trees flattened into branches that repeat their shared turns: a turn is read once.

QReCC (apple/ml-qrecc, the brief's first choice) was fetched too, but its data ships as one
zip (`dataset/qrecc_data.zip`) that the snapshot does not hold (files of 4 MiB and more are
left out), so it cannot be read this way; its conversations extend TREC CAsT 2019's anyway.

The rule, fixed before any run (docs/benchmarks.md says it too): a standalone question **keeps
the human rewrite's meaning** when it holds what the rewrite added and what it kept, read as
stemmed English content words (`judgegraph.text`: stopwords out, Snowball stems):

- added = words of the rewrite that the follow-up lacks (what the person resolved: "lobular",
  "carcinoma"); kept = words of the rewrite that the follow-up has;
- when the rewrite added words: the question holds at least half of the added words and at
  least half of the kept ones (`ADDED_SHARE`, `KEPT_SHARE`);
- when it added none (the follow-up already stood alone): the question holds at least 0.8 of
  the rewrite's words (`UNCHANGED_SHARE`).

No threshold is tuned: the shares are fixed here, so tune rows serve only to look at prompt
variants. A failed reply keeps nothing.

Methods, on the same rows and model:
- `last_turn`: the follow-up as it is (no call): what every step judges without judgegraph's
  standalone question;
- `baseline`: one prompt in the style of the usual "condense question" chains
  (`benchmarks/prompts/baseline_standalone_question.j2`), the whole history, no reply check;
- `graph`: judgegraph's step (`prompts/write_standalone_question.j2`, its history window and
  its reply check), the same call an item with `history` makes.

Figures per method: the share of rows that keep the meaning with a 95 % bootstrap interval, the
paired difference to `last_turn` and to `baseline` (units: rows), calls and tokens per row.
Per-row outcomes are kept under `--out-dir` (one JSONL per method and part), so the same command
resumes.

Relevance and refusal labels on conversational items: TREC CAsT's qrels grade documents per
turn, but by id into collections (MS MARCO, KILT, Washington Post) the snapshot does not hold,
so no item can be built from them here; no other fetchable set with such labels was found
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from judgegraph.graph.every_item.standalone_question import NODE, followup_closeness, keeps_the_followup
from judgegraph.llm.structured import StepOutcome, run_structured_step
from judgegraph.prompts import render_messages as judge_messages
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.conversation import StandaloneQuestionReply, prompt_window, read_messages
from judgegraph.stats.bootstrap import bootstrap_interval, paired_bootstrap_interval
from judgegraph.text.stems import stem
from judgegraph.text.tokens import content_words

from benchmarks.agreement import command_line, usage_failure
from benchmarks.fetched import DEFAULT_MIRROR_ROOT, read_snapshot_file
from benchmarks.judging import add_judge_run_options
from benchmarks.prompts import render_messages as baseline_messages
from benchmarks.split import PARTS, part_of

SET_NAME = "cast_standalone_question"
REPO = "daltonj/treccastweb"
COMMIT = "33846610b736da392efeab00e4c6f4519e0dacf1"
SOURCES: tuple[tuple[str, str, str, str], ...] = (
    ("cast2021", "2021/2021_manual_evaluation_topics_v1.0.json", "raw_utterance", "passage"),
    ("cast2022", "2022/2022_evaluation_topics_flattened_duplicated_v1.0.json", "utterance", "response"),
)
"""(name, file, the turn's question key, the key of the reply shown in later turns' history)."""
METHODS = ("last_turn", "baseline", "graph")
LANGUAGE = "en"
ADDED_SHARE = 0.5
KEPT_SHARE = 0.5
UNCHANGED_SHARE = 0.8
DEFAULT_LIMIT = 100


# --- the rows ---------------------------------------------------------------------------------

def conversation_rows(topics: list[dict], name: str, question_key: str, reply_key: str) -> list[dict]:
    """One row per turn after a topic's first that has a manual rewrite; a turn repeated by a
    flattened tree (same topic and turn number) once."""
    rows: dict[str, dict] = {}
    for topic in topics:
        history: list[dict[str, str]] = []
        for turn in topic.get("turn") or []:
            followup, rewrite = turn.get(question_key), turn.get("manual_rewritten_utterance")
            if not isinstance(followup, str) or not followup.strip():
                continue
            row_id = f"{name}:{topic['number']}:{turn['number']}"
            if history and isinstance(rewrite, str) and rewrite.strip() and row_id not in rows:
                rows[row_id] = {"id": row_id, "history": list(history), "followup": followup, "rewrite": rewrite,
                                "meta": {"conversation": f"{name}:{topic['number']}", "source": name}}
            history.append({"role": "user", "content": followup})
            reply = turn.get(reply_key)
            if isinstance(reply, str) and reply.strip():
                history.append({"role": "assistant", "content": reply})
    return list(rows.values())


def read_topics(path: str, mirror_root: Path = DEFAULT_MIRROR_ROOT) -> list[dict]:
    """The topics of one of `SOURCES`' files, read from the snapshot at `COMMIT` (the follow-up
    relevance benchmark reads 2021's through here too)."""
    return json.loads(read_snapshot_file(REPO, COMMIT, path, mirror_root))


def load_rows(mirror_root: Path = DEFAULT_MIRROR_ROOT) -> list[dict]:
    rows = []
    for name, path, question_key, reply_key in SOURCES:
        rows += conversation_rows(read_topics(path, mirror_root), name, question_key, reply_key)
    return rows


def rows_of_part(rows: list[dict], part: str, limit: int | None) -> list[dict]:
    chosen = [row for position, row in enumerate(rows) if part_of(SET_NAME, row, position) == part]
    return chosen[:limit] if limit else chosen


# --- the rule ---------------------------------------------------------------------------------

def words(text: str) -> set[str]:
    """Stemmed English content words."""
    return {stem(word, LANGUAGE) for word in content_words(text, LANGUAGE)}


def keeps_meaning(question: str | None, followup: str, rewrite: str) -> bool:
    """The module docstring's rule, fixed before any run."""
    if not question:
        return False
    have, wanted, asked = words(question), words(rewrite), words(followup)
    added, kept = wanted - asked, wanted & asked
    if not added:
        return not wanted or len(wanted & have) / len(wanted) >= UNCHANGED_SHARE
    if len(added & have) / len(added) < ADDED_SHARE:
        return False
    return not kept or len(kept & have) / len(kept) >= KEPT_SHARE


# --- the methods ------------------------------------------------------------------------------

@dataclass
class Outcome:
    id: str
    question: str | None
    error: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    keeps: bool = False


def _from_step(row: dict, outcome: StepOutcome) -> Outcome:
    question = outcome.value.question if outcome.value is not None else None
    return Outcome(row["id"], question, None if outcome.value is not None else (outcome.error or "no valid reply"),
                   outcome.calls, outcome.input_tokens, outcome.output_tokens)


def graph_question(context: JudgeContext, row: dict) -> Outcome:
    """judgegraph's standalone question, as `write_standalone_question` asks it."""
    window = prompt_window(read_messages(row["history"]))
    messages = judge_messages(NODE, history=[m.model_dump() for m in window.messages],
                              question=row["followup"], language=None)
    return _from_step(row, run_structured_step(
        context.model, messages, StandaloneQuestionReply, max_repairs=context.max_repairs,
        dialect=context.response_format, check=keeps_the_followup(row["followup"], LANGUAGE, followup_closeness(row["followup"], context))))


def baseline_question(context: JudgeContext, row: dict) -> Outcome:
    """One "condense question" prompt over the whole history, no reply check."""
    messages = baseline_messages("baseline_standalone_question", history=row["history"], question=row["followup"])
    return _from_step(row, run_structured_step(
        context.model, messages, StandaloneQuestionReply, max_repairs=context.max_repairs,
        dialect=context.response_format))


def last_turn_question(_: JudgeContext | None, row: dict) -> Outcome:
    return Outcome(row["id"], row["followup"])


RUNNERS = {"last_turn": last_turn_question, "baseline": baseline_question, "graph": graph_question}


def judge_method(method: str, rows: list[dict], context: JudgeContext | None, path: Path | None) -> list[Outcome]:
    """Each row's outcome for `method`, read back from `path` when already there (resume)."""
    done: dict[str, Outcome] = {}
    if path is not None and path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                data = json.loads(line)
                done[data["id"]] = Outcome(**data)
    outcomes = []
    for row in rows:
        outcome = done.get(row["id"])
        if outcome is None:
            outcome = RUNNERS[method](context, row)
            outcome.keeps = keeps_meaning(outcome.question, row["followup"], row["rewrite"])
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(asdict(outcome), ensure_ascii=False) + "\n")
        outcomes.append(outcome)
    return outcomes


# --- the figures ------------------------------------------------------------------------------

def share(outcomes: list[Outcome]):
    def statistic(sample) -> float | None:
        return sum(outcomes[i].keeps for i in sample) / len(sample) if sample else None
    return statistic


def figures(by_method: dict[str, list[Outcome]]) -> dict[str, Any]:
    """Per method: the share keeping the meaning with its interval, the paired differences,
    and the cost per row."""
    result: dict[str, Any] = {}
    units = len(next(iter(by_method.values()), []))
    for method, outcomes in by_method.items():
        interval = bootstrap_interval(share(outcomes), units)
        data: dict[str, Any] = {
            "rows": units, "keeps_meaning": round(share(outcomes)(range(units)) or 0.0, 3) if units else None,
            "keeps_meaning_ci": [round(v, 3) for v in interval] if interval else None,
            "failed": sum(1 for o in outcomes if o.error),
            "calls_per_row": round(sum(o.calls for o in outcomes) / units, 2) if units else None,
            "input_tokens_per_row": round(sum(o.input_tokens for o in outcomes) / units, 1) if units else None,
            "output_tokens_per_row": round(sum(o.output_tokens for o in outcomes) / units, 1) if units else None,
        }
        for other in ("last_turn", "baseline"):
            if other != method and other in by_method and units:
                difference = paired_bootstrap_interval(share(by_method[other]), share(outcomes), units)
                data[f"minus_{other}_ci"] = [round(v, 3) for v in difference] if difference else None
        result[method] = data
    return result


def markdown(entry: dict[str, Any]) -> str:
    lines = [f"# Standalone question vs people's rewrites ({entry['part']} rows)", "",
             f"data: {entry['data']}; {entry['rows']} rows; model {entry['model']}; command `{entry['command']}`", "",
             "| method | keeps the rewrite's meaning | 95 % CI | − last turn (CI) | − baseline (CI) | failed | calls/row | tokens in/row |",
             "|---|---|---|---|---|---|---|---|"]
    for method, data in entry["methods"].items():
        lines.append(f"| {method} | {data['keeps_meaning']} | {data['keeps_meaning_ci']} | "
                     f"{data.get('minus_last_turn_ci', '–')} | {data.get('minus_baseline_ci', '–')} | {data['failed']} | "
                     f"{data['calls_per_row']} | {data['input_tokens_per_row']} |")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.conversation_agreement",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=PARTS, default="tune")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="rows of the part (0: all)")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated: {', '.join(METHODS)}")
    parser.add_argument("--mirror-root", type=Path, default=DEFAULT_MIRROR_ROOT)
    parser.add_argument("--out-dir", type=Path, default=Path("bench-out/conversation_agreement"))
    add_judge_run_options(parser)
    return parser


def main(argv: list[str] | None = None, context: JudgeContext | None = None) -> int:
    """`context` replaces the model flags (tests pass a fake judge)."""
    from judgegraph.commands.cli import UsageError, context_from_flags_or_usage_error

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        return usage_failure(ValueError(f"--methods takes {', '.join(METHODS)} (got {args.methods!r})"))
    needs_model = any(m != "last_turn" for m in methods)
    try:
        context = context or (context_from_flags_or_usage_error(args) if needs_model else None)
    except UsageError as error:
        return usage_failure(error)
    rows = rows_of_part(load_rows(args.mirror_root), args.part, args.limit or None)
    started = datetime.now(timezone.utc)
    by_method = {method: judge_method(method, rows, context, args.out_dir / f"{SET_NAME}-{args.part}-{method}.jsonl")
                 for method in methods}
    entry = {"set": SET_NAME, "part": args.part, "rows": len(rows), "data": f"{REPO}@{COMMIT[:12]}",
             "model": getattr(context, "model_id", None), "started": started.isoformat(timespec="seconds"),
             "command": command_line("conversation_agreement", argv),
             "rule": {"added_share": ADDED_SHARE, "kept_share": KEPT_SHARE, "unchanged_share": UNCHANGED_SHARE},
             "methods": figures(by_method)}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    stem_name = f"agreement-{SET_NAME}-{args.part}"
    (args.out_dir / f"{stem_name}.json").write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")
    (args.out_dir / f"{stem_name}.md").write_text(markdown(entry), encoding="utf-8")
    print(json.dumps(entry, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
