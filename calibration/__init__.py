"""Decisions fitted on data, per judge: profiles and the decision layer the nodes read.

The graph's steps record signals (label probabilities, grounding, number conflicts, the
judge's own answer); the functions here turn them into the quantities the seeds' formulas take,
with the parameters of a profile (`profile.py`): the default one (`profiles/default.json`), a
shipped one fitted for the running judge, or one a user fitted with `judgegraph calibrate`.

This package sits below the nodes, which call it, and imports none of them. Fitting a profile
re-scores recorded runs with the nodes' rules, so it lives above them, in `fitting/`.

Only the profile API is exported here, loaded on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "Profile", "ProfileError", "ProfileMismatchError", "check_judge", "default_profile", "load_profile",
    "parse_profile", "profile_for", "write_profile",
]


def __getattr__(name: str) -> Any:
    """The profile API, loaded on first use: importing a light submodule of this package (the
    metric names the command line lists) must not build the profile models."""
    if name not in __all__:
        raise AttributeError(f"module 'judgegraph.calibration' has no attribute {name!r}")
    from . import profile

    return getattr(profile, name)
