"""A scripted fake judge for graph tests: it answers per step, and records every prompt.

The fake tells which step is calling from the JSON schema the step binds as
`response_format` (its pydantic class name, e.g. `ExtractedClaims`). Scripts are keyed by
that schema name, or by the `rag` steps' node names below for readability. Each value is a
list of replies consumed in order (a non-list value repeats forever); a reply is a dict
(sent as JSON), a string (sent verbatim), an AIMessage, an Exception (raised), or a callable
that receives the prompt text and returns one of those.

The same scripts can answer over HTTP: `ScriptedJudge.http_reply` is a `FaultServer` reply
function, so a batch run in a child process or on Ray actors meets the scripted judge behind
a real OpenAI-compatible server (`tests.support.scripted_server`).

`with_logprobs(reply, field, {...})` wraps a reply in an AIMessage that carries OpenAI-format
token log-probabilities in `response_metadata["logprobs"]`, so graded verdicts can be
exercised through the graph (`llm.structured._invoke` reads them from any model's reply).
`HashEmbedder` is a deterministic stand-in for the sentence-embedding model.
"""

from __future__ import annotations

import json
import math
import re
import threading
import zlib
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

STEP_SCHEMAS = {
    "extract_claims": "ExtractedClaims",
    "check_claim": "ClaimCheck",
    "check_claims_batch": "BatchClaimChecks",
    "judge_context_relevance": "ContextRelevanceJudgment",
    "judge_answer_relevance": "AnswerRelevanceJudgment",
    "judge_answer_relevance_labels": "AnswerRelevanceLabels",
    "judge_semantic_similarity": "SimilarityJudgment",
    "answer_from_context": "OwnAnswer",
    "write_standalone_question": "StandaloneQuestionReply",
}
"""Readable step names of the `rag` rubric -> the schema each step asks for."""

Reply = str | dict | AIMessage | Callable[[str], Any] | Exception


def schema_of(kwargs: dict) -> str:
    """The schema name a call asked for, from its `response_format` (either dialect)."""
    response_format = kwargs.get("response_format") or {}
    if "json_schema" in response_format:
        return response_format["json_schema"]["name"]
    if "schema" in response_format:
        return response_format["schema"].get("title", "")
    raise AssertionError("the fake judge needs a response_format to tell the step")


def reply_message(reply: Any, *, input_tokens: int = 10, output_tokens: int = 5) -> AIMessage:
    if isinstance(reply, AIMessage):
        return reply
    text = reply if isinstance(reply, str) else json.dumps(reply)
    return AIMessage(
        content=text,
        response_metadata={"finish_reason": "stop"},
        usage_metadata={"input_tokens": input_tokens, "output_tokens": output_tokens,
                        "total_tokens": input_tokens + output_tokens},
    )


class ScriptedJudge(BaseChatModel):
    """Replies by step; records (step, prompt text, kwargs) for every call."""

    scripts: dict[str, list[Any]]
    default: dict[str, Any] = {}
    _calls: list[tuple[str, str, dict]] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    @property
    def calls(self) -> list[tuple[str, str, dict]]:
        return self._calls

    def prompts_for(self, step: str) -> list[str]:
        schema = STEP_SCHEMAS.get(step, step)
        return [prompt for s, prompt, _ in self._calls if s == schema]

    def count(self, step: str) -> int:
        return len(self.prompts_for(step))

    def next_reply(self, step: str, prompt: str, request: dict) -> Any:
        """Records the call, then returns the step's next scripted reply (a callable is called
        with the prompt; an Exception is raised)."""
        with self._lock:
            self._calls.append((step, prompt, request))
            queue = self.scripts.get(step)
            if queue:
                reply = queue.pop(0)
            elif step in self.default:
                reply = self.default[step]
            else:
                raise AssertionError(f"no scripted reply left for step {step!r}")
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            reply = reply(prompt)
        return reply

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        reply = self.next_reply(schema_of(kwargs), "\n".join(m.text for m in messages), kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply_message(reply))])

    def http_reply(self, step: str, schema: dict, body: dict) -> Any:
        """The same scripts as a `FaultServer` reply function: the call is recorded with the
        request body in place of the call's keyword arguments, and the prompt is the messages'
        text joined as in-process; an AIMessage reply sends its content (not its logprobs)."""
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        reply = self.next_reply(step, prompt, body)
        return reply.content if isinstance(reply, AIMessage) else reply


def judge(**scripts: Any) -> ScriptedJudge:
    """`judge(extract_claims=[...], check_claim=[...])`; a non-list value repeats forever."""
    keyed = {STEP_SCHEMAS.get(k, k): v for k, v in scripts.items()}
    queues = {k: list(v) for k, v in keyed.items() if isinstance(v, list)}
    repeats = {k: v for k, v in keyed.items() if not isinstance(v, list)}
    return ScriptedJudge(scripts=queues, default=repeats)


def standalone(question: str) -> dict:
    """A reply of the standalone-question step (a conversation's last turn rewritten)."""
    return {"question": question}


def claims(*texts: str, declines: bool = False) -> dict:
    return {"claims": list(texts), "declines_to_answer": declines}


def verdict(verdict: str, line: int = 0) -> dict:
    """A `ClaimCheck` reply: the verdict and the number (1-based) of the deciding context line
    among the lines shown to the judge; 0 for none."""
    assert isinstance(line, int), "ClaimCheck takes a line number now, not a quote"
    return {"verdict": verdict, "line": line}


def context_relevance(answer_in_context: str = "yes", useful_lines: list[int] | tuple[int, ...] = ()) -> dict:
    """A `ContextRelevanceJudgment` reply."""
    return {"answer_in_context": answer_in_context, "useful_lines": list(useful_lines)}


def answer_relevance(
    *, parts: list[bool] | None = None, directness: str = "direct", refusal: bool = False,
    reason: bool = False, category: str = "none", cites: bool = False, context_has_answer: bool = False,
) -> dict:
    return {
        "reasoning": "judged",
        "question_parts": [{"part": f"part {i}", "answered": a} for i, a in enumerate(parts or [True])],
        "directness": directness,
        "is_refusal": refusal,
        "refusal_reason_given": reason,
        "refusal_category": category,
        "refusal_cites_missing_info_or_policy": cites,
        "context_contains_answer": context_has_answer,
    }


def answer_labels(
    *, parts: list[bool] | None = None, phrases: list[str] | None = None, directness: str = "direct",
    refusal: bool = False, reason: bool = False, category: str = "none", cites: bool = False,
    context_has_answer: bool = False,
) -> dict:
    """An `AnswerRelevanceLabels` reply (the labels-only reply): the same observations as
    `answer_relevance`, the refusal's as a nested object, null for an answer."""
    answered = parts or [True]
    names = phrases or [f"part {i}" for i in range(len(answered))]
    return {
        "question_parts": [{"part": name, "answered": a} for name, a in zip(names, answered)],
        "directness": directness,
        "refusal": {"reason_given": reason, "category": category, "cites_missing_info_or_policy": cites,
                    "context_contains_answer": context_has_answer} if refusal else None,
    }


def similarity(score: int) -> dict:
    return {"reasoning": "judged", "similarity": score}


# --- graded replies: OpenAI-format token log-probabilities ---------------------------------------

_TOKEN = re.compile(r"\s*\w+|\s*[^\w\s]+|\s+")


def _tokens(text: str) -> list[str]:
    pieces = _TOKEN.findall(text)
    assert "".join(pieces) == text
    return pieces


def _entry(token: str, probability: float = 1.0, alternatives: dict[str, float] | None = None) -> dict:
    logprob = math.log(probability) if probability > 0 else -9999.0
    top = [{"token": t, "logprob": math.log(p) if p > 0 else -9999.0} for t, p in (alternatives or {}).items()]
    return {"token": token, "logprob": logprob, "top_logprobs": top or [{"token": token, "logprob": logprob}]}


def logprobs_content(reply: dict, field: str, alternatives: dict[str, float]) -> list[dict]:
    """The `logprobs.content` list of `json.dumps(reply)`, tokenised so that the string value of
    `field` starts a token whose `top_logprobs` are `alternatives` (token -> probability, e.g.
    {"supported": 0.8, "contr": 0.2}); every other token is certain."""
    text = json.dumps(reply)
    marker = f'"{field}": "'
    start = text.index(marker) + len(marker)
    value = reply[field]
    head, tail = text[:start], text[start + len(value):]
    chosen = _entry(value, alternatives.get(value, 1.0), alternatives)
    return [_entry(t) for t in _tokens(head)] + [chosen] + [_entry(t) for t in _tokens(tail)]


def graded_answer_relevance(answered: list[float], directness: dict[str, float], **reply_fields) -> AIMessage:
    """An answer-relevance reply whose `answered` value of part i is a token with P(true) =
    answered[i] (written as the likelier), and whose directness token has the alternatives
    `directness` (written: the likeliest); every other token is certain."""
    written = max(directness, key=directness.__getitem__)
    reply = answer_relevance(parts=[p >= 0.5 for p in answered], directness=written, **reply_fields)
    return with_logprobs(reply, "directness", content=graded_answer_tokens(reply, answered, directness))


def graded_answer_labels(answered: list[float], directness: dict[str, float], **reply_fields) -> AIMessage:
    """`graded_answer_relevance` for the labels-only reply (`answer_labels`)."""
    written = max(directness, key=directness.__getitem__)
    reply = answer_labels(parts=[p >= 0.5 for p in answered], directness=written, **reply_fields)
    return with_logprobs(reply, "directness", content=graded_answer_tokens(reply, answered, directness))


def graded_answer_tokens(reply: dict, answered: list[float], directness: dict[str, float]) -> list[dict]:
    """The `logprobs.content` of `json.dumps(reply)` (either answer-relevance reply): part i's
    `answered` token has P(true) = answered[i], the directness token the alternatives `directness`."""
    text = json.dumps(reply)
    written = reply["directness"]
    entries: list[dict] = []
    spots = [(m.end(), "answered") for m in re.finditer(r'"answered": ', text)]
    spots.append((text.index('"directness": "') + len('"directness": "'), "directness"))
    cursor, part = 0, 0
    for start, kind in sorted(spots):
        entries += [_entry(t) for t in _tokens(text[cursor:start])]
        if kind == "answered":
            value = "true" if answered[part] >= 0.5 else "false"
            p_true = answered[part]
            entries.append(_entry(value, p_true if value == "true" else 1 - p_true,
                                  {"true": p_true, "false": 1 - p_true}))
            cursor, part = start + len(value), part + 1
        else:
            entries.append(_entry(written, directness[written], directness))
            cursor = start + len(written)
    entries += [_entry(t) for t in _tokens(text[cursor:])]
    assert "".join(e["token"] for e in entries) == text
    return entries


def with_logprobs(reply: dict, field: str, alternatives: dict[str, float] | None = None, *,
                  content: list[dict] | None = None) -> AIMessage:
    """`reply` as an AIMessage whose response_metadata holds OpenAI-format logprobs: built by
    `logprobs_content(reply, field, alternatives)`, or `content` as given."""
    message = reply_message(reply)
    entries = content if content is not None else logprobs_content(reply, field, alternatives or {})
    return AIMessage(
        content=message.content,
        response_metadata={**message.response_metadata, "logprobs": {"content": entries}},
        usage_metadata=message.usage_metadata,
    )


VERDICT_LABELS = ("supported", "contradicted", "not-in-context")


def graded_verdict(probabilities: dict[str, float], line: int = 0, chosen: str | None = None) -> AIMessage:
    """A ClaimCheck reply with `probabilities` (token -> probability; a token may be a label's
    prefix, e.g. "contr") as the verdict token's alternatives. The written verdict is `chosen`,
    else the label the likeliest token starts."""
    if chosen is None:
        token = max(probabilities, key=probabilities.__getitem__)
        chosen = next(label for label in VERDICT_LABELS if label.startswith(token.strip().casefold()))
    return with_logprobs(verdict(chosen, line), "verdict", probabilities)


# --- a deterministic embedder ---------------------------------------------------------------------

_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset("a an the of in on at to is was were are and or by for it its this that".split())


class HashEmbedder:
    """A hashed bag of words: each content word adds 1 to a crc32-chosen dimension; vectors are
    unit length (all zeros for a text with no content word). Texts sharing words are close,
    texts sharing none have cosine 0; deterministic across runs and processes."""

    def __init__(self, dimensions: int = 512, model_id: str = "test:hashed-bag-of-words") -> None:
        self.dimensions = dimensions
        self.model_id = model_id
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def vector(self, text: str) -> list[float]:
        values = [0.0] * self.dimensions
        for word in _WORD.findall(text.casefold()):
            if word not in _STOPWORDS:
                values[zlib.crc32(word.encode("utf-8")) % self.dimensions] += 1.0
        norm = math.sqrt(sum(v * v for v in values))
        return [v / norm for v in values] if norm else values

    def embed(self, texts) -> list[list[float]]:
        with self._lock:
            self.calls.append(list(texts))
        return [self.vector(text) for text in texts]
