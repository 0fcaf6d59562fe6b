"""A judged run re-decided with English claims grounded by words: the grounding arm of a bisect,
with no judge call.

    python -m benchmarks.words_grounding_arm RUN_ITEMS OTHER_ITEMS --data ROWS.jsonl

Why: grounding is code, not the judge. A run's per-item file (`benchmarks.agreement`'s
`items-<set>-<part>-graph.jsonl`) records each claim's label probabilities, number conflict and
the judge's own answer; re-grounding each claim by exact words (`nodes.claims.code_checks.
word_share`, from the row's own text) and deciding it again under the embedded profile
(`calibration.claim_decisions.decide`) gives the run as it would have been with only the
grounding rule changed. Compared with RUN (the grounding change) and with OTHER (the rest), it
splits a change into its two parts. A one-claim answer whose second reading was not asked in
RUN but would be under words is counted and printed (0 in issue #41's run: the arm is exact).
The arm's AUROC ranks items by their mean re-decided support, the score's rule for these
one-claim rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from judgegraph import stats
from judgegraph.calibration.claim_decisions import ClaimSignals, decide
from judgegraph.calibration.profile import shipped_profiles
from judgegraph.nodes.claims.code_checks import word_share
from judgegraph.stats import resampled
from judgegraph.text.languages import item_language

from benchmarks.regression import decision, read_outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.words_grounding_arm", description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the run to re-decide (per-item file)")
    parser.add_argument("other", type=Path, help="the run to compare the arm with (per-item file)")
    parser.add_argument("--data", type=Path, required=True, help="the set's rows (sample.jsonl)")
    parser.add_argument("--profile", default="embedded-halueval")
    args = parser.parse_args(argv)
    parameters = next(p for p in shipped_profiles() if p.id == args.profile).faithfulness_parameters
    rows = {row["id"]: row for row in map(json.loads, args.data.read_text(encoding="utf-8").splitlines())}
    run, other = read_outcomes(args.run), read_outcomes(args.other)
    ids = [i for i in run if i in other and run[i].score is not None and other[i].score is not None]
    unasked, arm, arm_scores = 0, [], []
    for item_id in ids:
        row, claims = rows[item_id], (run[item_id].detail or {}).get("claims") or []
        language = item_language(None, row["question"], row["answer"]).code
        supports = []
        for claim in claims:
            if claim.get("error"):
                continue
            share, _ = word_share(claim["claim"], row["question"], row["context"], language)
            signals = ClaimSignals(probabilities=claim.get("probabilities") or {}, grounding=round(share, 3),
                                   number_conflict=bool(claim.get("conflict")),
                                   own_answer_agreement=claim.get("own_answer_agreement"))
            p_supported = float(signals.probabilities.get("supported", 0.0))
            if (len(claims) == 1 and signals.own_answer_agreement is None and not signals.number_conflict
                    and p_supported * share < parameters.second_look_band_top):
                unasked += 1
            supports.append(decide(signals, parameters).support)
        arm.append(any(s < 0.5 for s in supports) if supports else run[item_id].score < 0.5)
        arm_scores.append(float(np.mean(supports)) if supports else 0.0)
    truth = [rows[i]["human"]["hallucination"] == "yes" for i in ids]
    before, after = [decision(run[i]) for i in ids], [decision(other[i]) for i in ids]
    print(f"{len(ids)} rows; second readings the arm would have asked: {unasked}")
    print(f"BA: run {stats.balanced_accuracy(before, truth):.3f}, arm {stats.balanced_accuracy(arm, truth):.3f}, "
          f"other {stats.balanced_accuracy(after, truth):.3f}; AUROC of the arm "
          f"{stats.auroc(arm_scores, [not t for t in truth]):.3f}")
    for label, a, b, sa, sb in (("grounding (run -> arm)", before, arm, None, None),
                                ("the rest (arm -> other)", arm, after, arm_scores, [other[i].score for i in ids])):
        interval = resampled.paired_interval_over(lambda d: resampled.balanced_accuracy_over(d, a, truth),
                                                  lambda d: resampled.balanced_accuracy_over(d, b, truth), len(ids))
        fixed = sum(x != y and y == t for x, y, t in zip(a, b, truth))
        broke = sum(x != y and y != t for x, y, t in zip(a, b, truth))
        line = f"{label}: BA {stats.balanced_accuracy(b, truth) - stats.balanced_accuracy(a, truth):+.3f} " \
               f"[{interval[0]:+.3f}, {interval[1]:+.3f}], fixed {fixed} / broke {broke}"
        if sa is not None:
            auroc = resampled.paired_interval_over(lambda d: resampled.auroc_over(d, sa, [not t for t in truth]),
                                                   lambda d: resampled.auroc_over(d, sb, [not t for t in truth]), len(ids))
            line += f"; AUROC [{auroc[0]:+.3f}, {auroc[1]:+.3f}]"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
