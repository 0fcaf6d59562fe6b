"""Made-up data for trying `judgegraph estimate`: no judge and no person involved.

    python examples/synthetic_labels.py OUT_DIR

Writes OUT_DIR/results.jsonl (2,000 rag records whose faithfulness "judge score" agrees with a
hidden made-up label 85 % of the time) and OUT_DIR/labels.jsonl (a uniform design line and the
hidden labels of 100 items drawn at random), the shapes `judgegraph evaluate --out` and
`judgegraph label` write. The true share of faithful answers is printed for comparison.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path


def main(folder: Path, items: int = 2000, labelled: int = 100, seed: int = 7) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    truth = []
    with (folder / "results.jsonl").open("w", encoding="utf-8") as out:
        for index in range(items):
            label = int(rng.random() < 0.62)
            agrees = rng.random() < 0.85
            score = round(min(1.0, max(0.0, (0.85 if (label == 1) == agrees else 0.25) + rng.gauss(0, 0.1))), 2)
            result = {"faithfulness": score, "faithfulness_explanation": "made up", "context_relevance": None,
                      "context_relevance_explanation": None, "answer_relevance": None,
                      "answer_relevance_explanation": None, "semantic_similarity": None,
                      "semantic_similarity_explanation": None, "evaluation_status": "success", "reason": None,
                      "error": None}
            out.write(json.dumps({"id": f"q{index}", "line": index + 1, "rubric": "rag", "result": result}) + "\n")
            truth.append(label)
    order = rng.sample(range(items), labelled)
    design = {"kind": "uniform", "seed": seed, "results": "results.jsonl", "n_items": items,
              "order": "seeded permutation", "metrics": ["faithfulness"]}
    lines = [{"design": design}] + [{"id": f"q{i}", "human": truth[i], "position": k} for k, i in enumerate(order)]
    (folder / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    print(f"true share of faithful answers (all {items:,} hidden labels): {sum(truth) / items:.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "synthetic"))
