"""Several steps run side by side inside one node, without a LangGraph superstep between them.

Why: a node's `Send` tasks start only at the next superstep, once every task of the current one
has finished. An item's claim checks fanned out that way waited for the slowest of their
sibling steps (the relevance judgments) and for every concurrent item's CPU in that superstep
before the first claim was checked. Run as steps under the claims node instead, they start as
soon as the claims are known (docs/architecture.md, "The claims node").

`concurrently(steps, limit)` is itself a step: the awaiting driver runs the steps as asyncio
tasks (at most `limit` at once; the first to fail is raised as it is and the others are
cancelled, as LangGraph cancels a superstep's tasks when one raises), the blocking driver
runs them in LangChain's `ContextThreadPoolExecutor` (the run's config and LangGraph's
runtime travel with each thread, as they do to a sync node LangGraph runs in its own pool),
or one after another in place when the limit is 1. The results come back in the steps' order, whatever order they
finished in.

`concurrency_limit()` reads the run's `max_concurrency` (LangGraph's config key): the node
keeps the meaning LangGraph gives it for tasks, at most that many of the node's steps at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables.config import ContextThreadPoolExecutor
from langgraph.config import get_config

from ..llm.steps import Step, adrive, drive


@dataclass(frozen=True, slots=True)
class Concurrently:
    """A request for the driver: run `steps` side by side, at most `limit` at once (None: no
    limit beyond the thread pool's default size under the blocking driver)."""

    steps: Sequence[Step[Any]]
    limit: int | None = None

    def run(self) -> list[Any]:
        if self.limit == 1 or len(self.steps) <= 1:
            return [drive(step) for step in self.steps]
        with ContextThreadPoolExecutor(max_workers=self.limit) as pool:
            return list(pool.map(drive, self.steps))

    async def arun(self) -> list[Any]:
        gate = asyncio.Semaphore(self.limit) if self.limit else None

        async def one(step: Step[Any]) -> Any:
            if gate is None:
                return await adrive(step)
            async with gate:
                return await adrive(step)

        loop = asyncio.get_running_loop()
        tasks = [_started(loop, one(step)) for step in self.steps]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:  # the first failure is raised as it is, the others' work stops
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise


def _started(loop: asyncio.AbstractEventLoop, coroutine: Any) -> asyncio.Task:
    """A task for `coroutine`, started now where Python can (3.12's eager tasks, as LangGraph
    starts its own): the check runs up to its model call before the wake-ups already queued on
    the loop (the sibling judgments' replies) are served; on 3.11 it waits its turn."""
    eager = getattr(asyncio, "eager_task_factory", None)
    return eager(loop, coroutine) if eager is not None else loop.create_task(coroutine)


def concurrently(steps: Sequence[Step[Any]], limit: int | None = None) -> Step[list[Any]]:
    """`steps`' values in order, the steps run side by side: `values = yield from concurrently(...)`."""
    return (yield Concurrently(list(steps), limit))


def concurrency_limit() -> int | None:
    """The run's `max_concurrency` (None: not set, or not inside a LangGraph run)."""
    try:
        limit = get_config().get("max_concurrency")
    except RuntimeError:
        return None
    return limit or None
