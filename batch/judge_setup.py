"""Where a batch's judge comes from: a factory its caller hands in (the CLI: its model flags).

Why a factory rather than reading the flags here: the batch engine must not depend on the
command line (it never imports `commands/`), yet the Ray engine has to build the same judge
again inside each actor's process, possibly on another host. So the caller passes a
module-level function (picklable by reference) that turns the parsed flags into a judge and
its concurrency; the local loop calls it once, each Ray actor once more with the same flags.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..llm.models import ModelConfigError
from ..run.context import JudgeContext
from .options import BatchUsageError

JudgeFactory = Callable[[argparse.Namespace], tuple[JudgeContext, int]]
"""Parsed flags -> (the judge, how many items to keep in flight); raises `ModelConfigError`."""


def resolve_judge(make_judge: JudgeFactory, args: argparse.Namespace) -> tuple[JudgeContext, int]:
    """`make_judge(args)`, with a model that cannot be set up as a usage error."""
    try:
        return make_judge(args)
    except ModelConfigError as error:
        raise BatchUsageError(str(error)) from error
