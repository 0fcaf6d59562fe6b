"""A simulated judge of known quality: an OpenAI-compatible fake that knows people's labels.

    python -m benchmarks.simulated_agreement --sets halueval_unseen --accuracies 0.9 --rows 20
                                              # the runner starts one of these per set and accuracy

Why: every rule judgegraph applies after the judge's verdict (grounding, thresholds, the own
answer, the number rule) was set on the embedded 1.5B judge. To see what those rules do to a
better judge, the judge's quality must be known and controlled: this judge answers every step
the graph asks from each row's human label, right with probability `accuracy`, so the runner
(`benchmarks.simulated_agreement`) can set judgegraph's agreement with people beside the
judge's own, on the same rows (issue 53).

What it knows: `SimulatedRow`s (question, context, answer, reference and a `truth` per kind of
label: `faithful`, `context_relevant`, `answer_relevant`, `similarity` 0-5, `covered`,
`comparable`, `category`, with `good` as the fallback every kind reads). It sees only the
request, so it places it from the data sections of the prompt's user message (`<question>`,
`<answer>`, `<claim>`, `<context>`, `<reference>`, `<output>`...): the rows whose texts are
those sections (word for word, after case and NFKC folding; each context line and the claim
as a run of the row's words in order, its end words possibly cut, since a long context is
shown by its closest lines and long lines are cut; a context shown whole tells apart rows
whose contexts overlap). Rows of different content that a prompt cannot
tell apart are one request only when they carry the same label for the step (a context
relevance prompt does not show the answer). A request no row fits, or that fits rows of
different labels (even rows of the same text), is an HTTP 500 with the reason: it never guesses.

How it answers (the truth first, then the error):
- claims (`ExtractedClaims`, only with `claim_extraction="model"`): the answer's sentences, as
  judgegraph cuts them itself (a strong judge restates faithfully);
- claim checks (`ClaimCheck`, `BatchClaimChecks`): "supported" for every claim of a faithful
  row, "not-in-context" for every claim of a hallucinated one. The label is per row (people say
  the answer as a whole is unfaithful), so all its claims carry it: a five-sentence summary with
  one invented sentence reads as five unsupported claims, which over-states what a perfect judge
  would say of the other four but never changes the item's verdict;
- the own answer (`OwnAnswer`): the answer under test for a faithful row, else the reference
  when the row has one that differs, else "unknown". When the rows sharing the question and
  context differ only in their answers (NLI pairs on one premise), the prompt (which does not
  show the answer) cannot tell them apart: the judge then says their common reference or
  "unknown", with no error drawn;
- context relevance: "yes" with every line useful, or "no" with none; answer relevance (both
  replies): one part, answered and direct, or not answered and evasive; similarity: the row's
  0-5 rating; LiveRAG: on topic and correct, or off topic; coverage: each element present
  (quoting the output's closest sentence) or absent, the structure comparable or not;
  expected output: the top of the range or the category given, else the bottom;
- the standalone question: the question unchanged (a strong judge's rewrite of a question that
  already stands alone).

Errors, per item and step: each step of each row draws once from a generator seeded by
sha256(row id, step); every decision of that step (all its claims) is then right or wrong
together, so the judge's item-level accuracy on a step is `accuracy` in expectation, and the
own answer (another step) errs independently of the claim check. A wrong decision is the
opposite label (not-in-context for supported and back, "no" for "yes", evasive for direct,
5 - rating for a rating). Draws do not depend on the accuracy or the mode, so a row's errors
at 0.8 include its errors at 0.9, and both modes make the same decisions.

Log-probabilities (`logprobs=True`, and only when the request asks for them): the draw also
gives a confidence c, uniform on [a - w, a + w] with w = min(a - 0.5, 1 - a) (mean a, never
below 0.5, so the written label is the likeliest), and the decision is right with probability
c: the judge is calibrated. The written label's token carries log(c), the opposite label's
log(1 - c) (left out when 1 - c is 0), every other token log 1, in OpenAI's `logprobs.content`
shape (`tests.support.fakes.logprobs_content`). With `logprobs=False` no `logprobs` is sent, as
a gateway that drops them.

Every decision is recorded (`decisions`, and appended to `decisions_path` when given) with the
row, the step, the label written and whether it was right, so the judge's own item-level
agreement is measured from what it said.
"""

from __future__ import annotations

import hashlib
import html
import json
import random
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgegraph.text.segmentation import answer_claims, context_lines

from tests.support.fakes import graded_answer_tokens, logprobs_content
from tests.support.fault_server import FaultServer, RawReply

MODEL_NAME = "simulated-judge"
"""A judge name nothing was fitted for, so judgegraph decides with its default profile."""
SEED_SALT = "judgegraph-simulated-judge-v1"
ACCURACIES = (1.0, 0.9, 0.8, 0.7)

_WORD = re.compile(r"\w+")
_CONTEXT_LINE = re.compile(r"^\[\d+\]\s?")


STEP_LABELS = {
    "ClaimCheck": "faithful", "BatchClaimChecks": "faithful", "ContextRelevanceJudgment": "context_relevant",
    "AnswerRelevanceJudgment": "answer_relevant", "AnswerRelevanceLabels": "answer_relevant",
    "SimilarityJudgment": "similarity", "LiveRagRelevanceJudgment": "answer_relevant",
    "ElementCheck": "covered", "BatchElementChecks": "covered", "OrganizationJudgment": "comparable",
}
"""The label each step's decision is read from (`SimulatedRow.truth`)."""
UNPLACED_STEPS = ("StandaloneQuestionReply", "OwnAnswer")
"""Steps answered from the rows the prompt fits, whichever of them it is about (their prompts
show no answer: the module doc says how each answers)."""


class Unplaceable(RuntimeError):
    """The request fits no row, or rows of different labels: answered with HTTP 500."""


def words(text: str | None) -> list[str]:
    """The words of `text` as the placement compares them: entities unescaped, NFKC, case-folded."""
    folded = unicodedata.normalize("NFKC", html.unescape(text or "")).casefold()
    return _WORD.findall(folded)


def folded(text: str | None) -> str:
    return " ".join(words(text))


@dataclass(frozen=True)
class SimulatedRow:
    """One row the judge knows: its texts and people's labels (`truth`, see the module doc)."""

    id: str
    question: str | None
    context: str | list[str] | None
    answer: str | None
    reference: str | None = None
    truth: dict[str, Any] = field(default_factory=dict)

    @property
    def passages(self) -> list[str]:
        if self.context is None:
            return []
        return [self.context] if isinstance(self.context, str) else list(self.context)

    def label(self, kind: str) -> Any:
        value = self.truth.get(kind, self.truth.get("good"))
        if value is None:
            raise Unplaceable(f"row {self.id!r} has no {kind!r} label (nor a 'good' one)")
        return value


@dataclass(frozen=True)
class _Indexed:
    row: SimulatedRow
    question: str
    answer: str
    reference: str
    answer_text: str
    """The answer's words, folded and joined by single spaces (what `shown_in` searches)."""
    context_text: str
    context_words: frozenset[str]

    @property
    def content(self) -> tuple:
        """What a prompt can show of the row: rows equal here are the same request."""
        return (self.question, self.answer, self.reference, self.context_words)


@dataclass(frozen=True)
class Draw:
    """One step's draw for one row: the confidence c and whether the decision is right."""

    confidence: float
    right: bool


def confidence_band(accuracy: float) -> tuple[float, float]:
    """[a - w, a + w], w = min(a - 0.5, 1 - a): mean a, within [0.5, 1]."""
    width = max(0.0, min(accuracy - 0.5, 1.0 - accuracy))
    return accuracy - width, accuracy + width


def draw(row_id: str, step: str, accuracy: float) -> Draw:
    """The seeded draw for (row, step): the same at every accuracy, so errors nest."""
    seed = hashlib.sha256(f"{SEED_SALT}:{row_id}:{step}".encode()).digest()
    generator = random.Random(int.from_bytes(seed[:8], "big"))
    spread, roll = generator.random(), generator.random()
    low, high = confidence_band(accuracy)
    confidence = low + spread * (high - low)
    return Draw(confidence, roll < confidence)


def sections(prompt: str) -> dict[str, str]:
    """The prompt's data sections (the last of each name: the data follows the instructions'
    examples)."""
    found: dict[str, str] = {}
    for name in ("question", "answer", "claim", "context", "reference", "input", "output",
                 "expected_output", "actual_output", "element", "claims", "elements", "history", "config"):
        matches = re.findall(rf"<{name}>\n?(.*?)\n?</{name}>", prompt, flags=re.DOTALL)
        if matches:
            found[name] = matches[-1].strip()
    return found


def shown_in(shown: str, text: str) -> bool:
    """Whether `shown` (a claim, a context line) is a run of the words of `text` (folded, joined
    by single spaces), in order; its first and last word may be cut (a long line is shown cut)."""
    parts = words(shown)
    return not parts or re.search(re.escape(" ".join(parts)), text) is not None


def user_text(body: dict) -> str:
    """The request's user messages: the data sections are there (the system message names the
    tags in its rules, `<reference>...</reference>`)."""
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") != "system")


def prompt_lines(context: str) -> list[str]:
    """The numbered lines of a `<context>` section, without their numbers."""
    return [_CONTEXT_LINE.sub("", line).strip() for line in context.splitlines() if line.strip()]


def _best_line(text: str, lines: list[str]) -> int:
    """1-based number of the line sharing most of `text`'s words (1 when none shares any)."""
    wanted = set(words(text))
    scores = [len(wanted & set(words(line))) for line in lines]
    return (scores.index(max(scores)) + 1) if scores and max(scores) > 0 else (1 if lines else 0)


class SimulatedJudge:
    """The judge: `reply(step, schema, body)` for `FaultServer`, and what it decided."""

    def __init__(self, rows: list[SimulatedRow], accuracy: float, *, logprobs: bool,
                 decisions_path: Path | None = None) -> None:
        if not 0.5 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be within 0.5..1.0, got {accuracy}")
        self.accuracy = accuracy
        self.logprobs = logprobs
        self.decisions: list[dict] = []
        self.decisions_path = decisions_path
        self._lock = threading.Lock()
        self._indexed = [self._index(row) for row in rows]
        self._by_answer: dict[str, list[_Indexed]] = {}
        self._by_question: dict[str, list[_Indexed]] = {}
        self._by_reference: dict[str, list[_Indexed]] = {}
        for entry in self._indexed:
            self._by_answer.setdefault(entry.answer, []).append(entry)
            self._by_question.setdefault(entry.question, []).append(entry)
            self._by_reference.setdefault(entry.reference, []).append(entry)

    @staticmethod
    def _index(row: SimulatedRow) -> _Indexed:
        context_text = folded(" ".join(row.passages))
        return _Indexed(row, folded(row.question), folded(row.answer), folded(row.reference),
                        folded(row.answer), context_text, frozenset(context_text.split()))

    # --- placing a request -------------------------------------------------------------------

    def candidates(self, found: dict[str, str]) -> list[_Indexed]:
        """The rows every section of the prompt fits."""
        answer = found.get("answer") or found.get("output") or found.get("actual_output")
        reference = found.get("reference") or found.get("expected_output")
        if answer is not None:
            pool = self._by_answer.get(folded(answer), [])
        elif "question" in found:
            pool = self._by_question.get(folded(found["question"]), [])
        elif reference is not None:
            pool = self._by_reference.get(folded(reference), [])
        else:
            raise Unplaceable("the prompt has no question, answer or reference section")
        kept = []
        for entry in pool:
            if "question" in found and folded(found["question"]) != entry.question:
                continue
            if reference is not None and folded(reference) != entry.reference:
                continue
            if "claim" in found and not shown_in(found["claim"], entry.answer_text):
                continue
            if not self._context_fits(found.get("context"), entry):
                continue
            kept.append(entry)
        return kept

    @staticmethod
    def _shown_words(context: str | None) -> set[str] | None:
        if context is None or context.startswith("(empty"):
            return None
        return set(words(" ".join(prompt_lines(context))))

    @staticmethod
    def _context_fits(context: str | None, entry: _Indexed) -> bool:
        """Every line of the shown context is a span of the row's context."""
        if context is None or context.startswith("(empty"):
            return True
        return all(shown_in(line, entry.context_text) for line in prompt_lines(context))

    def _whole_context(self, context: str | None, entry: _Indexed) -> bool:
        shown = self._shown_words(context)
        return shown is None or shown == entry.context_words

    def place(self, found: dict[str, str], step: str) -> SimulatedRow:
        """The row the request is about. Rows of different content that the prompt cannot tell
        apart (a context relevance prompt does not show the answer) are one request when they
        carry the same label for the step (`STEP_LABELS`): the first of them by id answers. Rows
        that carry different labels are refused, even when their texts are the same (MS MARCO
        has a query whose relevant and irrelevant passages are one text)."""
        kept = self.candidates(found)
        if not kept:
            shown = {k: v[:80] for k, v in found.items() if k in ("question", "answer", "claim", "output")}
            raise Unplaceable(f"{step}: no row fits this request ({shown})")
        if len({entry.content for entry in kept}) > 1:  # a context shown whole tells rows apart
            kept = [entry for entry in kept if self._whole_context(found.get("context"), entry)] or kept
        kind = STEP_LABELS.get(step)
        labels = {repr(entry.row.truth.get(kind, entry.row.truth.get("good"))) for entry in kept}
        if len(kept) > 1 and (len(labels) > 1 or kind is None and len({entry.content for entry in kept}) > 1):
            what = "the same text" if len({entry.content for entry in kept}) == 1 else "different content"
            raise Unplaceable(f"{step}: the request fits rows of {what} and different labels "
                              f"({', '.join(sorted(e.row.id for e in kept)[:4])})")
        return min((entry.row for entry in kept), key=lambda row: row.id)

    # --- deciding ----------------------------------------------------------------------------

    def decide(self, row: SimulatedRow, step: str, truth: Any, wrong: Any) -> tuple[Any, Draw]:
        """The label written for `row` at `step` (the truth, or `wrong`), recorded."""
        drawn = draw(row.id, step, self.accuracy)
        chosen = truth if drawn.right else wrong
        record = {"row": row.id, "step": step, "truth": truth, "chosen": chosen, "right": drawn.right,
                  "confidence": round(drawn.confidence, 6)}
        with self._lock:
            self.decisions.append(record)
            if self.decisions_path is not None:
                with self.decisions_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
        return chosen, drawn

    def _shares(self, chosen: str, other: str, drawn: Draw) -> dict[str, float]:
        """The label alternatives' probabilities: c for the written one, 1 - c for its opposite."""
        shares = {chosen: drawn.confidence}
        if drawn.confidence < 1.0:
            shares[other] = 1.0 - drawn.confidence
        return shares

    def _send(self, reply: dict, body: dict, tokens: list[dict] | None) -> Any:
        if self.logprobs and body.get("logprobs") and tokens is not None:
            return RawReply(content=json.dumps(reply), logprobs={"content": tokens})
        return reply

    def reply(self, step: str, schema: dict, body: dict) -> Any:
        found = sections(user_text(body))
        handler = getattr(self, f"_reply_{step}", None)
        if handler is None:
            raise Unplaceable(f"the simulated judge has no answer for step {step!r}")
        if step in UNPLACED_STEPS:
            return handler(found, body)
        return handler(self.place(found, step), found, body)

    # --- one method per step (named after the reply's schema) --------------------------------

    def _reply_StandaloneQuestionReply(self, found: dict, body: dict) -> Any:
        if not self.candidates(found):
            raise Unplaceable(f"StandaloneQuestionReply: no row asks {found.get('question', '')[:80]!r}")
        return {"question": found["question"]}

    def _reply_ExtractedClaims(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        return {"claims": answer_claims(row.answer or "")[:8] or [row.answer or ""], "declines_to_answer": False}

    def _verdict(self, row: SimulatedRow) -> tuple[str, Draw]:
        faithful = bool(row.label("faithful"))
        truth, wrong = ("supported", "not-in-context") if faithful else ("not-in-context", "supported")
        return self.decide(row, "claim_check", truth, wrong)

    def _reply_ClaimCheck(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        verdict, drawn = self._verdict(row)
        lines = prompt_lines(found.get("context", ""))
        reply = {"verdict": verdict, "line": _best_line(found.get("claim", ""), lines) if verdict == "supported" else 0}
        other = "not-in-context" if verdict == "supported" else "supported"
        return self._send(reply, body, logprobs_content(reply, "verdict", self._shares(verdict, other, drawn)))

    def _reply_BatchClaimChecks(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        verdict, _ = self._verdict(row)
        lines = prompt_lines(found.get("context", ""))
        claims = re.findall(r"^\s*(\d+)\.\s*(.*)$", found.get("claims", ""), flags=re.MULTILINE)
        checks = [{"claim": int(number), "verdict": verdict,
                   "line": _best_line(text, lines) if verdict == "supported" else 0} for number, text in claims]
        return {"checks": checks or [{"claim": 1, "verdict": verdict, "line": 0}]}

    def _reply_OwnAnswer(self, found: dict, body: dict) -> Any:
        kept = self.candidates(found)
        if not kept:
            raise Unplaceable(f"OwnAnswer: no row fits this request (question {found.get('question', '')[:80]!r})")
        references = {entry.row.reference for entry in kept}
        if len({entry.content for entry in kept}) > 1:
            common = references.pop() if len(references) == 1 else None
            return {"answer": common or "unknown"}
        row = min((entry.row for entry in kept), key=lambda r: r.id)
        faithful = bool(row.label("faithful"))
        answer = (row.answer or "unknown")[:200]
        reference = row.reference if row.reference and folded(row.reference) != folded(row.answer) else None
        truth = answer if faithful else (reference or "unknown")[:200]
        wrong = "unknown" if faithful else answer
        chosen, _ = self.decide(row, "own_answer", truth, wrong)
        return {"answer": chosen}

    def _reply_ContextRelevanceJudgment(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        relevant = bool(row.label("context_relevant"))
        truth, wrong = ("yes", "no") if relevant else ("no", "yes")
        label, drawn = self.decide(row, "context_relevance", truth, wrong)
        count = len(prompt_lines(found.get("context", "")))
        reply = {"answer_in_context": label, "useful_lines": list(range(1, count + 1))[:40] if label == "yes" else []}
        other = "no" if label == "yes" else "yes"
        return self._send(reply, body, logprobs_content(reply, "answer_in_context", self._shares(label, other, drawn)))

    def _answer_relevance(self, row: SimulatedRow, body: dict, labels_reply: bool) -> Any:
        relevant = bool(row.label("answer_relevant"))
        truth, wrong = ("direct", "evasive") if relevant else ("evasive", "direct")
        directness, drawn = self.decide(row, "answer_relevance", truth, wrong)
        answered = directness == "direct"
        parts = [{"part": "the question", "answered": answered}]
        if labels_reply:
            reply: dict = {"question_parts": parts, "directness": directness, "refusal": None}
        else:
            reply = {"reasoning": "Compared the answer with what the question asks.", "question_parts": parts,
                     "directness": directness, "is_refusal": False, "refusal_reason_given": False,
                     "refusal_category": "none", "refusal_cites_missing_info_or_policy": False,
                     "context_contains_answer": True}
        p_answered = drawn.confidence if answered else 1.0 - drawn.confidence
        other = "evasive" if directness == "direct" else "direct"
        tokens = graded_answer_tokens(reply, [p_answered], self._shares(directness, other, drawn))
        return self._send(reply, body, tokens)

    def _reply_AnswerRelevanceJudgment(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        return self._answer_relevance(row, body, labels_reply=False)

    def _reply_AnswerRelevanceLabels(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        return self._answer_relevance(row, body, labels_reply=True)

    def _reply_SimilarityJudgment(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        rating = int(row.label("similarity"))
        chosen, _ = self.decide(row, "similarity", rating, 5 - rating)
        return {"reasoning": "Compared the meaning of the two texts.", "similarity": chosen}

    def _reply_LiveRagRelevanceJudgment(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        relevant = bool(row.label("answer_relevant"))
        good, _ = self.decide(row, "liverag_relevance", relevant, not relevant)
        return {"reasoning": "Compared the answer with what the question asks.", "addresses_question": good,
                "no_answer": False, "answers_correctly": good, "contains_irrelevant_content": False,
                "irrelevant_content_harms_usefulness": False}

    def _reply_ReferenceElements(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        facts = [s[:200] for s in answer_claims(row.reference or "")[:8]] or [(row.reference or "")[:200]]
        return {"facts": facts, "conclusions": [], "terms": []}

    def _element_check(self, row: SimulatedRow, element: str) -> dict:
        present, _ = self.decide(row, "coverage_element", bool(row.label("covered")),
                                 not bool(row.label("covered")))
        sentences = context_lines([row.answer or ""])
        quote = sentences[_best_line(element, sentences) - 1][:200] if present and sentences else ""
        return {"quote": quote, "justification": "Compared the element with the output.", "present": present}

    def _reply_ElementCheck(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        return self._element_check(row, found.get("element", ""))

    def _reply_BatchElementChecks(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        elements = re.findall(r"^\s*(\d+)\.\s*(.*)$", found.get("elements", ""), flags=re.MULTILINE)
        return {"checks": [{"element": int(n), **self._element_check(row, text)} for n, text in elements]}

    def _reply_OrganizationJudgment(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        comparable = bool(row.label("comparable"))
        good, _ = self.decide(row, "organization", comparable, not comparable)
        return {"reasoning": "Compared how the two texts are organised.",
                "structure": "comparable" if good else "very-different"}

    def _expected_output(self, row: SimulatedRow, verdict: dict) -> dict:
        """The reply's shared fields around `verdict` (the score or the category), right after
        the reasoning as the schema orders them."""
        return {"reasoning": "Compared the actual output with the expected output.", **verdict,
                "semantic_match": True, "partial_match": False, "missing_elements": [],
                "incorrect_elements": [], "confidence": 1.0}

    def _reply_ExpectedOutputScore(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        bounds = re.findall(r"score range: (-?\d+) to (-?\d+)", found.get("config", ""))
        if not bounds:
            raise Unplaceable("ExpectedOutputScore: the prompt gives no score range")
        low, high = (int(x) for x in bounds[-1])
        good = bool(row.label("good"))
        chosen, _ = self.decide(row, "expected_output", good, not good)
        return self._expected_output(row, {"score": high if chosen else low})

    def _reply_ExpectedOutputCategory(self, row: SimulatedRow, found: dict, body: dict) -> Any:
        menu = re.findall(r"^- (.+)$", found.get("config", ""), flags=re.MULTILINE)
        category = row.truth.get("category")
        if category is None or category not in menu:
            raise Unplaceable(f"ExpectedOutputCategory: row {row.id!r} has no category among {menu}")
        wrong = next((c for c in menu if c != category), category)
        chosen, _ = self.decide(row, "expected_output", category, wrong)
        return self._expected_output(row, {"category": chosen})


class SimulatedEndpoint:
    """A `SimulatedJudge` served on 127.0.0.1 (a `FaultServer` with no faults), as a context
    manager; `flags` are the CLI's flags that reach it."""

    def __init__(self, judge: SimulatedJudge) -> None:
        self.judge = judge
        self.server = FaultServer(reply=judge.reply)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def flags(self) -> list[str]:
        return ["--base-url", self.base_url, "--model", MODEL_NAME]

    def __enter__(self) -> "SimulatedEndpoint":
        self.server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()
