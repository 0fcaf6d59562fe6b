"""Profiles the tests build from shipped ones: the same decisions with another grounding rule, or
another answer-relevance reply."""

from __future__ import annotations

from judgegraph.calibration.profile import Profile


def with_faithfulness(profile: Profile, profile_id: str | None, **parameters) -> Profile:
    """`profile` with these faithfulness parameters changed, everything else kept; under
    `profile_id` when given."""
    section = profile.section("faithfulness")
    update = {"faithfulness": section.model_copy(update={"parameters": section.parameters.model_copy(update=parameters)})}
    if profile_id is not None:
        update["id"] = profile_id
    return profile.model_copy(update=update)


def with_grounding(profile: Profile, grounding: str, profile_id: str | None = None) -> Profile:
    """`profile` with its faithfulness section grounding by `grounding` ("words" / "meaning"),
    everything else kept; under `profile_id` when given."""
    return with_faithfulness(profile, profile_id, grounding=grounding)


def with_answer_reply(profile: Profile, reply: str, answered_from: str | None = None,
                      profile_id: str | None = None) -> Profile:
    """`profile` with its answer-relevance section asking for `reply` ("reasoned" / "labels")
    and, when given, scoring `answered_from` ("labels" / "probabilities"); the rest kept."""
    section = profile.section("answer_relevance")
    update = {"reply": reply} | ({"answered_from": answered_from} if answered_from else {})
    parameters = section.parameters.model_copy(update=update)
    changed = {"answer_relevance": section.model_copy(update={"parameters": parameters})}
    if profile_id is not None:
        changed["id"] = profile_id
    return profile.model_copy(update=changed)


def with_support(profile: Profile, kind: str, profile_id: str | None = None) -> Profile:
    """`profile` with its faithfulness support rule `kind` ("verdict": the judge's P(supported)
    as it is; "product": P(supported) x grounding without the names rule, as the embedded judge's
    profile decides), the rest kept."""
    from judgegraph.calibration.sections import ProductSupport, VerdictSupport

    rule = {"verdict": VerdictSupport(), "product": ProductSupport()}[kind]
    names = {"names_must_be_stated": False} if kind == "product" else {}
    return with_faithfulness(profile, profile_id or f"{profile.id}-{kind}", support=rule, **names)


def with_second_look(profile: Profile, below: float | None = None, profile_id: str | None = None) -> Profile:
    """`profile` with the second reading on (the judge answers a one-claim answer's question
    itself when the check did not support it): below `supported_at` (None) or `below`. The
    embedded judge's profile reads it; the default does not (`second_look_below` 0)."""
    return with_faithfulness(profile, profile_id or f"{profile.id}-second-look", second_look_below=below)


def with_names_rule(profile: Profile, profile_id: str | None = None) -> Profile:
    """`profile` with the names rule on (`names_must_be_stated`), the rest kept."""
    return with_faithfulness(profile, profile_id or f"{profile.id}-names", names_must_be_stated=True)
