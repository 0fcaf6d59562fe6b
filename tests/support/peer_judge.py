"""A fake OpenAI-compatible judge that also answers RAGAS's and DeepEval's prompts, for the
side-by-side's smoke runs (`benchmarks.peers`).

Why: the peers send requests of other shapes than judgegraph's. RAGAS 0.4 drives the server
through Instructor in JSON mode: `response_format: {"type": "json_object"}` with no schema in
it, the pydantic schema written into the system message after "json_schema:". DeepEval's
`LocalModel` sends no `response_format` at all and reads JSON out of the reply text, the
keys named only in its prompt templates. `FaultServer`'s default reply (`{"reply": "ok"}`
for a request without a schema) fails both, so a smoke run would show only failures.

This reply function keeps `demo_judge`'s replies for judgegraph's steps (named by their
schema), builds an instance of the schema Instructor wrote into the system message (a few
RAGAS schemas get meaningful values), and answers DeepEval's templates by their opening
words. Like `demo_judge`, it is no judge: replies are valid in shape, not in judgment.

    python -m tests.support.peer_judge --port 8012    # serves http://127.0.0.1:8012/v1 until Ctrl-C
    python -m tests.support.peer_judge --latency 5    # every reply 5 s late, as a slow local judge

`--latency` is how a smoke run meets a client-side timeout that the real local judge would
trip (DeepEval's per-attempt timeout, `benchmarks.peers.deepeval_side`) in seconds, not minutes.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from tests.support import demo_judge
from tests.support.fault_server import instance_for, serve_until_interrupted

INSTRUCTOR_MARKER = "json_schema:"

RAGAS_REPLIES: dict[str, dict] = {
    "StatementGeneratorOutput": {"statements": ["The answer states one fact."]},
    "AnswerRelevanceOutput": {"question": "What does the answer state?", "noncommittal": 0},
    "ContextRelevanceOutput": {"rating": 2},
}
"""RAGAS schemas (by title) whose minimal instance would be degenerate (an "x" statement)."""

DEEPEVAL_REPLIES: tuple[tuple[str, dict], ...] = (
    ("please extract a comprehensive list of FACTUAL", {"claims": ["The answer states one fact."]}),
    ("please generate a comprehensive list of", {"truths": ["The context states one fact."]}),
    ("Based on the given claims", {"verdicts": [{"verdict": "yes"}]}),
    ("Given the text, breakdown and generate a list of statements", {"statements": ["The answer states one fact."]}),
    ("For the provided list of statements", {"verdicts": [{"verdict": "yes"}]}),
    ("Based on the input and", {"verdicts": [{"statement": "The context states one fact.", "verdict": "yes"}]}),
    ("Below is a list of Contradictions", {"reason": "No contradiction (fake judge)."}),
    ("Given the answer relevancy score", {"reason": "All statements are relevant (fake judge)."}),
    ("Based on the given input, reasons for why", {"reason": "The context is relevant (fake judge)."}),
)
"""(words a DeepEval template opens with, a valid reply to it), checked in order."""


def instructor_schema(body: dict) -> dict | None:
    """The JSON schema Instructor's JSON mode wrote into the system message, if any."""
    for message in body.get("messages", []):
        content = str(message.get("content", ""))
        if message.get("role") == "system" and INSTRUCTOR_MARKER in content:
            text = content.split(INSTRUCTOR_MARKER, 1)[1].lstrip()
            try:
                schema, _ = json.JSONDecoder().raw_decode(text)
            except json.JSONDecodeError:
                return None
            return schema if isinstance(schema, dict) else None
    return None


def deepeval_reply(prompt: str) -> dict | None:
    opening = prompt[:400]
    for words, reply in DEEPEVAL_REPLIES:
        if words in opening:
            return reply
    return None


def reply(step: str, schema: dict, body: dict) -> Any:
    if step:
        return demo_judge.reply(step, schema, body)
    found = instructor_schema(body)
    if found is not None:
        return RAGAS_REPLIES.get(str(found.get("title")), None) or instance_for(found)
    prompt = str((body.get("messages") or [{}])[-1].get("content", ""))
    return deepeval_reply(prompt) or {"reply": "ok"}


def late_reply(seconds: float):
    """`reply`, `seconds` late (the server answers each request on its own thread)."""
    def late(step: str, schema: dict, body: dict) -> Any:
        time.sleep(seconds)
        return reply(step, schema, body)

    return late


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="a fake OpenAI-compatible judge for judgegraph, RAGAS and DeepEval")
    parser.add_argument("--port", type=int, default=0, help="default: any free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every reply (default 0)")
    args = parser.parse_args(argv)
    return serve_until_interrupted(late_reply(args.latency) if args.latency else reply, args.port, "peer judge")


if __name__ == "__main__":
    sys.exit(main())
