"""The text rules' shared cache computes a text once when threads ask for it together (a long
item's parallel nodes split the same megabyte of context at the same moment)."""

from __future__ import annotations

import threading

from judgegraph.text.memo import shared_cache


def test_concurrent_callers_with_the_same_text_compute_it_once():
    computed: list[str] = []
    started, release = threading.Event(), threading.Event()

    @shared_cache(maxsize=8)
    def split(text: str) -> tuple[str, ...]:
        computed.append(text)
        started.set()
        release.wait(timeout=10)
        return tuple(text.split())

    results: list[tuple[str, ...]] = []
    first = threading.Thread(target=lambda: results.append(split("a b c")))
    first.start()
    assert started.wait(timeout=10)
    others = [threading.Thread(target=lambda: results.append(split("a b c"))) for _ in range(3)]
    for thread in others:
        thread.start()
    release.set()
    for thread in (first, *others):
        thread.join(timeout=10)
    assert computed == ["a b c"]
    assert results == [("a", "b", "c")] * 4
    split.cache_clear()
    split("a b c")
    assert computed == ["a b c", "a b c"]
