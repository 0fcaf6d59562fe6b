"""An HTTP server on 127.0.0.1 that answers on its own thread, started and stopped as a
context manager: the lifecycle of the test suite's fake servers, written once.

Why a base: a fake judge server is a request handler plus state; binding a free port, serving
on a daemon thread, the `/v1` base URL and a clean shutdown are the same for every one of them.
(`benchmarks.peers.proxy` has the same lifecycle of its own: benchmark code does not import
`tests/`, and `tests/support` does not import benchmarks, which already build on it.)
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that gave up (timeouts) leave broken pipes behind: expected, not news."""


class LoopbackServer:
    """Serves `handler_class()` on 127.0.0.1:`port` (0: any free port) from `start()` to `stop()`."""

    thread_name = "loopback-server"

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The handler answering this server's requests (usually bound to `self`)."""
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> Self:
        self._httpd = QuietServer(("127.0.0.1", self.port), self.handler_class())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
