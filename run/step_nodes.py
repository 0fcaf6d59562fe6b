"""Turning node functions into LangGraph nodes that run natively both sync and async.

LangGraph runs a plain function node under `ainvoke` in the event loop's thread pool, one
thread per node run. For nodes that wait on the model that caps throughput at the pool's size
(6 threads on 2 cores), and for the cheap ones it is a thread hop for nothing. Here:

- a node written as a step (a generator, see `llm.steps`) gets a sync function that drives it
  with blocking model calls and an async one that awaits them, from the one implementation;
- a plain function node (validation, finalize: pure Python, no I/O) keeps its sync function
  and is called directly on the event loop under `ainvoke`;
- a conditional edge's function (`as_route`) likewise: LangGraph would run a plain routing
  function in the thread pool, a thread hop (and a wait for the GIL) per item for a choice
  made in microseconds.

`input_schema_of` keeps what LangGraph would infer from the function's first parameter (a
`Send` payload type such as `ClaimTask`), since LangGraph cannot see through the wrapper.

A node is a `StepNode`, a LangChain `Runnable` with both paths, which reads the run's
`Runtime` with LangGraph's public `get_runtime` (LangGraph runs a node's runnable inside the
run's config, sync and async) and emits no callback run of its own, as LangGraph's own node
wrapper does for a node (the node's run is LangGraph's). A route is a `RunnableLambda` with an
async twin: traced as LangGraph traces a routing function (a child run under the node).
Only public LangChain and LangGraph names are used, so no upgrade within `langgraph<2` can
move them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.runtime import get_runtime

from ..llm.steps import adrive, drive


class StepNode(Runnable):
    """A node's function with a sync and an async path (see the module docstring)."""

    def __init__(self, run: Callable[..., Any], arun: Callable[..., Any], name: str, *, takes_runtime: bool):
        self.run, self.arun, self.name, self.takes_runtime = run, arun, name, takes_runtime

    def _arguments(self, state: Any) -> tuple[Any, ...]:
        return (state, get_runtime()) if self.takes_runtime else (state,)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self.run(*self._arguments(input))

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self.arun(*self._arguments(input))


def as_node(action: Callable[..., Any], name: str) -> StepNode:
    """A Runnable with a sync and an async path for `action` (a step or a plain function)."""
    takes_runtime = "runtime" in inspect.signature(action).parameters
    if inspect.isgeneratorfunction(action):

        @functools.wraps(action)
        def run(*args: Any) -> Any:
            return drive(action(*args))

        @functools.wraps(action)
        async def arun(*args: Any) -> Any:
            return await adrive(action(*args))

        return StepNode(run, arun, name, takes_runtime=takes_runtime)

    @functools.wraps(action)
    async def inline(*args: Any) -> Any:
        return action(*args)

    return StepNode(action, inline, name, takes_runtime=takes_runtime)


def as_route(route: Callable[..., Any]) -> RunnableLambda:
    """A conditional edge's function with an async path that calls it on the event loop; traced
    as LangGraph traces a routing function (a child run under the node, same name)."""

    @functools.wraps(route)
    async def inline(state: Any) -> Any:
        return route(state)

    return RunnableLambda(route, afunc=inline, name=route.__name__)


def input_schema_of(action: Callable[..., Any]) -> type | None:
    """The node's input type as LangGraph infers it for a function: its first parameter's
    annotation when that is a typed class (a TypedDict payload), else None (the state)."""
    try:
        hints = get_type_hints(action)
        first = next(iter(inspect.signature(action).parameters))
    except (NameError, TypeError, StopIteration):
        return None
    hint = hints.get(first)
    try:
        return hint if isinstance(hint, type) and get_type_hints(hint) else None
    except TypeError:
        return None
