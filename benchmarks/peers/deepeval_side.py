"""DeepEval's side: its RAG metrics with their defaults, under the peers' venv.

    /work/peers-venv/bin/python -m benchmarks.peers.deepeval_side --items ... --scores ... --proxy-url URL --model NAME

DeepEval's documented way to a local OpenAI-compatible server is its `LocalModel`
(`deepeval set-local-model --model-name ... --base-url ...`): plain chat completions, no
`response_format`, JSON read out of the reply text and validated against the step's schema.
Every metric keeps its defaults: threshold 0.5, `include_reason=True` (one more call per
item that writes the reason), `async_mode=True`, eval mode `llm`.

Which DeepEval metric stands for which of judgegraph's (`METRIC_NAMES`):
faithfulness -> FaithfulnessMetric (truths from the context, claims from the answer, a
verdict list, a reason); answer_relevance -> AnswerRelevancyMetric (statements, verdicts,
reason); context_relevance -> ContextualRelevancyMetric (verdicts per context statement,
reason; ContextualPrecisionMetric needs an expected output, which MS MARCO rows lack).
DeepEval has no semantic-similarity metric: those pairs are written `not_computed`. None of
these metrics embeds anything, so DeepEval never calls the proxy's `/v1/embeddings`.

What stopped it, and what this side does about it (never a change in site-packages):
- telemetry and update checks: `DEEPEVAL_TELEMETRY_OPT_OUT=1`, `DEEPEVAL_UPDATE_WARNING_OPT_IN=NO`
  (set by `run`);
- DeepEval's own timeouts, sized for hosted APIs: each call is cut after 88.5 s (180 s per
  test case over 2 attempts) and the item fails with `RetryError[... TimeoutError]`. On the
  embedded judge on 2 cores one long prompt takes tens of seconds, and LocalModel sends no
  `max_tokens`, so a long reply runs on: `DEEPEVAL_DISABLE_TIMEOUTS=1` (the OpenAI SDK's own
  600 s timeout still applies, as for the other sides). Shown with `tests.support.peer_judge
  --latency 3` and `DEEPEVAL_PER_ATTEMPT_TIMEOUT_SECONDS_OVERRIDE=2`: the item fails
  without the switch and scores with it;
- `measure` draws a progress indicator on the terminal: `_show_indicator=False`.
"""

from __future__ import annotations

import os
import sys

from benchmarks.peers.records import Metric, PeerItem
from benchmarks.peers.worker import chosen_metrics, read_items, run_side, set_session, worker_parser

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_IN", "NO")
os.environ.setdefault("DEEPEVAL_DISABLE_TIMEOUTS", "1")

METRIC_NAMES: dict[str, str] = {
    "faithfulness": "FaithfulnessMetric",
    "answer_relevance": "AnswerRelevancyMetric",
    "context_relevance": "ContextualRelevancyMetric",
}


def build_model(proxy_url: str, model: str):
    from deepeval.models import LocalModel

    return LocalModel(model=model, base_url=proxy_url, api_key=os.environ.get("OPENAI_API_KEY") or "sk-local-judge")


def new_metric(metric: Metric, model):
    """A fresh metric per item: DeepEval metrics keep the last item's state on themselves."""
    from deepeval.metrics import AnswerRelevancyMetric, ContextualRelevancyMetric, FaithfulnessMetric

    kind = {"faithfulness": FaithfulnessMetric, "answer_relevance": AnswerRelevancyMetric,
            "context_relevance": ContextualRelevancyMetric}[metric]
    return kind(model=model)


def test_case(item: PeerItem):
    from deepeval.test_case import LLMTestCase

    return LLMTestCase(input=item["question"], actual_output=item["answer"], retrieval_context=[item["context"]],
                       expected_output=item["reference"] or None)


def main(argv: list[str] | None = None) -> int:
    args = worker_parser("python -m benchmarks.peers.deepeval_side").parse_args(argv)
    set_session(args.proxy_url, {"item": "(setup)", "metric": None, "attempt": "setup-deepeval"})
    model = build_model(args.proxy_url, args.model)

    def score(item: PeerItem, metric: Metric) -> object:
        scorer = new_metric(metric, model)
        scorer.measure(test_case(item), _show_indicator=False)
        if getattr(scorer, "error", None):
            raise RuntimeError(str(scorer.error))
        return scorer.score

    run_side("deepeval", read_items(args.items), chosen_metrics(args.metrics), score, args.scores, args.proxy_url,
             METRIC_NAMES, show_tracebacks=args.traceback)
    return 0


if __name__ == "__main__":
    sys.exit(main())
