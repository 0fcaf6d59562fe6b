"""The fixed tune / report split of every bench-data set, by id, in code.

Why: a figure measured on the items a prompt or threshold was tuned on is not a result. Every
row belongs to exactly one part, decided by a salted hash of its key, so the split does not
depend on file order, on `--limit`, or on which rows a run happened to take:

- the key is the row's `id`, except for the paired sets (MS MARCO, WikiQA) where it is
  `meta.pair_id`, so a query's positive and negative are always in the same part (pairwise
  accuracy needs both), and for the conversation sets (TREC CAsT rewrites) where it is
  `meta.conversation`, so a conversation's turns are in one part;
- HaluEval's first 40 rows are always *tune*: the step prompts of an earlier round were tuned
  on them (with `benchmarks/prompt_ab.py`, retired after commit 17d2b99);
- otherwise a row is *report* when sha256("judgegraph-split-v1:" + key) is even, else *tune*
  (about half each: 100 ± 7 rows of the 200 per set).

Methods, prompts and thresholds may be changed by looking at tune rows only; the published
figures come from report rows.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Part = Literal["tune", "report"]
PARTS: tuple[Part, ...] = ("tune", "report")
SALT = "judgegraph-split-v1"
HALUEVAL_PRETUNED_ROWS = 40
"""HaluEval rows tuned on before the split existed: kept in the tune part."""


PAIRED_SETS = ("msmarco_ctxrel", "wikiqa_answer_relevance")
"""Sets whose rows come in pairs per question: a row's part is its pair's."""
CONVERSATION_SETS = ("cast_standalone_question",)
"""Sets whose rows are turns of conversations: a row's part is its conversation's
(`meta.conversation`), so no conversation is tuned on in one part and reported in the other."""


def split_key(set_name: str, row: dict) -> str:
    if set_name in PAIRED_SETS:
        return f"{set_name}:{row['meta']['pair_id']}"
    if set_name in CONVERSATION_SETS:
        return f"{set_name}:{row['meta']['conversation']}"
    return str(row["id"])


def part_of(set_name: str, row: dict, position: int) -> Part:
    """The part of the row at `position` (0-based, file order) of set `set_name`."""
    if set_name == "halueval_qa" and position < HALUEVAL_PRETUNED_ROWS:
        return "tune"
    digest = hashlib.sha256(f"{SALT}:{split_key(set_name, row)}".encode("utf-8")).digest()
    return "report" if digest[-1] % 2 == 0 else "tune"


def rows_in_part(set_name: str, rows: list[dict], part: Part) -> list[dict]:
    """The rows of `part`, in file order."""
    return [row for position, row in enumerate(rows) if part_of(set_name, row, position) == part]
