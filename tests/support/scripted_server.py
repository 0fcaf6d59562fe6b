"""A scripted judge behind a real OpenAI-compatible server on 127.0.0.1, for CLI and batch tests.

Why: the batch is driven the way users drive it (`--base-url ... --model ...`), so tests go
through the real model resolution and HTTP transports (aiohttp in the local loop, httpx in Ray
actors) and work the same in a child process or on a Ray worker, with no test hook in the
package. The judge's scripts (`fakes.judge(...)`) answer the requests and record them as
calls; `endpoint.judge` may be replaced mid-test.

    with ScriptedEndpoint(fakes.judge(check_claim=fakes.verdict("supported", 1))) as endpoint:
        cli.main(["evaluate", "items.jsonl", "--out", "out.jsonl", *endpoint.flags])
        endpoint.judge.calls
"""

from __future__ import annotations

from typing import Any

from tests.support.fakes import ScriptedJudge
from tests.support.fault_server import FaultServer

MODEL_NAME = "scripted-judge"


class ScriptedEndpoint:
    """`judge` served by a `FaultServer` (fault options pass through, e.g. `script=["429"]`)."""

    def __init__(self, judge: ScriptedJudge, **server_options: Any) -> None:
        self.judge = judge
        self.server = FaultServer(reply=self._reply, **server_options)

    def _reply(self, step: str, schema: dict, body: dict) -> Any:
        return self.judge.http_reply(step, schema, body)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def flags(self) -> list[str]:
        """The CLI flags that reach this judge."""
        return ["--base-url", self.base_url, "--model", MODEL_NAME]

    def __enter__(self) -> "ScriptedEndpoint":
        self.server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.stop()
