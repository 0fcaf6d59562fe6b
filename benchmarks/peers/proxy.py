"""The counting proxy: every side's only way to the judge server, so all three are measured alike.

Each side talks OpenAI-compatible HTTP to this proxy on 127.0.0.1, which forwards chat
(and any other `/v1/...`) requests to the judge server unchanged and records, per request:
the session it belongs to (item, metric, attempt), prompt / generated / cached tokens read
from the reply's own `usage`, and seconds. Counting at the wire rather than in each library
matters because the libraries count differently (or not at all), and retries, repairs and
hidden extra calls (RAGAS's generated questions, DeepEval's verdict and reason steps) are
exactly what the comparison is about.

Tagging: sides judge one (item, metric) at a time, so the current session is simply set by
the side before each one (`POST /_peers/session`, `worker.set_session`) and every request
that arrives until the next is tagged with it. This needs no change to how a library builds
its client (headers or base URLs per item would mean patching each peer).

`/v1/embeddings` is answered here, not forwarded: from judgegraph's packaged embedder
(`judgegraph.llm.embeddings`, multilingual-e5-small), so RAGAS and DeepEval embed with the
same model judgegraph uses. It honours `encoding_format: "base64"` (the OpenAI SDK's default)
and refuses token-id input, which only a client tokenising with tiktoken would send.
"""

from __future__ import annotations

import base64
import json
import struct
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from benchmarks.peers.records import CallKind, CallRecord, Session, append_jsonl

UPSTREAM_TIMEOUT_SECONDS = 1800.0
"""A local judge on 2 cores takes minutes for a long prompt; the sides have their own timeouts."""


class TextEmbedder(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def usage_of(reply: dict) -> tuple[int | None, int | None, int | None]:
    """(prompt, completion, cached prompt) tokens from a completion's `usage`; None when absent."""
    usage = reply.get("usage") if isinstance(reply, dict) else None
    if not isinstance(usage, dict):
        return None, None, None
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None

    def whole(value: object) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return whole(usage.get("prompt_tokens")), whole(usage.get("completion_tokens")), whole(cached)


def streamed_usage(raw: bytes) -> dict:
    """The last `usage` of a server-sent-events body (sent only with stream_options.include_usage)."""
    usage: dict = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        if line.startswith("data:") and "usage" in line:
            try:
                chunk = json.loads(line[5:].strip())
            except json.JSONDecodeError:
                continue
            if isinstance(chunk, dict) and isinstance(chunk.get("usage"), dict):
                usage = chunk
    return usage


def embedding_texts(payload: object) -> list[str]:
    """The texts of an embeddings request's `input`; ValueError for token ids or anything else."""
    if isinstance(payload, str):
        return [payload]
    if isinstance(payload, list) and all(isinstance(text, str) for text in payload):
        return list(payload)
    raise ValueError("input must be a string or a list of strings; token-id input (tiktoken) is not served: "
                     "configure the client not to tokenise (langchain: check_embedding_ctx_length=False)")


def encode_vector(vector: Sequence[float], encoding_format: str | None) -> list[float] | str:
    """As the OpenAI API sends it: floats, or little-endian float32 bytes in base64."""
    if encoding_format == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return [float(x) for x in vector]


class CountingProxy:
    """A forwarding, counting OpenAI-compatible server on 127.0.0.1 (module doc)."""

    def __init__(self, upstream: str, log_path: Path | None = None, *, embedder: TextEmbedder | None = None,
                 port: int = 0, keep_bodies: bool = False) -> None:
        self.upstream = upstream.rstrip("/")
        """The judge's base URL, ending in /v1 (as the sides' base URL would)."""
        self.log_path = log_path
        self.embedder = embedder
        self.port = port
        self.records: list[CallRecord] = []
        self.bodies: list[tuple[str | None, bytes]] | None = [] if keep_bodies else None
        """With `keep_bodies`: each forwarded POST's body, with the item it was tagged with, in
        arrival order (for comparing what two revisions sent, `benchmarks.same_results`)."""
        self.session: Session = {"item": None, "metric": None, "attempt": None}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # --- lifecycle
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start() the proxy first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "CountingProxy":
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self._httpd = _QuietServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         name="peers-proxy", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "CountingProxy":
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # --- accounting
    def set_session(self, session: Session) -> None:
        with self._lock:
            self.session = {"item": session.get("item"), "metric": session.get("metric"),
                            "attempt": session.get("attempt")}

    def record(self, kind: CallKind, session: Session, path: str, status: int, seconds: float, *,
               usage: tuple[int | None, int | None, int | None] = (None, None, None), texts: int = 0,
               error: str | None = None, body: bytes | None = None) -> None:
        record: CallRecord = {
            "kind": kind, "item": session["item"], "metric": session["metric"], "attempt": session["attempt"],
            "path": path, "http_status": status, "prompt_tokens": usage[0], "completion_tokens": usage[1],
            "cached_tokens": usage[2], "seconds": round(seconds, 4), "texts": texts, "error": error,
        }
        with self._lock:
            self.records.append(record)
            if self.bodies is not None and body is not None:
                self.bodies.append((session["item"], body))
            if self.log_path is not None:
                append_jsonl(self.log_path, dict(record))

    # --- serving
    def forward(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes, str]:
        """(status, body, content type) of the upstream's answer; connection errors become 502."""
        if path.startswith("/v1/") or path == "/v1":
            target = self.upstream + path[len("/v1"):]
        else:  # a server's own endpoints beside the API (llama.cpp's /health, /props)
            target = self.upstream.removesuffix("/v1") + path
        request = urllib.request.Request(target, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=UPSTREAM_TIMEOUT_SECONDS) as reply:
                return reply.status, reply.read(), reply.headers.get("Content-Type", "application/json")
        except urllib.error.HTTPError as error:
            return error.code, error.read(), error.headers.get("Content-Type", "application/json")
        except (urllib.error.URLError, OSError) as error:
            message = json.dumps({"error": {"message": f"proxy: judge server unreachable: {error}"}})
            return 502, message.encode(), "application/json"

    def embeddings(self, request: dict) -> dict:
        if self.embedder is None:
            raise LookupError("this proxy serves no embedder")
        texts = embedding_texts(request.get("input"))
        vectors = self.embedder.embed(texts) if texts else []
        encoding_format = request.get("encoding_format")
        return {
            "object": "list", "model": request.get("model") or self.embedder.model_id,
            "data": [{"object": "embedding", "index": n, "embedding": encode_vector(vector, encoding_format)}
                     for n, vector in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A side that gave up on a slow reply leaves a broken pipe: not news."""


FORWARDED_HEADERS = ("Content-Type", "Authorization", "Accept")


class _Handler(BaseHTTPRequestHandler):
    owner: CountingProxy
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent: the record is the log."""

    def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        owner = self.owner
        if self.path == "/_peers/session":
            self._send(200, json.dumps(owner.session).encode())
            return
        status, payload, kind = owner.forward("GET", self.path, None, self._headers())
        self._send(status, payload, kind)

    def _headers(self) -> dict[str, str]:
        return {name: self.headers[name] for name in FORWARDED_HEADERS if self.headers.get(name)}

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.owner
        raw = self._body()
        if self.path == "/_peers/session":
            try:
                owner.set_session(json.loads(raw or b"{}"))
            except (json.JSONDecodeError, AttributeError):
                self._send(400, b'{"error": {"message": "session must be a JSON object"}}')
                return
            self._send(200, json.dumps(owner.session).encode())
            return
        session = dict(owner.session)
        started = time.perf_counter()
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(raw, session, started)
            return
        status, payload, kind = owner.forward("POST", self.path, raw, self._headers())
        seconds = time.perf_counter() - started
        usage: tuple[int | None, int | None, int | None] = (None, None, None)
        error = None
        if "text/event-stream" in kind:
            usage = usage_of(streamed_usage(payload))
        else:
            try:
                usage = usage_of(json.loads(payload))
            except (json.JSONDecodeError, UnicodeDecodeError):
                error = "reply is not JSON"
        if status >= 400:
            error = payload[:300].decode("utf-8", "replace")
        call_kind: CallKind = "chat" if "completions" in self.path else "other"
        owner.record(call_kind, session, self.path, status, seconds, usage=usage, error=error,  # type: ignore[arg-type]
                     body=raw)
        self._send(status, payload, kind)

    def _embeddings(self, raw: bytes, session: dict, started: float) -> None:
        owner = self.owner
        try:
            request = json.loads(raw or b"{}")
            reply = owner.embeddings(request)
        except (json.JSONDecodeError, ValueError, LookupError) as error:
            owner.record("embeddings", session, self.path, 400, time.perf_counter() - started,  # type: ignore[arg-type]
                         error=str(error))
            self._send(400, json.dumps({"error": {"message": str(error)}}).encode())
            return
        owner.record("embeddings", session, self.path, 200, time.perf_counter() - started,  # type: ignore[arg-type]
                     texts=len(reply["data"]))
        self._send(200, json.dumps(reply).encode())
