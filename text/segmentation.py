"""Cutting text into sentences (context lines) and an answer into checkable claims, in code.

Why in code: on the embedded judge, asking the model to list claims costs a whole call
(its tokens and seconds: docs/benchmarks.md) before a single claim is checked,
and the 1.5B model turned short answers into context-free fragments ("cosmonaut") or copied
the question's background into the claims (docs/benchmarks.md). Sentence-level claims, each
checked *together with the question*, are what MiniCheck and LLM-AggreFact check too. The
model extractor stays available (`JudgeContext(claim_extraction="model")`) for strong judges.

The rules for every script (sentence ends such as "。", clause words such as ", und" or "，但是")
live in `judgegraph.text.sentences`.
"""

from __future__ import annotations

from .sentences import MIN_CLAUSE_WORDS, split_clauses, split_sentences

__all__ = ["MAX_CLAIMS", "MIN_CLAUSE_WORDS", "answer_claims", "context_lines", "split_sentences"]

MAX_CLAIMS = 12


def context_lines(passages: list[str]) -> list[str]:
    """Every sentence of every passage, in order: the units evidence is chosen from."""
    return [sentence for passage in passages for sentence in split_sentences(passage)]


def answer_claims(answer: str) -> list[str]:
    """The answer's claims: its sentences, with independent clauses joined by ";" or
    ", and" / ", but" split apart. A short answer ("I Love You, Man") is one claim, to be
    read together with the question."""
    claims = [clause for sentence in split_sentences(answer) for clause in split_clauses(sentence)]
    return claims[:MAX_CLAIMS]
