"""Hostile calibration profiles for the fuzz soak: generators, and the invariant they must keep.

    python -m benchmarks.fuzz_shapes_profiles [--profiles 1000] [--seed 42]

`hostile_profile(rng)` returns (kind, profile text): a valid profile (the default's sections,
logistic support and recall models, a fit record) with one numeric field replaced by NaN, an
infinity, a huge or tiny number, a number just past its bound, a string, a bool or null, or the
whole file truncated, nested or not JSON. `check_profile(path)` loads it the way
`evaluate --calibration` does and says what broke the invariant (None when it held): the file
is refused with one `ProfileError` line, or it loads and every number in it is finite and within
the bounds `calibration.profile` documents. Run alone it writes `--profiles` files to a
temporary folder and prints the counts by kind, the refusals and the violations; exit status 0
when every profile kept the invariant. `benchmarks/fuzz_soak.py` can draw from the same
generators.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

NUMERIC_PATHS: tuple[tuple[Any, ...], ...] = (
    ("faithfulness", "parameters", "contradiction_at"),
    ("faithfulness", "parameters", "supported_at"),
    ("faithfulness", "parameters", "own_answer_agrees_at"),
    ("faithfulness", "parameters", "second_look_below"),
    ("faithfulness", "parameters", "support", "intercept"),
    ("faithfulness", "parameters", "support", "coefficients", "p_supported"),
    ("faithfulness", "parameters", "support", "coefficients", "grounding"),
    ("context_relevance", "parameters", "answer_in_context_value", "yes"),
    ("context_relevance", "parameters", "answer_in_context_value", "partly"),
    ("context_relevance", "parameters", "answer_in_context_value", "no"),
    ("context_relevance", "parameters", "recall", "intercept"),
    ("context_relevance", "parameters", "recall", "coefficients", "p_yes"),
    ("answer_relevance", "parameters", "directness_factor", "direct"),
    ("answer_relevance", "parameters", "directness_factor", "partial"),
    ("answer_relevance", "parameters", "directness_factor", "evasive"),
    ("answer_relevance", "fit", "n"),
    ("answer_relevance", "fit", "folds"),
    ("answer_relevance", "fit", "figures", "auroc", "after", "value"),
    ("answer_relevance", "fit", "learning_curve", 0, "value"),
)
"""Every numeric field of every profile section."""

VALUES: dict[str, Any] = {
    "nan": math.nan, "inf": math.inf, "-inf": -math.inf, "1e308": 1e308, "-1e308": -1e308,
    "1e-320": 1e-320, "just-over-one": 1.0000001, "just-below-zero": -1e-9, "101": 101.0, "-101": -101.0,
    "huge-int": 10**30, "string": "0.5", "bool": True, "null": None, "list": [0.5],
}
WHOLE_FILE_KINDS = ("truncated", "not-json", "deep", "array", "empty")


def valid_profile() -> dict:
    """A profile that loads, with every kind of numeric field present."""
    from judgegraph.calibration.profile import default_profile

    data = default_profile().model_dump(mode="json")
    data["id"] = "fuzzed"
    data["faithfulness"]["parameters"]["support"] = {
        "kind": "logistic", "intercept": -1.0, "coefficients": {"p_supported": 2.0, "grounding": 1.0}}
    data["faithfulness"]["parameters"]["second_look_below"] = 0.8
    data["context_relevance"]["parameters"]["recall"] = {
        "kind": "logistic", "intercept": -0.5, "coefficients": {"p_yes": 3.0}}
    data["answer_relevance"]["fit"] = {"data_sha256": "0" * 64, "n": 40, "label_kind": "binary", "folds": 5,
                                      "figures": {"auroc": {"after": {"value": 0.7, "interval": [0.6, 0.8]}}},
                                      "learning_curve": [{"labels": 25, "value": 0.6}]}
    return data


def hostile_profile(rng: random.Random) -> tuple[str, str]:
    """(kind, the profile file's text) for one hostile profile."""
    data = valid_profile()
    if rng.random() < 0.1:
        kind = rng.choice(WHOLE_FILE_KINDS)
        text = json.dumps(data)
        return kind, {"truncated": text[: rng.randrange(1, len(text))], "not-json": "profile: {",
                      "deep": "[" * 100_000 + "]" * 100_000, "array": "[]", "empty": ""}[kind]
    path = rng.choice(NUMERIC_PATHS)
    name = rng.choice(list(VALUES))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = VALUES[name]
    return f"{name}@{path[-1]}", json.dumps(data)  # json.dumps writes NaN / Infinity, which Python reads back


def _numbers(value: Any, where: str = "profile"):
    from judgegraph.calibration.profile import numbers_in

    return numbers_in(value, where)


def check_profile(path: Path) -> tuple[str, str | None]:
    """("refused" or "loaded", what broke the invariant or None)."""
    from judgegraph.calibration.profile import FIGURE_BOUND, ProfileError, load_profile

    try:
        profile = load_profile(path)
    except ProfileError as error:
        text = str(error)
        return "refused", None if text and "\n" not in text else f"refusal not one line: {text!r}"
    except Exception as error:  # noqa: BLE001 - anything else is the violation this soak looks for
        return "crashed", f"{type(error).__name__}: {str(error)[:200]}"
    for where, number in _numbers(profile.model_dump(mode="python")):
        if not math.isfinite(number) or abs(number) > FIGURE_BOUND:
            return "loaded", f"{where} = {number!r} loaded"
    return "loaded", None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    kinds: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    violations: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fuzz-profiles-") as folder:
        for index in range(args.profiles):
            kind, text = hostile_profile(rng)
            path = Path(folder) / f"profile-{index}.json"
            path.write_text(text, encoding="utf-8")
            outcome, problem = check_profile(path)
            kinds[kind.split("@")[0]] += 1
            outcomes[outcome] += 1
            if problem is not None:
                violations.append(f"{kind}: {problem}")
    print(f"profiles: {args.profiles:,}; by value: {dict(kinds.most_common())}")
    print(f"outcomes: {dict(outcomes)}; violations: {len(violations)}")
    for line in violations[:20]:
        print(f"  {line}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
