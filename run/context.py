"""The run-time context every node receives: the judge model, its calibration profile and
the knobs of the run.

Passed as LangGraph's `context_schema`, so one compiled graph serves any model; nothing about
the model lives in the graph's state or in module globals.

Why the profile is resolved here, when the context is built: which profile decides the scores
depends only on the context (its `calibration`, its judge's `model_id`), so it is chosen once,
where the context is made (the CLI's flags, `evaluate`, the batch, the evaluators, the served
graph, or an app's own `JudgeContext(...)`), and a profile fitted for another judge is refused
there. The nodes read `context.profile`; none of them chooses one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from ..calibration.escalation_band import EscalationBand
from ..calibration.profile import Profile, profile_for
from ..llm.response_format import Dialect
from ..llm.steps import Step, blocking

DEFAULT_CONTEXT_CAP_TOKENS = 1024
"""Context tokens one judge call may carry (`run.context_view`)."""

ClaimCheckMode = Literal["per-claim", "batch"]
ClaimExtraction = Literal["sentences", "model"]


@dataclass
class JudgeContext:
    """Model and settings for one run (or a whole batch) of the graph."""

    model: BaseChatModel | None = None
    """The judge. None means: resolve the default (see `llm.models.default_model`)."""
    model_id: str = "unconfigured"
    """Identity of the judge, for the trace and cache keys."""
    endpoint: str | None = None
    """Where the judge is reached (`llm.openai_compatible.ResolvedModel.endpoint`): the CLI
    probes it before a batch and names it when the judge cannot be used; None when unknown."""
    response_format: Dialect = "json_schema"
    """How each step's JSON schema is sent; local llama.cpp servers need `json_object`."""
    max_repairs: int = 2
    """Re-prompts with the validation errors before a step fails cleanly."""
    claim_check: ClaimCheckMode = "per-claim"
    """`per-claim`: one fanned-out call per claim; `batch`: all claims in one call (cheap models)."""
    claim_extraction: ClaimExtraction = "sentences"
    """`sentences`: the answer's sentences and independent clauses are its claims, cut in code
    (no model call; see `text.segmentation`); `model`: the judge lists atomic claims."""
    embeddings: bool = True
    """Use sentence embeddings (similarity, evidence lines, context precision) when available."""
    embedder: Any = None
    """An `llm.embeddings.Embedder`; None means the packaged multilingual-e5-small when installed."""
    top_logprobs: int = 10
    """Alternatives per token asked of OpenAI-compatible servers for graded verdicts; 0 = off."""
    own_answer: bool = True
    """For a one-claim answer that the claim check does not support, also ask the judge to
    answer the question from the context itself; when its answer agrees with the one under
    test, the claim counts as supported (`nodes.claims.second_reading`). One more call, only then."""
    context_window: int | None = None
    """The judge's window in tokens, when known (the embedded server's n_ctx; `--context-window`
    for a remote judge): no prompt's context is allowed to outgrow it."""
    context_cap_tokens: int = DEFAULT_CONTEXT_CAP_TOKENS
    """Context tokens one call may carry; a longer context shows its closest lines
    (`run.context_view`). Bounds the cost per call, whatever the number of passages."""
    calibration: Profile | None = None
    """The calibration profile chosen to turn signals into decisions (`calibration.profile`);
    None means the shipped profile fitted for `model_id` if there is one, else the default
    profile. `profile` is the one in use."""
    allow_profile_mismatch: bool = False
    """Apply `calibration` even when it was fitted for another judge model (refused otherwise)."""
    record_all_signals: bool = False
    """Measure every optional signal whatever the profile would skip (the second reading of
    every one-claim answer, context relevance's question-context embedding closeness):
    `judgegraph calibrate` sets it, so a refit can recompute any profile's decisions from what
    was recorded. More calls and embeddings; scores are unchanged."""
    escalate_to: JudgeContext | None = None
    """The second judge (`--escalate-to`, issue 57): each decision of this judge whose
    probability is inside the escalation band is asked again of it, and its verdict counts,
    read under its own profile (`run.escalation`). None: this judge decides everything."""
    escalation_band: EscalationBand | None = None
    """The band (`calibration.escalation_band`); None: this judge's profile's fit for
    `agreement`, else the documented default band."""
    agreement: float | None = None
    """`--agreement`: which of the profile's fitted bands to use (its target)."""
    extra: dict = field(default_factory=dict)
    """Room for embedding apps; ignored by judgegraph's own nodes."""
    profile: Profile = field(init=False, repr=False, compare=False)
    """The calibration profile the run decides with, resolved from `calibration`, `model_id` and
    `allow_profile_mismatch` when the context is built (`calibration.profile_for`), and again
    when one of them is set; its `id` names it in traces and records. Raises
    `ProfileMismatchError` for a `calibration` fitted for another judge."""

    def __post_init__(self) -> None:
        self.profile = profile_for(self)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in _PROFILE_INPUTS and "profile" in self.__dict__:  # built already: keep it in step
            super().__setattr__("profile", profile_for(self))


_PROFILE_INPUTS = frozenset({"calibration", "model_id", "allow_profile_mismatch"})
"""The fields `JudgeContext.profile` is resolved from."""


def resolve_context(context: JudgeContext | None) -> JudgeContext:
    """The context to use when a caller embedded the graph without one (runtime.context is None)."""
    if context is not None and context.model is not None:
        return context
    from ..llm.models import (
        default_model,  # deferred: only embedding without a model needs it
    )

    resolved = default_model()
    base = context or JudgeContext()
    return replace(
        base,
        model=resolved.model,
        model_id=resolved.model_id,
        response_format=resolved.response_format,  # the resolved server's dialect
        context_window=base.context_window or getattr(resolved, "context_window", None),
    )


def run_profile(context: JudgeContext | None) -> Profile:
    """The profile a run's scores are decided with, for the step that assembles them.

    A context with its judge carries it (`JudgeContext.profile`). A context without one (an
    app's graph given no model) has its steps resolve the process's default judge
    (`resolve_context`), and with it that judge's profile: once the default judge is resolved,
    this is its profile too. Until then (an item no step judged), and whenever a profile was
    chosen (`calibration`), the context's own profile stands; no judge is started here."""
    if context is not None and (context.model is not None or context.calibration is not None):
        return context.profile
    from ..llm.models import default_model_if_resolved  # deferred: as in resolve_context

    judge = default_model_if_resolved()
    base = context or JudgeContext()
    if judge is None:
        return base.profile
    return replace(base, model_id=judge.model_id).profile


def resolved_context(context: JudgeContext | None) -> Step[JudgeContext]:
    """`resolve_context` as a step: free when the context has its model; otherwise the default
    judge is resolved off the event loop under `ainvoke` (it may read files or start a server)."""
    if context is not None and context.model is not None:
        return context
    return (yield from blocking(resolve_context, context))


REMOTE_CONCURRENCY = 8
LOCAL_CONCURRENCY = 1
"""The local llama.cpp judge runs one call at a time so consecutive calls share the prompt
prefix in its cache; remote servers take several in parallel."""


def items_in_flight(requested: int | None, model_id: str) -> int:
    """`--concurrency` (`concurrency=`) if given, else one item at a time for the local judge,
    8 for others: a rule of the judge, shared by the one-item path and the batch."""
    if requested is not None:
        return max(1, requested)
    return LOCAL_CONCURRENCY if model_id.startswith("local:") else REMOTE_CONCURRENCY
