"""RAGAS's side: its current metric collection with its defaults, under the peers' venv.

    /work/peers-venv/bin/python -m benchmarks.peers.ragas_side --items ... --scores ... --proxy-url URL --model NAME

RAGAS 0.4's documented way (`ragas.metrics.collections`; the classes under `ragas.metrics`
are deprecated there): `llm_factory(model, client=AsyncOpenAI(base_url=...))`, which drives
the server through Instructor in JSON mode (`response_format: {"type": "json_object"}` and
the schema in the system message, which llama.cpp's server accepts), and
`embedding_factory("openai", client=...)`, pointed at the proxy's `/v1/embeddings` (the
packaged e5 embedder judgegraph uses). Every metric keeps its defaults (temperature 0.01,
max_tokens 1024, AnswerRelevancy's strictness 3).

Which RAGAS metric stands for which of judgegraph's (`METRIC_NAMES`):
faithfulness -> Faithfulness (statements from the answer, one NLI verdict list over them);
answer_relevance -> AnswerRelevancy (3 questions generated from the answer, cosine to the
question by embedding); context_relevance -> ContextRelevance (NVIDIA's two-judge 0-2
rating of the contexts against the question; needs no reference, so it runs on MS MARCO);
semantic_similarity -> SemanticSimilarity (cosine of answer and reference, no LLM call).

What stopped it, and what this side does about it (never a change in site-packages):
- ragas 0.4.3 imports `langchain_community.chat_models.vertexai`, gone from
  langchain-community 0.4.2: `requirements.txt` pins langchain-community 0.4.1;
- telemetry: `RAGAS_DO_NOT_TRACK=true` (set by `run`);
- `SemanticSimilarity.ascore` (async) calls the synchronous `embed_text`, which, on the async
  OpenAI client every other metric uses, runs the request on a second event loop; the
  client's connection pool, bound to the first loop, then fails ("bound to a different event
  loop", "Event loop is closed"), the OpenAI SDK retries, and the next chat request can reach
  the server twice (seen with `tests.support.peer_judge`: Faithfulness's first call sent
  twice after a similarity). The similarity metric gets its embeddings on a synchronous
  OpenAI client of its own; the other metrics keep the async one.
"""

from __future__ import annotations

import asyncio
import os
import sys

from benchmarks.peers.records import Metric, PeerItem
from benchmarks.peers.worker import chosen_metrics, read_items, run_side, set_session, worker_parser

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

METRIC_NAMES: dict[str, str] = {
    "faithfulness": "Faithfulness",
    "answer_relevance": "AnswerRelevancy",
    "context_relevance": "ContextRelevance",
    "semantic_similarity": "SemanticSimilarity",
}
EMBEDDING_MODEL = "intfloat/multilingual-e5-small"
"""Only a name for the proxy, which serves its packaged embedder whatever the name."""


def build_metrics(proxy_url: str, model: str) -> dict[str, object]:
    from openai import AsyncOpenAI, OpenAI
    from ragas.embeddings.base import embedding_factory
    from ragas.llms.base import llm_factory
    from ragas.metrics.collections import AnswerRelevancy, ContextRelevance, Faithfulness, SemanticSimilarity

    key = os.environ.get("OPENAI_API_KEY") or "sk-local-judge"
    client = AsyncOpenAI(base_url=proxy_url, api_key=key)
    llm = llm_factory(model, client=client)
    embeddings = embedding_factory("openai", model=EMBEDDING_MODEL, client=client)
    # SemanticSimilarity.ascore calls the synchronous embed_text: on an async client that runs
    # on a second event loop and breaks the shared client's connections (module doc).
    sync_embeddings = embedding_factory("openai", model=EMBEDDING_MODEL, client=OpenAI(base_url=proxy_url, api_key=key))
    return {
        "faithfulness": Faithfulness(llm=llm),
        "answer_relevance": AnswerRelevancy(llm=llm, embeddings=embeddings),
        "context_relevance": ContextRelevance(llm=llm),
        "semantic_similarity": SemanticSimilarity(embeddings=sync_embeddings),
    }


async def ascore(metrics: dict[str, object], item: PeerItem, metric: Metric) -> object:
    contexts = [item["context"]]
    scorer = metrics[metric]
    if metric == "faithfulness":
        result = await scorer.ascore(user_input=item["question"], response=item["answer"], retrieved_contexts=contexts)
    elif metric == "answer_relevance":
        result = await scorer.ascore(user_input=item["question"], response=item["answer"])
    elif metric == "context_relevance":
        result = await scorer.ascore(user_input=item["question"], retrieved_contexts=contexts)
    else:
        if not item["reference"]:
            raise ValueError("no reference to compare with")
        result = await scorer.ascore(reference=item["reference"], response=item["answer"])
    return result.value


def main(argv: list[str] | None = None) -> int:
    args = worker_parser("python -m benchmarks.peers.ragas_side").parse_args(argv)
    set_session(args.proxy_url, {"item": "(setup)", "metric": None, "attempt": "setup-ragas"})
    metrics = build_metrics(args.proxy_url, args.model)
    loop = asyncio.new_event_loop()

    def score(item: PeerItem, metric: Metric) -> object:
        return loop.run_until_complete(ascore(metrics, item, metric))

    try:
        run_side("ragas", read_items(args.items), chosen_metrics(args.metrics), score, args.scores, args.proxy_url,
                 METRIC_NAMES, show_tracebacks=args.traceback)
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
