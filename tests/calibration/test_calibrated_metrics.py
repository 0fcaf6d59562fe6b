"""The calibrated metrics are declared once (`calibration.calibrated_metrics.CALIBRATED`), and
what used to be kept in step by hand is a loop over that tuple: the profile model's section
fields, the hash check of a loaded profile, the signal hash's sources and the metrics
`calibrate` fits. The one name list left (`metric_names.CALIBRATED_METRICS`, for a parser that
must not load pydantic) is held equal to it here.
"""

from __future__ import annotations

import json

import pytest

from judgegraph.calibration.calibrated_metrics import CALIBRATED, calibrated_metric
from judgegraph.calibration.metric_names import CALIBRATED_METRICS
from judgegraph.calibration.profile import (
    SHIPPED_DIR,
    Profile,
    ProfileError,
    ProfileFields,
    load_profile,
    parse_profile,
)
from judgegraph.calibration.signal_hash import signal_hash
from judgegraph.fitting.fitted_metrics import FITTED_METRICS


def test_the_command_lines_names_are_the_declarations_keys_in_order():
    assert CALIBRATED_METRICS == tuple(metric.key for metric in CALIBRATED)


def test_the_profile_holds_one_optional_section_per_declaration_after_its_own_fields():
    sections = [name for name in Profile.model_fields if name not in ProfileFields.model_fields]
    assert sections == [metric.key for metric in CALIBRATED]
    for metric in CALIBRATED:
        field = Profile.model_fields[metric.key]
        assert field.default is None and field.annotation == (metric.section | None)


def test_every_shipped_profile_loads_and_dumps_to_what_it_loaded():
    for path in sorted(SHIPPED_DIR.glob("*.json")):
        profile = load_profile(path)
        again = parse_profile(json.loads(json.dumps(profile.model_dump(mode="json"))))
        assert again == profile


def test_the_hash_a_declaration_records_is_the_hash_of_its_sources():
    for metric in CALIBRATED:
        assert metric.signal_hash == signal_hash(metric.key, metric.signal_sources)
        assert FITTED_METRICS[metric.key].signal_hash == metric.signal_hash
    assert calibrated_metric("faithfulness") is CALIBRATED[0]
    with pytest.raises(KeyError, match="not a calibrated metric"):
        calibrated_metric("answer_tone")


@pytest.mark.parametrize("metric", CALIBRATED, ids=lambda m: m.key)
def test_a_stale_hash_in_any_declared_section_is_refused(metric):
    default = load_profile(SHIPPED_DIR / "default.json")
    section = default.section(metric.key).model_dump(mode="json") | {"signal_hash": "0" * 16}
    with pytest.raises(ProfileError, match=f"fitted on {metric.key} signals that have changed"):
        parse_profile({"id": "stale", metric.key: section})


def test_the_fitted_metrics_are_the_declarations_with_their_sections():
    assert list(FITTED_METRICS) == [metric.key for metric in CALIBRATED]
    for metric in CALIBRATED:
        assert FITTED_METRICS[metric.key].section is metric.section
