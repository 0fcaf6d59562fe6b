"""Headless Chromium driven over its DevTools protocol, for tests that look at real pages.

Why our own 80 lines: the tests need to load a file, run a few expressions, click and take a
screenshot. Debian's `chromium` plus the `websockets` client (already a dependency of
langsmith and langgraph-sdk) do that; selenium or playwright would add a driver or a browser
download. Launched as the brief requires: headless, no sandbox (root), no GPU, no network
services, a fresh empty profile each time.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--remote-debugging-port=0",
         "--remote-debugging-address=127.0.0.1"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with one page: `with Browser() as b: b.open(url); b.evaluate(js)`."""

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 60.0) -> None:
        self.width, self.height, self.timeout = width, height, timeout
        self.process: subprocess.Popen | None = None
        self.profile = Path(tempfile.mkdtemp(prefix="judgegraph-chromium-"))
        self._ids = itertools.count(1)
        self.console: list[str] = []

    def __enter__(self) -> "Browser":
        from websockets.sync.client import connect

        binary = find_chromium()
        if binary is None:
            raise BrowserError("chromium is not installed (apt-get install -y chromium)")
        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={self.width},{self.height}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise BrowserError("chromium did not start")
            time.sleep(0.1)
        port, path = port_file.read_text().splitlines()[:2]
        self._stack = contextlib.ExitStack()
        self.socket = self._stack.enter_context(
            connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=self.timeout))
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable"):
            self.call(domain)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if getattr(self, "socket", None) is not None:
            try:
                self._stack.close()
            except Exception:  # noqa: BLE001 - closing a dead socket
                pass
            self.socket = None
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)

    # protocol
    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout
        while True:
            reply = json.loads(self.socket.recv(timeout=max(0.1, deadline - time.monotonic())))
            if reply.get("method") == "Runtime.consoleAPICalled":
                self.console.append(" ".join(str(a.get("value", "")) for a in reply["params"].get("args", [])))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def call(self, method: str, params: dict | None = None) -> dict:
        return self._send(method, params, self.session)

    # page
    def open(self, url: str, ready: str = "document.readyState === 'complete'") -> None:
        self.call("Page.navigate", {"url": url})
        self.wait_for(ready)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} raised: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def press(self, key: str) -> None:
        """One key pressed and released, as a person types it: `"1"`, `"s"`, `"Enter"`."""
        special = {"Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""), "ArrowDown": ("ArrowDown", 40, ""),
                   "ArrowUp": ("ArrowUp", 38, "")}
        if key in special:
            code, virtual, text = special[key]
        else:
            code, virtual, text = (f"Key{key.upper()}" if key.isalpha() else f"Digit{key}"), ord(key.upper()), key
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": virtual}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": virtual})

    def wait_for(self, expression: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not self.evaluate(f"!!({expression})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression}")
            time.sleep(0.05)

    def screenshot(self, path: Path, *, max_height: int = 2400) -> tuple[int, int]:
        """A PNG of the page from the top, as tall as its content (up to `max_height`)."""
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))
        height = max(200, min(height, max_height))
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return self.width, height


if __name__ == "__main__":  # a quick manual check: python -m tests.support.browser file.html
    import sys

    with Browser() as browser:
        browser.open(Path(sys.argv[1]).resolve().as_uri())
        print(browser.evaluate("document.title"), os.getpid())
