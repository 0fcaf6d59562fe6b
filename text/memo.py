"""A cache for pure text functions that several threads may call with the same text at once.

Why not `functools.lru_cache` alone: it does not stop two threads from computing the same
missing entry side by side. A long item judged off the event loop runs its parallel nodes
(context relevance, answer relevance, the claim checks) in threads, and each asks for the
sentences and words of the same megabyte of context at the same moment: with `lru_cache` alone
the work is done once per node. Here a caller whose arguments are being computed waits for
that result instead.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

_STRIPES = 64
"""Locks per cached function; arguments hash to one of them, so calls with different texts
rarely wait for each other (and under the GIL, pure Python work gains nothing from running
side by side anyway)."""


def shared_cache(maxsize: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`lru_cache(maxsize)` whose concurrent callers with equal arguments compute once.
    Keeps `cache_clear` and `__wrapped__`; the cached functions must not call each other."""

    def decorate(function: Callable[..., R]) -> Callable[..., R]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        locks = [threading.Lock() for _ in range(_STRIPES)]

        @functools.wraps(function)
        def call(*args: Any) -> R:
            with locks[hash(args) % _STRIPES]:
                return cached(*args)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        call.cache_info = cached.cache_info  # type: ignore[attr-defined]
        return call

    return decorate
