"""Decisions fitted on data, per judge: profiles and the decision layer.

The graph's steps record signals (label probabilities, grounding, number conflicts, the
judge's own answer); the functions here turn them into the quantities the seeds' formulas take,
with the parameters of a profile (`profile.py`): the default one (`profiles/default.json`), a
shipped one fitted for the running judge, or one a user fitted with `judgegraph calibrate`
(`fitted_metrics.py` names, per metric, its fit and recompute modules; `cross_validation.py`
serves them all).

Only the low layer is imported here (profiles and decisions, which the nodes call); the fitting
modules import the nodes and are imported by name.
"""

from .profile import (
    Profile,
    ProfileError,
    ProfileMismatchError,
    check_judge,
    default_profile,
    load_profile,
    parse_profile,
    profile_for,
    write_profile,
)

__all__ = [
    "Profile", "ProfileError", "ProfileMismatchError", "check_judge", "default_profile", "load_profile",
    "parse_profile", "profile_for", "write_profile",
]
