"""A scripted fake judge for graph tests: it answers per step, and records every prompt.

The fake tells which step is calling from the JSON schema the step binds as
`response_format` (its pydantic class name, e.g. `ExtractedClaims`). Scripts are keyed by
that schema name, or by the `rag` steps' node names below for readability. Each value is a
list of replies consumed in order (a non-list value repeats forever); a reply is a dict
(sent as JSON), a string (sent verbatim), an AIMessage, an Exception (raised), or a callable
that receives the prompt text and returns one of those.
"""

from __future__ import annotations

import json
import threading
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
    "judge_semantic_similarity": "SimilarityJudgment",
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

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        prompt = "\n".join(m.text for m in messages)
        step = schema_of(kwargs)
        with self._lock:
            self._calls.append((step, prompt, kwargs))
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
        return ChatResult(generations=[ChatGeneration(message=reply_message(reply))])


def judge(**scripts: Any) -> ScriptedJudge:
    """`judge(extract_claims=[...], check_claim=[...])`; a non-list value repeats forever."""
    keyed = {STEP_SCHEMAS.get(k, k): v for k, v in scripts.items()}
    queues = {k: list(v) for k, v in keyed.items() if isinstance(v, list)}
    repeats = {k: v for k, v in keyed.items() if not isinstance(v, list)}
    return ScriptedJudge(scripts=queues, default=repeats)


def claims(*texts: str, declines: bool = False) -> dict:
    return {"claims": list(texts), "declines_to_answer": declines}


def verdict(verdict: str, evidence: str = "", *, critical: bool = False, reasoning: str = "r") -> dict:
    return {"evidence": evidence, "reasoning": reasoning, "verdict": verdict, "critical": critical}


def context_relevance(precision: float, recall: float) -> dict:
    return {"reasoning": "judged", "precision": precision, "recall": recall}


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


def similarity(score: int) -> dict:
    return {"reasoning": "judged", "similarity": score}
