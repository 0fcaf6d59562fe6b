"""Profiles the tests build from shipped ones: the same decisions with another grounding rule."""

from __future__ import annotations

from judgegraph.calibration.profile import Profile


def with_grounding(profile: Profile, grounding: str, profile_id: str | None = None) -> Profile:
    """`profile` with its faithfulness section grounding by `grounding` ("words" / "meaning"),
    everything else kept; under `profile_id` when given."""
    section = profile.section("faithfulness")
    parameters = section.parameters.model_copy(update={"grounding": grounding})
    update = {"faithfulness": section.model_copy(update={"parameters": parameters})}
    if profile_id is not None:
        update["id"] = profile_id
    return profile.model_copy(update=update)
