"""Where a batch's judge comes from: the model flags, or the test hook.

Test hook: when the environment variable `JUDGEGRAPH_FAKE_MODEL=module:factory` is set, the
batch uses `factory()` (a LangChain chat model or a JudgeContext) as the judge instead of
resolving one from the flags. It exists so tests can crash and resume a real `python cli.py`
child process, or run Ray workers, without a model server; it is read by the batch engines
only, never by the single-item path or the library. Its own module because both engines (the
local loop in `batch.runner`, the Ray actors in `batch.ray_engine`) build the judge this way.
"""

from __future__ import annotations

import argparse
import importlib
import os

FAKE_MODEL_ENV = "JUDGEGRAPH_FAKE_MODEL"
"""Test hook (see module docstring): `module:factory` returning the judge chat model."""


class BatchUsageError(Exception):
    """A problem the user can fix; one line, exit 2."""


def fake_context(spec: str, args: argparse.Namespace):
    """The test hook's judge: `module:factory` -> a chat model (see module docstring)."""
    from ..graph.context import JudgeContext

    module_name, _, factory_name = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), factory_name or "factory")
    except (ImportError, AttributeError) as error:
        raise BatchUsageError(f"{FAKE_MODEL_ENV}={spec!r} cannot be loaded: {error}") from error
    model = factory()
    if isinstance(model, JudgeContext):
        return model
    return JudgeContext(
        model=model, model_id=f"fake:{spec}", response_format=args.response_format or "json_schema",
        max_repairs=args.max_repairs, claim_check=args.claim_check,
    )


def resolve_judge(args: argparse.Namespace):
    """(JudgeContext, concurrency) from the test hook or the model flags (never via the CLI)."""
    from ..commands.judge_flags import context_from_flags, default_concurrency
    from ..llm.models import ModelConfigError

    spec = os.environ.get(FAKE_MODEL_ENV)
    try:
        context = fake_context(spec, args) if spec else context_from_flags(args)
    except ModelConfigError as error:
        raise BatchUsageError(str(error)) from error
    return context, default_concurrency(args, context.model_id)
