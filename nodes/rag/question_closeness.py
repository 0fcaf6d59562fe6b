"""Context relevance's one signal that is not the judge's: how close the context comes to the
question, by sentence embedding.

Why a second signal: the judge's P(yes / partly / no) is the whole of recall by default, and a
small judge's probabilities are coarse; an embedder answers "does any line speak about what the
question asks?" in milliseconds. It is measured only when an embedder is configured, and only
when it is used (a profile whose fitted recall reads it) or asked for (`record_all_signals`, set
by `judgegraph calibrate`): the default profile's runs cost exactly what they did.

The figure is the closest context line's similarity to the question on people's 0..1 scale
(`llm.embeddings.similarity_from_cosine`): a line, because retrieved contexts mix one useful
sentence with noise and an embedding of the whole would blur it (and e5 reads 512 tokens).
"""

from __future__ import annotations

from ...llm.embeddings import run_embedder, similarity_from_cosine
from ...llm.steps import Step, blocking
from ...run.context import JudgeContext
from ...run.context_view import closeness
from ...text.segmentation import context_lines


def question_closeness(question: str, passages: list[str], context: JudgeContext | None) -> Step[float | None]:
    """The closest line's similarity to the question, 0..1; None without an embedder. The
    embedder is loaded and run off the event loop."""
    if not passages or not getattr(context, "embeddings", True):
        return None

    def measure() -> float | None:
        embedder = run_embedder(context)
        if embedder is None:
            return None
        cosines = closeness(question, context_lines(passages), embedder)
        return max((similarity_from_cosine(embedder, value) for value in cosines), default=None)

    return (yield from blocking(measure))
