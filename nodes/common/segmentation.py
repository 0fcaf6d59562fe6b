"""Cutting text into sentences (context lines) and an answer into checkable claims, in code.

Why in code: on the embedded judge, asking the model to list claims costs a ~500-token
prompt and ~40 generated tokens (about 17 s on 2 cores) before a single claim is checked,
and the 1.5B model turned short answers into context-free fragments ("cosmonaut") or copied
the question's background into the claims (docs/benchmarks.md). Sentence-level claims, each
checked *together with the question*, are what MiniCheck and LLM-AggreFact check too. The
model extractor stays available (`JudgeContext(claim_extraction="model")`) for strong judges.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?P<close>[\"”')\]]?)\s+(?=[\"“(\[]?[A-Z0-9])"  # ". Next" / '." Next' (the mark stays)
    r"|(?<=[a-z0-9\"”)]\.)(?=[A-Z])"  # glued sentences: 'Man".I Love You' / 'end.Next'
)
_ABBREVIATION = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|Inc|Ltd|Co|Corp|No|Vol|Gen|Col|Lt|Sgt|Rev|Gov|Sen|Rep|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|U\.S|U\.K|e\.g|i\.e)\.|\b[A-Z]\.)$"
)
_SEMICOLON = re.compile(r";\s+")
_CLAUSE_BREAK = re.compile(r",\s+(?:and|but|while|whereas)\s+")
MIN_CLAUSE_WORDS = 5
"""Both sides of ", and" must have this many words to be two claims: "..., the Philippines, and
the Sea of Japan" is a list, "X founded it, and the film came out in 2007" two clauses."""
MAX_CLAIMS = 12


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, without breaking after "Dr.", "U.S." or an initial ("J. R. R.")."""
    return list(_sentences(text))


@lru_cache(maxsize=512)
def _sentences(text: str) -> tuple[str, ...]:
    """Cached: every claim check and judgment of one item splits the same passages (a pure
    function of the text)."""
    pieces: list[str] = []
    buffer = ""
    position = 0
    for match in _SENTENCE_END.finditer(text):
        cut = match.end("close") if match.group("close") is not None else match.start()
        candidate = buffer + text[position:cut]
        if _ABBREVIATION.search(candidate.rstrip("\"”')]")):
            buffer = candidate + text[cut:match.end()]
            position = match.end()
            continue
        position = match.end()
        pieces.append(candidate)
        buffer = ""
    pieces.append(buffer + text[position:])
    return tuple(" ".join(piece.split()) for piece in pieces if piece.strip())


def context_lines(passages: list[str]) -> list[str]:
    """Every sentence of every passage, in order: the units evidence is chosen from."""
    return [sentence for passage in passages for sentence in split_sentences(passage)]


def _as_sentence(part: str) -> str:
    part = part.strip(" ,;")
    return part[:1].upper() + part[1:] + ("" if part.endswith((".", "!", "?")) else ".")


def _clauses(sentence: str) -> list[str]:
    """Independent clauses: always at ";", at ", and" / ", but" only between long parts."""
    clauses = []
    for piece in _SEMICOLON.split(sentence):
        parts = _CLAUSE_BREAK.split(piece)
        if len(parts) > 1 and all(len(part.split()) >= MIN_CLAUSE_WORDS for part in parts):
            clauses += [_as_sentence(part) for part in parts]
        else:
            clauses.append(piece)
    if len(clauses) == 1:
        return [sentence]
    return [_as_sentence(clause) for clause in clauses if clause.strip(" ,;.")]


def answer_claims(answer: str) -> list[str]:
    """The answer's claims: its sentences, with independent clauses joined by ";" or
    ", and" / ", but" split apart. A short answer ("I Love You, Man") is one claim, to be
    read together with the question."""
    claims = [clause for sentence in split_sentences(answer) for clause in _clauses(sentence)]
    return claims[:MAX_CLAIMS]
