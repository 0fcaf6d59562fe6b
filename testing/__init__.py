"""Judged assertions for pytest: `assert_judged(item, faithfulness=0.8, answer_relevance=0.7)`.

    from judgegraph.testing import assert_judged, items

    def test_answer_is_grounded():
        assert_judged({"question": q, "answer": my_app(q), "context": docs}, faithfulness=0.8)

    @items("cases.jsonl")                      # one test per item, read as `judgegraph evaluate` reads it
    def test_cases(item):
        assert_judged(item, faithfulness=0.8, answer_relevance=0.7)

The pytest plugin (`testing.plugin`, on once judgegraph is installed) chooses the judge from
`--judgegraph-model` / `--judgegraph-base-url`, the same ini options, else the environment
(`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`), else the embedded local judge; caches its replies in
`.judgegraph_cache/` under the rootdir, so an unchanged item costs no call on the next run; ends
the session when the judge cannot be used; and prints a table of every judged metric at the end.
docs/pytest.md has the details. Nothing here imports pytest or the judging stack on import.
"""

from __future__ import annotations

from .assertions import ThresholdNotMet, assert_judged
from .items import FileItem, ItemFileError, items, read_items
from .session import JudgeUnavailableError

__all__ = ["assert_judged", "items", "read_items", "FileItem", "ItemFileError", "ThresholdNotMet",
           "JudgeUnavailableError"]
