"""A hash of the code and prompts that define each metric's signals.

Why: a fitted profile maps *these* signals to decisions. If the prompt that asks for a verdict,
the way label probabilities are read, or the grounding rule changes, the same numbers no longer
mean the same thing, and applying the old fit would silently mis-score. So a fitted profile
records this hash, and loading it refuses a profile whose hash differs from the running code's.

Python files are hashed by their syntax tree with docstrings removed, so comments, formatting and
documentation edits keep the hash; any change of code does not. The tree is written out by
`stable_dump`, not `ast.dump`: `ast.dump`'s text differs between Python versions for the same
code (3.12 adds an empty `type_params` to every function, 3.13 leaves empty fields out), and a
shipped profile must load on every Python the package supports. Templates are hashed as text.
Files are read from the installed package, never imported, so this module sits below every layer
it describes.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]

TEXT_RULES = (
    "text/tokens.py", "text/numbers.py", "text/stopwords.py", "text/sentences.py", "text/scripts.py",
    "text/languages.py", "text/refusals.py",
)
"""The text rules most judged signals read (tokens, numbers, scripts...), for a metric's sources."""
SHARED_PROMPTS = ("prompts/_system_qa.j2", "prompts/_language.j2", "prompts/_lines.j2", "prompts/_item_data.j2")
"""The prompt parts every judge prompt includes, for a metric's sources."""


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def stable_dump(node: object) -> str:
    """The syntax tree as text, the same on every supported Python: a field that is None or an
    empty list is left out (the fields newer versions add, such as `type_params`, are empty in
    code that does not use them), and positions are never written."""
    if isinstance(node, ast.AST):
        fields = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            fields.append(f"{name}={stable_dump(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(stable_dump(item) for item in node) + "]"
    return repr(node)


def _canonical(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return stable_dump(_without_docstrings(ast.parse(text)))
    return text


@lru_cache(maxsize=None)
def signal_hash(metric: str, sources: tuple[str, ...]) -> str:
    """sha256 (first 16 hex digits) over the metric's signal sources; a missing file counts as
    empty, so a renamed file changes the hash instead of crashing. A calibrated metric's is
    `CalibratedMetric.signal_hash` (`calibrated_metrics.calibrated_metric(key).signal_hash`)."""
    digest = hashlib.sha256(metric.encode("utf-8"))
    for relative in sources:
        path = PACKAGE_ROOT / relative
        digest.update(b"\0" + relative.encode("utf-8") + b"\0")
        if path.is_file():
            digest.update(_canonical(path).encode("utf-8"))
    return digest.hexdigest()[:16]
