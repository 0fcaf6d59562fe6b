"""`judgegraph escalation-fit jury.jsonl -o profile.json`: the escalation band fitted into the
first judge's profile (issue 57; docs/judges.md, "Escalation").

The flags are here and the work in `fitting.escalation_fit`; the parser is built without
loading SciPy (the fit is imported when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_TARGETS = "0.9,0.95,0.98"
DEFAULT_DELTA = 0.1


def _targets(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"targets are numbers between 0.5 and 1, e.g. {DEFAULT_TARGETS}") from None
    if not values or not all(0.5 < value < 1 for value in values):
        raise argparse.ArgumentTypeError(f"targets are numbers between 0.5 and 1, e.g. {DEFAULT_TARGETS}")
    return values


def _delta(text: str) -> float:
    value = float(text)
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError("--delta is a small probability, e.g. 0.1")
    return value


def add_escalation_fit_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("escalation-fit",
                                 help="fit the escalation band on a run where both judges decided everything")
    parser.add_argument("results", type=Path,
                        help="results JSONL of `evaluate --escalate-to MODEL --escalate-band all --details`")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the profile JSON to write")
    parser.add_argument("--agreement", type=_targets, default=_targets(DEFAULT_TARGETS), metavar="T1,T2",
                        help=f"agreement targets with the second judge alone (default {DEFAULT_TARGETS})")
    parser.add_argument("--delta", type=_delta, default=DEFAULT_DELTA,
                        help="the chance a fitted band misses its target (default 0.1: met with probability 0.9)")
    parser.add_argument("--calibration", type=Path, metavar="PROFILE",
                        help="the first judge's profile to add the band to (default: its shipped profile, "
                             "else the default)")
    parser.add_argument("--id", help="the written profile's id (default: the profile's own)")


def escalation_fit_command(args: argparse.Namespace) -> int:
    from ..calibration.profile import ProfileError, default_profile, load_profile, shipped_profile_for, write_profile
    from ..fitting.escalation_fit import EscalationFitError, fit_escalation, read_jury_run, with_escalation

    try:
        if not args.results.is_file():
            raise EscalationFitError(f"cannot read {args.results}: no such file")
        run = read_jury_run(args.results)
        base = load_profile(args.calibration) if args.calibration else (
            shipped_profile_for(run.first_judge) or default_profile())
        section = fit_escalation(run, args.agreement, args.delta)
        profile = with_escalation(base, section, args.id)
        write_profile(profile, args.output)
    except (EscalationFitError, ProfileError, OSError) as error:
        print(f"judgegraph: {error}", file=sys.stderr)
        return 2
    for key, fit in section.fits.items():
        said = "; ".join(f"{kind}: escalate below {fit.confidence[kind]:.3f} "
                         f"(keeps {figures['kept_share']:.0%} of {figures['n']})"
                         for kind, figures in fit.figures.items())
        print(f"target {key}: {said}", file=sys.stderr)
    print(f"wrote {args.output} (profile {profile.id}, first judge {run.first_judge}, second judge "
          f"{run.second_judge})", file=sys.stderr)
    return 0
