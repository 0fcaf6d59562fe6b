"""Run judgegraph's rag evaluator inside LangSmith's `evaluate()`, offline, on two in-memory examples.

    python examples/langsmith_evaluate.py                                  # the default judge
    python examples/langsmith_evaluate.py --base-url http://127.0.0.1:8011/v1 --model demo

`upload_results=False` keeps every result on this machine; no LangSmith API key is needed, and
without one nothing tries the network (`local_client()`: no background uploader, no `GET /info`;
with a key it is None, langsmith's own client). With a dataset on LangSmith instead, pass
`data="my-dataset"` and drop `upload_results`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import uuid

from langsmith import evaluate
from langsmith.schemas import Example

from judgegraph.evaluators import create_rag_evaluator
from judgegraph.evaluators.langsmith_offline import local_client

os.environ.setdefault("LANGSMITH_TRACING", "false")

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]
EXAMPLES = [
    ({"question": "Who founded Craigslist?"}, {"answer": "Craig Newmark"}),
    ({"question": "When did the documentary about Craigslist come out?"}, {"answer": "2005"}),
]


def rag_app(inputs: dict) -> dict:
    """The system under test (a stand-in): its answer and the context it retrieved."""
    answers = {"Who founded Craigslist?": "Craig Newmark founded Craigslist in 1995.",
               "When did the documentary about Craigslist come out?": "It came out in 2007."}
    return {"answer": answers[inputs["question"]], "context": CONTEXT}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="provider:name, 'local', or a model name at --base-url")
    parser.add_argument("--base-url", help="an OpenAI-compatible server")
    args = parser.parse_args()
    examples = [Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), created_at=dt.datetime.now(dt.timezone.utc),
                        inputs=inputs, outputs=outputs) for inputs, outputs in EXAMPLES]
    evaluator = create_rag_evaluator(model=args.model, base_url=args.base_url)
    results = evaluate(rag_app, data=examples, evaluators=[evaluator], upload_results=False, max_concurrency=0,
                       client=local_client())
    for row in results:
        print(row["example"].inputs["question"])
        for feedback in row["evaluation_results"]["results"]:
            score = "-" if feedback.score is None else f"{feedback.score:.2f}"
            print(f"  {feedback.key:20} {score:>5}  {feedback.metadata['status']:15} {feedback.comment}")


if __name__ == "__main__":
    main()
