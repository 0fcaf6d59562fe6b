"""Grounding rules side by side on judged items, with no judge call; and re-grounded records.

    python -m benchmarks.grounding_variants LABELS JUDGED [--profile default] [--by-language]
    python -m benchmarks.grounding_variants LABELS JUDGED --write REGROUNDED

Why: the judge's signals (its label probabilities, its own answer) do not depend on how code
grounds a claim, so items judged once (`benchmarks.profile_report` or `judgegraph calibrate`,
every signal recorded) serve every grounding rule: each recorded claim is grounded again from
the item's own text (question, context, language; the claim's closest line found again with
the packaged embedder) and the item scored again by the same decision and seed rules
(`fitting.recompute`). The rules compared, on the same replies:

- `none`: grounding 1 (the judge alone);
- `exact`: the share of the claim's new content words found as written (the rule before);
- `stems`: found as written, by stem, as compound parts or by number value (the lemma share);
- `stems+meaning`: the rule that ships (`nodes.claims.code_checks.ground_claim`): the words not
  found, names and numbers excepted, count by the claim's similarity to its closest line.

`--write` writes JUDGED again with every claim's grounding signals recomputed by the rule that
ships, so `judgegraph calibrate --judged` refits on them without judging anything.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from judgegraph.stats import auroc, balanced_accuracy, bootstrap_interval

from benchmarks.profile_report import profile_named

THRESHOLD = 0.5


def _old_exact(claim: str, question: str, context_text: str, language: str | None) -> float:
    """The rule before stems and meaning: the share of new content words found as written."""
    from judgegraph.text.tokens import content_words

    given = set(content_words(question, language))
    novel = [w for w in dict.fromkeys(content_words(claim, language)) if w not in given]
    if not novel:
        return 1.0
    available = set(content_words(context_text, language))
    return sum(w in available for w in novel) / len(novel)


def regrounded_claims(record: dict, embedder) -> list[dict]:
    """The record's claims with `variants` (grounding under each rule) and the shipped rule's
    signals recomputed from the item's text."""
    from judgegraph.nodes.claims.evidence import select_evidence
    from judgegraph.nodes.claims.code_checks import ground_claim
    from judgegraph.schemas.inputs import to_passages
    from judgegraph.text.languages import item_language

    details = record["details"]
    item = details.get("item") or {}
    question, answer = str(item.get("question", "")), str(item.get("answer", ""))
    passages = to_passages(item.get("context"))
    language = item_language(item.get("language"), question, answer).code
    context_text = " ".join(passages)
    out = []
    for claim in details.get("verdicts") or []:
        if not isinstance(claim, dict) or claim.get("error") is not None:
            out.append(claim)
            continue
        text = claim["claim"]
        meaning = select_evidence(text, question, passages, embedder).meaning if embedder else None
        grounded = ground_claim(text, question, context_text, language, meaning)
        variants = {"none": 1.0, "exact": round(_old_exact(text, question, context_text, language), 3),
                    "stems": grounded.lemma_share, "stems+meaning": grounded.value,
                    "stems+meaning, unnamed -> 0": 0.0 if grounded.unfound_names else grounded.value}
        out.append(claim | {"grounding": grounded.value, "lexical_share": grounded.lexical_share,
                            "lemma_share": grounded.lemma_share, "semantic": grounded.semantic,
                            "unfound_words": list(grounded.unfound), "variants": variants})
    return out


def figures(scores: list[float | None], good: list[bool]) -> dict:
    flagged = [s is None or s < THRESHOLD for s in scores]
    failing = [not g for g in good]

    def ba(sample):
        return balanced_accuracy([flagged[i] for i in sample], [failing[i] for i in sample])

    judged = [(s, g) for s, g in zip(scores, good) if s is not None]
    medians = {name: statistics.median(s for s, g in judged if g == want) if any(g == want for _, g in judged) else None
               for name, want in (("median_good", True), ("median_bad", False))}
    return {"n": len(scores), "ba": round(ba(range(len(scores))), 3),
            "ba_interval": [round(x, 2) for x in bootstrap_interval(ba, len(scores))],
            "auroc": None if not judged else round(auroc([s for s, _ in judged], [g for _, g in judged]) or 0.0, 3),
            **{k: None if v is None else round(v, 2) for k, v in medians.items()}}


def main(argv: list[str] | None = None) -> int:
    from judgegraph.batch.writer import iter_records
    from judgegraph.fitting.labels import read_labels
    from judgegraph.fitting.recompute import faithfulness_score, recorded_faithfulness
    from judgegraph.llm.embeddings import default_embedder

    parser = argparse.ArgumentParser(prog="python -m benchmarks.grounding_variants", description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("judged", type=Path)
    parser.add_argument("--profile", default="default", help="'default' or a profile JSON path")
    parser.add_argument("--by-language", action="store_true", help="figures per id prefix ('de:...')")
    parser.add_argument("--no-embeddings", action="store_true", help="ground without the meaning check")
    parser.add_argument("--write", type=Path, help="write the judged records re-grounded by the shipped rule here")
    args = parser.parse_args(argv)
    labels = {entry.id: entry.label for entry in read_labels(args.labels, "faithfulness").items}
    embedder = None if args.no_embeddings else default_embedder()
    records = {str(r.get("id")): r for _, r in iter_records(args.judged) if r is not None}
    regrounded: dict[str, dict] = {}
    for item_id, record in records.items():
        if isinstance(record.get("details"), dict):
            record = json.loads(json.dumps(record))
            record["details"]["verdicts"] = regrounded_claims(record, embedder)
            regrounded[item_id] = record
    if args.write:
        with args.write.open("w", encoding="utf-8") as handle:
            for record in regrounded.values():
                clean = json.loads(json.dumps(record))
                for claim in clean["details"]["verdicts"]:
                    claim.pop("variants", None)
                handle.write(json.dumps(clean, ensure_ascii=False) + "\n")
        print(f"wrote {len(regrounded)} re-grounded records to {args.write}", file=sys.stderr)
    parameters = profile_named(args.profile).faithfulness_parameters
    groups: dict[str, list[str]] = defaultdict(list)
    for item_id in regrounded:
        if item_id in labels:
            groups[item_id.split(":")[0] if args.by_language and ":" in item_id else "all"].append(item_id)
    out = []
    for group, ids in sorted(groups.items()):
        good = [labels[i] >= 0.5 for i in ids]
        for variant in ("none", "exact", "stems", "stems+meaning", "stems+meaning, unnamed -> 0"):
            scores = []
            for item_id in ids:
                record = json.loads(json.dumps(regrounded[item_id]))
                for claim in record["details"]["verdicts"]:
                    if "variants" in claim:
                        claim["grounding"] = claim["variants"][variant]
                recorded = recorded_faithfulness(record)
                scores.append(None if recorded is None else faithfulness_score(recorded, parameters))
            row = {"group": group, "variant": variant, **figures(scores, good)}
            out.append(row)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
