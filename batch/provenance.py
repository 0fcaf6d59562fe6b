"""Which judge wrote a results file: the `provenance` object stamped on every batch record.

Why: a difference between two runs is the system's only when the judge stayed the same. The
judge is more than its model: the prompt templates, the judgegraph version (its rules in
code), a calibration profile and the method switches all move scores. `judgegraph compare`
reads this object to say when two runs differ in any of them; `profile_id` names the
calibration profile that turned the run's signals into scores (`JudgeContext.profile`); an
escalating run adds its second judge and band (`escalation`). It is built here, once per run, from the
run's judge context, and the results writer (`batch.writer.ResultWriter`) adds it to each line
it writes, so every engine's records carry the same object in the same place.

Why on every line and not in a header: a results file is plain JSONL that is appended to and
resumed, possibly with other flags; a line-level stamp survives that (and `compare` says when
one file mixes several provenances), where a header line would describe only the first run.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from typing import NotRequired, TypedDict

from ..schemas.version import __version__
from ..llm.embedding_availability import embeddings_in_use
from ..run.context import JudgeContext
from .escalation_provenance import ESCALATION_KEY, EscalationStamp, escalation_stamp

PROVENANCE_KEY = "provenance"
"""The record key that holds the object."""


class JudgeSettings(TypedDict):
    """The method switches that change scores for the same model and prompts."""

    response_format: str
    max_repairs: int
    claim_check: str
    claims: str
    embeddings: bool
    """Whether the run measured with sentence embeddings: asked for and installed
    (`llm.embeddings.embeddings_in_use`), never just asked for."""
    own_answer: bool
    context_cap_tokens: int
    """A long context shows the judge its closest lines up to this cap (`run.context_view`)."""


class Provenance(TypedDict):
    judge_model: str
    """The judge's identity (`local:<gguf name>`, `openai:gpt-4o-mini`, a server's model name)."""
    judgegraph_version: str
    profile_id: str | None
    """The calibration profile that decided the scores (the default one unless another applies)."""
    prompt_hash: str
    """`sha256:` and 16 hex digits over every packaged prompt template (names and text)."""
    rubric: str | None
    """The rubric forced for the run (`--rubric`); None when each item's keys chose it."""
    settings: JudgeSettings
    escalation: NotRequired[EscalationStamp]
    """Only with `--escalate-to`: the second judge and the band (`batch.escalation_provenance`);
    absent otherwise, so a run without it writes the records it wrote before escalation existed."""


@lru_cache(maxsize=1)
def prompt_hash() -> str:
    """A digest of the packaged prompt templates: any edit to any `.j2` changes it."""
    digest = hashlib.sha256()
    folder = resources.files("judgegraph.prompts")
    for entry in sorted((e for e in folder.iterdir() if e.name.endswith(".j2")), key=lambda e: e.name):
        digest.update(entry.name.encode("utf-8") + b"\0" + entry.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()[:16]}"


def build_provenance(context: JudgeContext, *, rubric: str | None = None,
                     profile_id: str | None = None) -> Provenance:
    """The provenance of a run judged with `context`; `rubric` is the run's `--rubric`, and
    `profile_id` the calibration profile applied to its scores, if any."""
    provenance = Provenance(
        judge_model=context.model_id,
        judgegraph_version=__version__,
        profile_id=profile_id,
        prompt_hash=prompt_hash(),
        rubric=rubric,
        settings=JudgeSettings(
            response_format=context.response_format, max_repairs=context.max_repairs,
            claim_check=context.claim_check, claims=context.claim_extraction,
            embeddings=embeddings_in_use(context), own_answer=context.own_answer,
            context_cap_tokens=context.context_cap_tokens,
        ),
    )
    escalation = escalation_stamp(context)
    if escalation is not None:
        provenance[ESCALATION_KEY] = escalation
    return provenance
