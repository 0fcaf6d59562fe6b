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

`RunnableCallable` is what LangGraph itself wraps every node function in (and what its own
`ToolNode` builds with a sync and an async function); it lives in `langgraph._internal`, so the
import is tied to the `langgraph<2` pin and checked by every graph test.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from langgraph._internal._runnable import RunnableCallable

from ..llm.steps import adrive, drive


def as_node(action: Callable[..., Any], name: str) -> RunnableCallable:
    """A Runnable with a sync and an async path for `action` (a step or a plain function)."""
    if inspect.isgeneratorfunction(action):

        @functools.wraps(action)
        def run(*args: Any, **kwargs: Any) -> Any:
            return drive(action(*args, **kwargs))

        @functools.wraps(action)
        async def arun(*args: Any, **kwargs: Any) -> Any:
            return await adrive(action(*args, **kwargs))

        return RunnableCallable(run, arun, name=name, trace=False)

    @functools.wraps(action)
    async def inline(*args: Any, **kwargs: Any) -> Any:
        return action(*args, **kwargs)

    return RunnableCallable(action, inline, name=name, trace=False)


def as_route(route: Callable[..., Any]) -> RunnableCallable:
    """A conditional edge's function with an async path that calls it on the event loop; traced
    as LangGraph traces a routing function (a child run under the node, same name)."""

    @functools.wraps(route)
    async def inline(*args: Any, **kwargs: Any) -> Any:
        return route(*args, **kwargs)

    return RunnableCallable(route, inline, name=route.__name__, trace=True)


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
