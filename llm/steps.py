"""One implementation of every LLM step, run by a sync or an async driver (sans-IO).

Why: the graph runs both ways. `invoke` (the CLI's single item, `evaluate`) must block on the
model; `ainvoke` (the batch, `aevaluate`, a LangGraph server) must await it, so that many calls
wait at once without a thread each. Writing each step twice, once with `invoke` and once with
`await ainvoke`, would let the copies drift. So a step is written once, as a generator: it
`yield`s the I/O it needs (a `Request`, e.g. `ModelCall`) and receives the reply at that point,
or has the request's exception raised there. Everything else in it is plain logic. `drive`
performs the requests one by one with blocking calls; `adrive` awaits them. Neither knows what
a step does, and a step never knows which of them runs it.

    def ask(model, messages) -> Step[str]:
        reply = yield ModelCall(model, messages)
        return reply.text

    drive(ask(model, messages))          # blocking
    await adrive(ask(model, messages))   # awaiting
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

R = TypeVar("R")


class Request(Protocol):
    """A piece of I/O a step asks its driver to perform, with a blocking and an async way."""

    def run(self) -> Any: ...

    async def arun(self) -> Any: ...


Step = Generator[Request, Any, R]
"""A step: yields requests, receives their results, returns its value."""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """Send `messages` to a LangChain chat model (or any Runnable) once, with `options` as the
    call's keyword arguments (`response_format`, `extra_body`, `logprobs`...).

    The options go to `invoke`/`ainvoke` directly, which is what `model.bind(**options)` would
    do at call time, without building a `RunnableBinding` per call and merging its configs on
    every call (its CPU cost per call: docs/benchmarks.md, "Figures behind the code's choices")."""

    model: Any
    messages: Sequence[Any]
    options: Mapping[str, Any] = field(default_factory=dict)

    def run(self) -> Any:
        return self.model.invoke(list(self.messages), **self.options)

    async def arun(self) -> Any:
        return await self.model.ainvoke(list(self.messages), **self.options)


@dataclass(frozen=True, slots=True)
class BlockingCall:
    """Work that blocks without being a model call: loading the embedding model, encoding on
    the CPU, resolving a default judge (reads certificates). The blocking driver runs it in
    place; the async one in a worker thread, so the event loop keeps serving other items (and
    LangGraph's server, which rejects blocking calls on its loop, accepts the graph)."""

    function: Callable[..., Any]
    args: tuple = ()

    def run(self) -> Any:
        return self.function(*self.args)

    async def arun(self) -> Any:
        return await asyncio.to_thread(self.function, *self.args)


def blocking(function: Callable[..., R], *args: Any) -> Step[R]:
    """`function(*args)` as a step: `value = yield from blocking(load, path)`."""
    return (yield BlockingCall(function, args))


def drive(step: Step[R]) -> R:
    """Run `step` to its end, performing each request with a blocking call."""
    try:
        request = next(step)
        while True:
            try:
                result = request.run()
            except Exception as error:  # noqa: BLE001 - handed to the step, which decides
                request = step.throw(error)
            else:
                request = step.send(result)
    except StopIteration as finished:
        return finished.value


async def adrive(step: Step[R]) -> R:
    """Run `step` to its end, awaiting each request (no thread per call)."""
    try:
        request = next(step)
        while True:
            try:
                result = await request.arun()
            except Exception as error:  # noqa: BLE001 - handed to the step, which decides
                request = step.throw(error)
            else:
                request = step.send(result)
    except StopIteration as finished:
        return finished.value
