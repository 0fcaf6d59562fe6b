"""The judge that the command-line flags ask for: a `JudgeContext` and a concurrency.

Why its own module: the single-item path (`commands/cli.py`) and the batch turn the same flags
into a judge. The batch never imports `commands/`: the CLI hands it `judge_from_flags`, a
module-level function the Ray engine can also ship to its actors. Errors stay
`ModelConfigError` (one line that says how to fix it); each caller turns it into its own
usage error.
"""

from __future__ import annotations

import argparse

from ..calibration.profile import Profile, ProfileError, load_profile
from ..llm import models
from ..run.context import DEFAULT_CONTEXT_CAP_TOKENS, JudgeContext, items_in_flight
from ..run.judge_builder import build_judge
from .escalation_options import escalation_settings


def context_from_flags(args: argparse.Namespace) -> JudgeContext:
    """The JudgeContext for the parsed model flags (raises `ModelConfigError`). A
    `--calibration` profile is read before the judge is set up (a bad file costs no server
    start) and checked against the judge after, when the context resolves its profile
    (`JudgeContext.profile`)."""
    calibration = _calibration(args)
    try:
        return build_judge(
            args.model, calibration=calibration, base_url=args.base_url, api_key=args.api_key,
            local_model_path=args.local_model, response_format=args.response_format,
            timeout=args.timeout, max_retries=args.retries, resolve_now=True,
            allow_profile_mismatch=bool(getattr(args, "allow_profile_mismatch", False)),
            max_repairs=args.max_repairs,
            claim_check=args.claim_check,
            claim_extraction=getattr(args, "claims", "sentences"),
            embeddings=not getattr(args, "no_embeddings", False),
            context_window=getattr(args, "context_window", None),
            context_cap_tokens=getattr(args, "context_cap_tokens", None) or DEFAULT_CONTEXT_CAP_TOKENS,
            **escalation_settings(args),
        )
    except ProfileError as error:  # a --calibration fitted for another judge
        raise models.ModelConfigError(str(error)) from error


def judge_from_flags(args: argparse.Namespace) -> tuple[JudgeContext, int]:
    """The batch's judge factory (`batch.judge_setup.JudgeFactory`): the judge for the parsed
    flags and the items to keep in flight (raises `ModelConfigError`)."""
    context = context_from_flags(args)
    return context, default_concurrency(args, context.model_id)


def default_concurrency(args: argparse.Namespace, model_id: str) -> int:
    """`--concurrency` if given, else one call at a time for the local judge, 8 for others."""
    return items_in_flight(getattr(args, "concurrency", None), model_id)


def _calibration(args: argparse.Namespace) -> Profile | None:
    """The profile named by `--calibration`, or None (raises `ModelConfigError` with one line)."""
    path = getattr(args, "calibration", None)
    if not path:
        return None
    try:
        return load_profile(path)
    except ProfileError as error:
        raise models.ModelConfigError(str(error)) from error
