"""A fake chat model that counts its calls in flight, for the checks that nothing else (an
embedding) runs while the model is answering."""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar


class CountsCallsInFlight:
    """Mix into a fake `BaseChatModel` (before it in the bases): `in_flight()` is the number of
    `_generate` calls running now; each waits `pause_s` before replying, so a concurrent call
    would overlap it. The counter lives in `__dict__` because the models are pydantic objects."""

    pause_s: ClassVar[float] = 0.0

    def in_flight(self) -> int:
        return self.__dict__.setdefault("_flight", [0])[0]

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        flight = self.__dict__.setdefault("_flight", [0])
        lock = self.__dict__.setdefault("_flight_lock", threading.Lock())
        with lock:
            flight[0] += 1
        try:
            if self.pause_s:
                time.sleep(self.pause_s)
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)  # type: ignore[misc]
        finally:
            with lock:
                flight[0] -= 1
