"""`--escalate-to` and its flags (issue 57; docs/judges.md, "Escalation"): a second judge that
decides only what the first is unsure of.

Why its own module: `evaluate` takes them for one item and for a batch, and the flags are turned
into `build_judge`'s keywords in one place (`judge_flags`)."""

from __future__ import annotations

import argparse
from typing import Any


def _target(text: str) -> float:
    value = float(text)
    if not 0.5 < value < 1:
        raise argparse.ArgumentTypeError(f"must be an agreement rate between 0.5 and 1, not {text}")
    return value


def add_escalation_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--escalate-to", metavar="MODEL",
                        help="a second judge (any model --model accepts) that decides each claim verdict, context "
                             "relevance and answer relevance the first judge is unsure of (docs/judges.md)")
    parser.add_argument("--escalate-base-url", metavar="URL",
                        help="the second judge's OpenAI-compatible server (default: the provider's usual one)")
    parser.add_argument("--escalate-api-key", metavar="KEY",
                        help="the second judge's API key (default: $JUDGEGRAPH_ESCALATE_API_KEY, else the "
                             "provider's variable)")
    parser.add_argument("--agreement", type=_target, metavar="TARGET",
                        help="use the band the first judge's profile holds for this agreement with the second "
                             "judge alone (`judgegraph escalation-fit`; default: the band (0.2, 0.8))")
    parser.add_argument("--escalate-band", metavar="all|CONFIDENCE",
                        help="`all`: both judges on every decision, the second's verdict counts (a jury); or a "
                             "confidence c: escalate decisions whose probability is inside (1 - c, c)")


def escalation_settings(args: argparse.Namespace) -> dict[str, Any]:
    """`build_judge`'s escalation keywords for the parsed flags (empty without `--escalate-to`,
    so a run without it is built exactly as before)."""
    given = {"escalate_to": getattr(args, "escalate_to", None),
             "escalate_base_url": getattr(args, "escalate_base_url", None),
             "escalate_api_key": getattr(args, "escalate_api_key", None),
             "escalate_band": getattr(args, "escalate_band", None),
             "agreement": getattr(args, "agreement", None)}
    return {key: value for key, value in given.items() if value is not None}
