"""A loopback HTTP endpoint that answers 404 to every request and records (method, path).

Why: LangSmith's client reaches its API in the background; pointing `LANGSMITH_ENDPOINT` here
shows whether anything tried, without a network or a real API.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RecordingEndpoint:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                requests.append((self.command, self.path))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PATCH = do_PUT = _answer

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
