"""An item as a person labels it blind: what was judged, nothing of what the judge said.

Why blind is the default (docs/labelling.md): a person who first sees the judge's
"contradicted" or 0.82 tends to agree with it, and label-corrected estimates (PPI) assume the
labels' errors are independent of the judge's: anchored labels copy the judge's errors, and
the correction silently shrinks. The page and the terminal both show this view of the item to
label; the judge's side comes after the label is saved.
"""

from __future__ import annotations

from dataclasses import replace

from ..report.build import ItemView


def blind(item: ItemView) -> ItemView:
    """`item` with nothing of the judge's: its fields and its context unmarked, no claims (the
    judge cut them), verdicts, evidence, scores, explanations or trace."""
    passages = [[("".join(text for text, _ in passage), False)] for passage in item.passages]
    return replace(item, claims=[], passages=passages, metrics=[], citations=[], nodes=[], result="",
                   failed=None, profile=None, usage={})
