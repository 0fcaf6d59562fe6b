"""A fake OpenAI-compatible judge that gives plausible, item-dependent replies, for demos.

Why: the report's screenshot and browser test need a batch whose results vary (some claims
supported with evidence quoted from the context, some not, different scores) without running
a real model. It serves `FaultServer` (a real HTTP server on 127.0.0.1) with a reply function
that reads the prompt: a claim is "supported" when a context sentence shares most of its words,
and the evidence is that sentence. It is no judge: it exists so reports have something to show.

    python -m tests.support.demo_judge --port 8011    # serves http://127.0.0.1:8011/v1 until Ctrl-C
"""

from __future__ import annotations

import re
import sys
from typing import Any

from tests.support.fault_server import default_reply, serve_until_interrupted

WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text) if len(w) > 2}


def _section(prompt: str, name: str) -> str:
    found = re.findall(rf"<{name}>(.*?)</{name}>", prompt, flags=re.DOTALL)
    return found[-1].strip() if found else ""


def _sentences(text: str) -> list[str]:
    """Sentences, without the `[n]` numbers the prompt puts before each passage."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [re.sub(r"^\[\d+\]\s*", "", s.strip()) for s in parts if s.strip()]


def _best_sentence(claim: str, context: str) -> tuple[int, float]:
    """(1-based number of the context line with the most of the claim's words, that share)."""
    claim_words = _words(claim)
    best, score = 0, 0.0
    for number, sentence in enumerate(_sentences(context), start=1):
        overlap = len(claim_words & _words(sentence)) / max(1, len(claim_words))
        if overlap > score:
            best, score = number, overlap
    return best, score


_PRONOUN = re.compile(r"\b(it|its|they|them|this|that|he|she)\b", re.IGNORECASE)
_ASKING = re.compile(r"^\s*(what|who|where|which)\s+(is|are|was|were)\s+", re.IGNORECASE)


def standalone(question: str, history: str) -> str:
    """The follow-up with its first pronoun replaced by the topic of the conversation's first
    user message ("What is the Eiffel Tower?" -> "the Eiffel Tower"); unchanged without one."""
    first = next((line.split(":", 1)[1].strip() for line in history.splitlines()
                  if line.startswith("user:")), "")
    topic = _ASKING.sub("", first).rstrip("?.! ").strip()
    if not topic:
        return question
    return _PRONOUN.sub(lambda m: topic + ("'s" if m.group(1).lower() == "its" else ""), question, count=1)


def reply(step: str, schema: dict, body: dict) -> Any:
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    context = _section(prompt, "context") or _section(prompt, "document") or _section(prompt, "passage")
    answer = _section(prompt, "answer")
    if step == "StandaloneQuestionReply":
        return {"question": standalone(_section(prompt, "question"), _section(prompt, "history"))}
    if step == "ExtractedClaims":
        claims = [s for s in _sentences(answer) if len(_words(s)) >= 2][:4]
        refusal = bool(re.search(r"\b(cannot|can't|don't know|unable)\b", answer, re.IGNORECASE))
        return {"declines_to_answer": refusal and not claims, "claims": claims}
    if step == "ClaimCheck":
        claim = _section(prompt, "claim")
        line, overlap = _best_sentence(claim, context)
        if overlap >= 0.6:
            return {"verdict": "supported", "line": line}
        return {"verdict": "not-in-context", "line": 0}
    if step == "ContextRelevanceJudgment":
        question = _words(_section(prompt, "question"))
        lines = _sentences(context)
        useful = [n for n, line in enumerate(lines, start=1) if len(question & _words(line)) >= 2]
        overlap = len(question & _words(context)) / max(1, len(question))
        verdict = "yes" if overlap >= 0.6 else "partly" if overlap >= 0.3 else "no"
        return {"answer_in_context": verdict, "useful_lines": useful}
    if step == "SimilarityJudgment":
        reference = _section(prompt, "reference")
        overlap = len(_words(answer) & _words(reference)) / max(1, len(_words(reference)))
        return {"reasoning": "Judged by word overlap (demo judge).", "similarity": min(5, round(overlap * 5))}
    return default_reply(step, schema, body)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="a fake OpenAI-compatible judge on 127.0.0.1, for demos")
    parser.add_argument("--port", type=int, default=0, help="default: any free port")
    args = parser.parse_args(argv)
    return serve_until_interrupted(reply, args.port, "demo judge")


if __name__ == "__main__":
    sys.exit(main())
