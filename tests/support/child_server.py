"""Waiting for a server the tests start as a child process (`langgraph dev`, Arize Phoenix):
a free port to give it, and its health URL polled until it answers 200, it exits, or time runs out.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_ok(url: str, process: subprocess.Popen, timeout_s: float, why_not: Callable[[str], str],
                  poll_s: float = 0.25) -> None:
    """Return once `url` answers 200; raise RuntimeError with `why_not(reason)` (the caller adds
    the server's log) when the process exits first or `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        if process.poll() is not None:
            raise RuntimeError(why_not(f"exited with {process.returncode} before {url} answered"))
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(why_not(f"{url} did not answer within {timeout_s:.0f} s"))
        time.sleep(poll_s)
