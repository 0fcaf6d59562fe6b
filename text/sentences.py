"""Sentences and independent clauses, in every script.

Latin and Cyrillic text ends a sentence at ".", "!" or "?" followed by a space and an upper-case
letter of any alphabet (or an opening mark, Spanish "¿¡" included); "Dr.", "z. B.", "т. е." and
initials do not end one. Chinese and Japanese end a sentence at "。！？" (and at "!?" after a
CJK character) with no space after it; a closing bracket or quote (」』）) stays with its
sentence. Independent clauses are split at ";" / "；" and at ", and" / ", but" and their
equivalents (", und", ", pero", ", mais", ", но", "，但是"...) when both sides are long enough
to be claims.
"""

from __future__ import annotations


import regex

from .memo import shared_cache
from .scripts import SPACELESS, ends_spaceless
from .tokens import word_count

_SENTENCE_END = regex.compile(
    r"(?<=[.!?])(?P<close>[\"”')\]»]?)\s+(?=[\"“(\[«„¿¡]?[\p{Lu}\p{Lo}0-9])"  # ". Next" / '." Next' / ". 인구'
    r"|(?<=[a-z0-9\"”)]\.)(?=[A-Z])"  # glued sentences: 'Man".I Love You' / 'end.Next'
    rf"|(?:(?<=[。！？])|(?<=[{SPACELESS}][!?]))(?P<close>[」』”’）)】〕]*)\s*(?=\S)"  # 。 and 吗? 
)
_ABBREVIATION = regex.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|Inc|Ltd|Co|Corp|No|Vol|Gen|Col|Lt|Sgt|Rev|Gov|Sen|Rep"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|U\.S|U\.K|e\.g|i\.e"
    # German, French, Spanish, Russian
    r"|z|d|u|z\.\s?B|d\.\s?h|u\.\s?a|bzw|usw|vgl|ggf|Nr|Hr|Fr|ca|Mme|Mlle|Sra|Srta|Dra|Ud|Uds|p\.\s?ej|p\.\s?ex"
    r"|т\.\s?е|т\.\s?д|т\.\s?п|др|им|ул|проф|акад)\.|\b\p{Lu}\.)$",
    regex.REVERSE,  # anchored at the end: searched from there, one try per sentence end
)
_SEMICOLON = regex.compile(r";\s+|；\s*")
_CLAUSE_BREAK = regex.compile(
    r",\s+(?:and|but|while|whereas"
    r"|und|aber|doch|während|sondern"
    r"|y|pero|mientras que|mientras|sino que"
    r"|et|mais|tandis que|alors que"
    r"|и|но|а|однако|тогда как)\s+"
    r"|[，、]\s*(?=(?:但是|但|可是|然而|而且|并且|而|しかし|だが|でも))"
)
MIN_CLAUSE_WORDS = 5
"""Both sides of ", and" must have this many words to be two claims: "..., the Philippines, and
the Sea of Japan" is a list, "X founded it, and the film came out in 2007" two clauses. Words of
Chinese and Japanese are counted as `tokens.word_count` does."""
_END_MARKS = (".", "!", "?", "。", "！", "？")


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, without breaking after "Dr.", "U.S." or an initial ("J. R. R.")."""
    return list(_sentences(text))


_CLOSING = "\"”')]»"
_ABBREVIATION_REACH = 16
"""Characters before a sentence end that can hold an abbreviation ("z. B.", "Sept.", "т. е."):
the abbreviation test reads only these, so a run of thousands of initials costs the same per
end as one sentence does."""


@shared_cache(maxsize=512)
def _sentences(text: str) -> tuple[str, ...]:
    """Cached: every claim check and judgment of one item splits the same passages (a pure
    function of the text). Linear in the text: a sentence is a span of `text` (never a growing
    copy), and whether it ends in an abbreviation is read from its last characters only."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        cut = match.end("close")
        if cut < 0:  # the glued alternative has no closing mark
            cut = match.start()
        end = cut
        while end > start and text[end - 1] in _CLOSING:
            end -= 1
        # every abbreviation ends in "."; an end at "!", "?" or "。" needs no test
        if end > start and text[end - 1] == "." and \
                _ABBREVIATION.search(text, max(start, end - _ABBREVIATION_REACH), end):
            continue
        pieces.append(text[start:cut])
        start = match.end()
    pieces.append(text[start:])
    return tuple(" ".join(piece.split()) for piece in pieces if piece.strip())


def as_sentence(part: str) -> str:
    """A clause as a sentence of its own: capitalised, with an end mark of its script."""
    part = part.strip(" ,;，；、")
    if part.endswith(_END_MARKS):
        return part[:1].upper() + part[1:]
    return part[:1].upper() + part[1:] + ("。" if ends_spaceless(part) else ".")


def split_clauses(sentence: str) -> list[str]:
    """Independent clauses: always at ";", at ", and" / ", but" (and their equivalents) only
    between long parts."""
    clauses = []
    for piece in _SEMICOLON.split(sentence):
        parts = _CLAUSE_BREAK.split(piece)
        if len(parts) > 1 and all(word_count(part) >= MIN_CLAUSE_WORDS for part in parts):
            clauses += [as_sentence(part) for part in parts]
        else:
            clauses.append(piece)
    if len(clauses) == 1:
        return [sentence]
    return [as_sentence(clause) for clause in clauses if clause.strip(" ,;.，；、。")]
