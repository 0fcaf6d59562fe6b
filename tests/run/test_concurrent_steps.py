"""Steps run side by side inside one node (`run.concurrent_steps`), by both drivers: values in
the steps' order, at most `limit` at once, and a failing step raised as it is."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from judgegraph.llm.steps import BlockingCall, adrive, drive
from judgegraph.run.concurrent_steps import concurrency_limit, concurrently


class Meter:
    """Counts the steps inside their blocking call at once."""

    def __init__(self) -> None:
        self.lock, self.now, self.peak = threading.Lock(), 0, 0

    def work(self, value: int, pause_s: float) -> int:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(pause_s)
        with self.lock:
            self.now -= 1
        if value < 0:
            raise ValueError(f"step {value} failed")
        return value * 10


def step(meter: Meter, value: int, pause_s: float = 0.05):
    return (yield BlockingCall(meter.work, (value, pause_s)))


def _run(driver: str, outer):
    return drive(outer) if driver == "blocking" else asyncio.run(adrive(outer))


@pytest.mark.parametrize("driver", ["blocking", "awaiting"])
@pytest.mark.parametrize("limit", [1, 2, None])
def test_values_come_back_in_order_with_at_most_limit_at_once(driver, limit):
    meter = Meter()
    pauses = [0.4, 0.2, 0.3, 0.2]  # the first step finishes last
    values = _run(driver, concurrently([step(meter, n, pause) for n, pause in enumerate(pauses)], limit))
    assert values == [0, 10, 20, 30]
    assert meter.peak == (limit or len(pauses))


@pytest.mark.parametrize("driver", ["blocking", "awaiting"])
def test_a_failing_step_is_raised_as_it_is(driver):
    meter = Meter()
    with pytest.raises(ValueError, match="step -1 failed"):
        _run(driver, concurrently([step(meter, 1), step(meter, -1), step(meter, 2)], 3))


def test_outside_a_langgraph_run_there_is_no_limit():
    assert concurrency_limit() is None
