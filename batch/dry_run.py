"""`--dry-run`: what a batch would cost, in calls and tokens, without calling any model.

How: each item goes through the real graph with a *recording* stand-in for the judge. The
stand-in notes every prompt the graph renders (so the estimate follows whatever steps each
rubric plans, including rubrics added later, and every call the graph skips because code
decides) and then refuses the call, which ends that step cleanly. Three steps whose reply
decides which calls follow are answered instead: the model's claim listing (`--claims model`)
with one claim per sentence of the answer, coverage's reference elements with one fact per
sentence of the reference, so the per-claim and per-element checks fan out and are counted, and
a conversation's standalone question (an item with `history`), with the follow-up as it is, so
the steps that judge the question are counted after it.

The calls are exact for replies valid on the first try and those assumed lists (a scripted
server test compares them item by item, tests/batch/test_dry_run_matches_real_calls.py). One
call depends on a reply and is counted apart, as `possible_calls`: the second reading of a
one-claim rag answer, asked only when the check does not support the claim. The rest is an
estimate: tokens are characters / 4; no repairs or transport retries; replies are assumed to be
about `ASSUMED_REPLY_TOKENS` tokens; the JSON schema sent as `response_format` is not counted.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..calibration.profile import Profile, ProfileError, load_profile
from ..graph.api import run_evaluation
from ..run.context import JudgeContext
from ..run.judge_builder import build_judge
from .escalation_usage import dry_run_lines
from .options import BatchOptions, BatchUsageError, check_input
from .triage import Classifier, entries_of
from .writer import scan_output

CHARS_PER_TOKEN = 4
ASSUMED_REPLY_TOKENS = 80
"""A judgment reply: a capped reasoning text plus a few fields."""
MESSAGE_OVERHEAD_TOKENS = 4
MAX_CLAIMS = 12
"""`ExtractedClaims` allows at most 12 claims."""
EXTRACTION_SCHEMA = "ExtractedClaims"
ELEMENTS_SCHEMA = "ReferenceElements"
MAX_FACTS = 15
"""`ReferenceElements` allows at most 15 facts."""
STANDALONE_SCHEMA = "StandaloneQuestionReply"

NOTE = ("estimate: tokens = characters/4; --claims model lists one claim per answer sentence and coverage one "
        "fact per reference sentence; no repairs or retries; possible calls (a second reading) counted apart; "
        f"~{ASSUMED_REPLY_TOKENS} tokens per reply; no model was called")


class DryRunStop(Exception):
    """Raised by the recorder instead of answering: the step ends, nothing is sent anywhere."""


def approx_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimated_claims(answer: str) -> list[str]:
    """One claim per sentence of the answer (at least one, at most `MAX_CLAIMS`)."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if s.strip()]
    return (sentences or [answer.strip() or "claim"])[:MAX_CLAIMS]


def estimated_elements(reference: str) -> dict[str, list[str]]:
    """The assumed `ReferenceElements` reply: one fact per sentence of the reference."""
    return {"facts": estimated_claims(reference)[:MAX_FACTS], "conclusions": [], "terms": []}


def _step_of(kwargs: dict) -> str:
    response_format = kwargs.get("response_format") or {}
    if "json_schema" in response_format:
        return str(response_format["json_schema"].get("name", "?"))
    if "schema" in response_format:
        return str(response_format["schema"].get("title", "?"))
    return "?"


class RecordingJudge(BaseChatModel):
    """Records (step, input tokens) per call; answers only claim extraction, coverage's element
    listing (their replies decide the fan-out) and a conversation's standalone question."""

    claims: list[str] = []
    elements: dict[str, list[str]] = {}
    followup: str = ""
    _calls: list[tuple[str, int, int]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "dry-run-recorder"

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        step = _step_of(kwargs)
        prompt_tokens = sum(approx_tokens(m.text) + MESSAGE_OVERHEAD_TOKENS for m in messages)
        if step == STANDALONE_SCHEMA:
            reply = json.dumps({"question": self.followup or "?"})
        elif step == EXTRACTION_SCHEMA:
            reply = json.dumps({"declines_to_answer": False, "claims": self.claims})
        elif step == ELEMENTS_SCHEMA:
            reply = json.dumps(self.elements)
        else:
            self._calls.append((step, prompt_tokens, ASSUMED_REPLY_TOKENS))
            raise DryRunStop("dry run: no model call")
        self._calls.append((step, prompt_tokens, approx_tokens(reply)))
        message = AIMessage(content=reply, response_metadata={"finish_reason": "stop"})
        return ChatResult(generations=[ChatGeneration(message=message)])

    @property
    def calls(self) -> list[tuple[str, int, int]]:
        return self._calls


@dataclass
class Estimate:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    steps: Counter = field(default_factory=Counter)
    possible_calls: int = 0
    """Calls a reply may add: the second reading of a one-claim answer the check does not support."""

    def as_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "possible_calls": self.possible_calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "steps": dict(self.steps)}

    def add(self, other: "Estimate") -> None:
        self.calls += other.calls
        self.possible_calls += other.possible_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.steps.update(other.steps)


def _texts_of(item: dict, rubric: str | None, field_map: dict[str, str] | None = None) -> tuple[str, str, str]:
    """(the answer the shared claim pipeline would split, the question it reads, coverage's
    reference), each "" when the item's rubrics do not use it."""
    from ..nodes.claims.extract import claim_subject
    from ..graph.every_item.validate_input import validate_input

    validated = validate_input({"item": item, "rubric": rubric, "field_map": field_map})
    inputs = validated.get("inputs", {})
    coverage = inputs.get("coverage")
    reference = getattr(coverage, "reference", None) or ""
    try:
        subject = claim_subject({"inputs": inputs})
    except LookupError:
        return "", "", reference
    return subject.answer, subject.question, reference


def _possible_second_readings(run, context: JudgeContext) -> int:
    """1 when the run checked a one-claim rag answer claim by claim with the second reading on
    (`nodes.claims.second_reading`): a check that does not support the claim adds that call,
    when the judge's profile opens the second-look band. Which profile a real run uses depends
    on the judge, which a dry run does not resolve: the embedded judge's opens the band, the
    default's is closed (`second_look_below` 0). So the call is counted as possible unless
    `--calibration` names a profile whose band is closed: an upper bound, never an undercount."""
    claims = run.claims.claims if run.claims is not None else []
    checked = any(event.node == "check_claim" for event in run.trace)
    chosen = getattr(context, "calibration", None)
    band_open = chosen is None or context.record_all_signals or chosen.faithfulness_parameters.second_look_band_top > 0
    return int(context.own_answer and context.claim_check == "per-claim" and "rag" in run.rubrics
               and len(claims) == 1 and checked and band_open)


def estimate_item(item: dict, *, rubric: str | None, claim_check: str, claim_extraction: str = "sentences",
                  embeddings: bool = True, field_map: dict[str, str] | None = None,
                  calibration: Profile | None = None) -> tuple[list[str], Estimate]:
    """(rubrics the item would use, its estimate), from a graph run with the recorder; the
    judge-method settings decide which calls a real run makes (`--claims`, `--no-embeddings`)."""
    answer, question, reference = _texts_of(item, rubric, field_map)
    recorder = RecordingJudge(claims=estimated_claims(answer), elements=estimated_elements(reference),
                              followup=question)
    context = build_judge(recorder, model_id="dry-run", response_format="json_schema",
                          max_repairs=0, claim_check=claim_check, claim_extraction=claim_extraction,
                          embeddings=embeddings, calibration=calibration, allow_profile_mismatch=True)
    run = run_evaluation(item, model=context, rubric=rubric, max_concurrency=4, field_map=field_map,
                         max_item_chars=None)
    estimate = Estimate()
    for step, tokens_in, tokens_out in recorder.calls:
        estimate.calls += 1
        estimate.input_tokens += tokens_in
        estimate.output_tokens += tokens_out
        estimate.steps[step] += 1
    estimate.possible_calls = _possible_second_readings(run, context)
    return run.rubrics, estimate


def report_estimates(options: BatchOptions, args: argparse.Namespace, console: Console) -> None:
    """`--dry-run`: estimates per item on stdout (JSONL), totals on stderr; no model is
    resolved or called, and `--out` is only read (its ids are skipped, as a run would)."""
    check_input(options)
    done = scan_output(options.out, retry_failed=options.retry_failed).done if options.out is not None else set()
    classifier = Classifier(done)
    total = Estimate()
    items = skipped = bad = 0
    claim_check = getattr(args, "claim_check", "per-claim")
    try:
        calibration = load_profile(args.calibration) if getattr(args, "calibration", None) else None
    except ProfileError as error:
        raise BatchUsageError(f"--calibration: {error}") from error
    for entry in entries_of(options):
        kind = classifier.kind(entry)
        if kind == "bad":
            bad += 1
        if kind != "judge":
            skipped += kind in ("done", "duplicate")
            continue
        item = {k: v for k, v in (entry.item or {}).items() if k != "id"}
        try:
            names, estimate = estimate_item(
                item, rubric=options.rubric, claim_check=claim_check,
                claim_extraction=getattr(args, "claims", "sentences"),
                embeddings=not getattr(args, "no_embeddings", False), field_map=options.field_map,
                calibration=calibration,
            )
        except Exception as error:  # noqa: BLE001 - an estimate must not stop on one odd item
            names, estimate = [], Estimate()
            console.print(f"[yellow]line {entry.line}: cannot estimate "
                          f"({escape(type(error).__name__ + ': ' + str(error))})[/]")
        items += 1
        total.add(estimate)
        line = {"id": entry.id, "line": entry.line, "rubric": names[0] if len(names) == 1 else names,
                "estimate": estimate.as_dict()}
        sys.stdout.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")
    sys.stdout.flush()
    console.print(_totals_table(total, items, bad, skipped))
    if total.steps:
        console.print(escape("calls by step: " + ", ".join(f"{k} {v:,}" for k, v in sorted(total.steps.items()))))
    if getattr(args, "escalate_to", None):
        for line in dry_run_lines(dict(total.steps), _fit_kept(calibration, args), args.escalate_to):
            console.print(escape(line), soft_wrap=True)
    console.print(f"[dim]{NOTE}[/]")


def _fit_kept(calibration: Profile | None, args: argparse.Namespace) -> dict[str, float] | None:
    """The share each decision's fitted band kept on its fitting rows, for `--agreement`'s target
    in `--calibration`'s profile (None: no such fit)."""
    target = getattr(args, "agreement", None)
    section = calibration.escalation if calibration is not None else None
    fit = section.for_target(target) if section is not None and target is not None else None
    if fit is None:
        return None
    return {name: float(figures.get("kept_share", 0.0)) for name, figures in fit.figures.items()}


def _totals_table(total: Estimate, items: int, bad: int, skipped: int) -> Table:
    table = Table(title="Dry run (estimate)", title_justify="left")
    table.add_column("")
    table.add_column("total", justify="right")
    table.add_column("per item", justify="right")
    per = (lambda n: f"{n / items:,.1f}") if items else (lambda n: "-")
    table.add_row("items to judge", f"{items:,}", "")
    table.add_row("model calls", f"{total.calls:,}", per(total.calls))
    table.add_row("possible calls (second readings)", f"{total.possible_calls:,}", per(total.possible_calls))
    table.add_row("input tokens", f"{total.input_tokens:,}", per(total.input_tokens))
    table.add_row("output tokens", f"{total.output_tokens:,}", per(total.output_tokens))
    table.add_row("bad input lines (no call)", f"{bad:,}", "")
    table.add_row("skipped (already in --out / duplicate ids)", f"{skipped:,}", "")
    return table
