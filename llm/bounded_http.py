"""Replies from a judge server read under a total deadline and a size limit.

Why: a judge server is someone else's code. httpx's timeouts are per network operation, so a
server that sends its reply one byte every half second never trips `--timeout` (each read
waits less than the timeout), and a small gzip body can inflate to gigabytes, which the SDK
then holds, decodes and parses. So every request to an OpenAI-compatible judge goes through
the clients here:

- **a total deadline per HTTP attempt**: connecting, sending, waiting and receiving the whole
  body must end within `--timeout` seconds, else the attempt fails as a timeout (the SDK then
  retries it, `--retries`). Async requests run under `asyncio.timeout`. Blocking requests clamp
  every socket operation to the time left (a network backend that wraps httpcore's), so a
  trickle of headers or body ends at the deadline too.
- **a bounded body**: at most `MAX_REPLY_BYTES` on the wire and as many once decoded. The body
  is read raw and decoded here (gzip and deflate, the encodings asked for), a bounded slice of
  output per input chunk, so a compression bomb stops at the limit instead of inflating in
  memory. Past the limit the attempt fails with `ReplyTooLarge` (not retried: the same server
  would send the same reply).
- **no retry of a refused connection**: nothing listens at the judge's address (a wrong port,
  a server that is not started), and waiting a few seconds will not start it. The SDK retries
  every connection error with backoff, so a typo in `--base-url` took some 13 s to report; a
  refused connection is raised as the SDK's own `APIConnectionError`, which it passes on at
  once, and the first attempt's failure is the answer. A dropped connection, a reset, a
  timeout or a 5xx are still retried (`--retries`): those can pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
import zlib
from typing import Any

import httpcore2
import httpx2
import openai

MAX_REPLY_BYTES = 8 * 1024 * 1024
"""Bytes of one reply, on the wire and decoded. A judge's JSON reply, with the log-probabilities
of every token and their top alternatives, stays far below it."""

ACCEPT_ENCODING = "gzip, deflate"
"""The encodings this module decodes itself (with a bound); others are not asked for."""


class ReplyTooLarge(Exception):
    """The judge's reply is larger than the limit (on the wire or decoded)."""


class ReplyDeadlineExceeded(httpx2.ReadTimeout):
    """The whole HTTP attempt took longer than its total deadline (a timeout: the SDK retries it)."""


# --- the body, bounded -------------------------------------------------------------------------

class BoundedBody:
    """Collects a response's raw chunks, decodes them, and refuses more than `limit` bytes."""

    def __init__(self, content_encoding: str | None, limit: int = MAX_REPLY_BYTES) -> None:
        encoding = (content_encoding or "identity").strip().lower()
        if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
            raise httpx2.DecodingError(f"the reply's content-encoding {encoding[:40]!r} was not asked for")
        self._encoding = encoding
        self._decoder: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS)
        self._limit = limit
        self._wire = 0
        self._parts: list[bytes] = []
        self._size = 0
        self._first = True

    def _too_large(self, what: str) -> ReplyTooLarge:
        return ReplyTooLarge(f"the judge's reply is larger than {self._limit:,} bytes {what} "
                             "(the reply size limit, docs/untrusted-input.md)")

    def _keep(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self._limit:
            raise self._too_large("decoded")
        self._parts.append(data)

    def feed(self, raw: bytes) -> None:
        self._wire += len(raw)
        if self._wire > self._limit:
            raise self._too_large("on the wire")
        if self._decoder is None:
            self._keep(raw)
            return
        try:
            if self._first and self._encoding == "deflate":
                self._first = False
                try:  # "deflate" is zlib-wrapped by the standard, raw in some servers
                    probe = zlib.decompressobj(zlib.MAX_WBITS)
                    self._keep(probe.decompress(raw, self._limit - self._size + 1))
                    self._decoder = probe
                    self._drain()
                    return
                except zlib.error:
                    self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
            self._keep(self._decoder.decompress(raw, self._limit - self._size + 1))
            self._drain()
        except zlib.error as error:
            raise httpx2.DecodingError(f"the reply's {self._encoding} body is corrupt: {error}") from error

    def _drain(self) -> None:
        """Output still pending after the bounded call: decode it a bounded slice at a time."""
        while self._decoder.unconsumed_tail:
            self._keep(self._decoder.decompress(self._decoder.unconsumed_tail, self._limit - self._size + 1))

    def content(self) -> bytes:
        if self._decoder is not None:
            try:
                self._keep(self._decoder.flush())
            except zlib.error as error:
                raise httpx2.DecodingError(f"the reply's {self._encoding} body is corrupt: {error}") from error
        return b"".join(self._parts)


def _decoded_response(response: httpx2.Response, body: bytes) -> httpx2.Response:
    """`response` with its body read and decoded: what the SDK would get from `send(stream=False)`."""
    headers = httpx2.Headers(response.headers)
    for name in ("content-encoding", "content-length", "transfer-encoding"):
        headers.pop(name, None)
    return httpx2.Response(response.status_code, headers=headers, content=body,
                           request=response.request, extensions=response.extensions)


def _prepared(request: httpx2.Request) -> None:
    request.headers["Accept-Encoding"] = ACCEPT_ENCODING


# --- a refused connection, not retried ---------------------------------------------------------

def _refused(error: BaseException) -> bool:
    """Whether `error` (or what caused it) is a refused TCP connection."""
    seen: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and not any(link is s for s in seen):
        if isinstance(link, ConnectionRefusedError):
            return True
        seen.append(link)
        link = link.__cause__ or link.__context__
    return False


def not_retried_if_refused(error: Exception, request: httpx2.Request) -> Exception:
    """`error` as the SDK's `APIConnectionError` when the connection was refused (the SDK
    raises its own errors without retrying them; module docstring), else `error` itself."""
    if isinstance(error, openai.OpenAIError) or not _refused(error):
        return error
    refused = openai.APIConnectionError(request=request)
    refused.__cause__ = error
    return refused


# --- the deadline of blocking requests ----------------------------------------------------------

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("judgegraph_http_deadline", default=None)
"""The monotonic time the running blocking request must end by (set by `BoundedHttpxClient.send`)."""


def _time_left(timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout` clamped to the running request's time left; past the deadline, `error`."""
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the request's total deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    def __init__(self, stream: httpcore2.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _time_left(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _time_left(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname,
                                                      _time_left(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore's network backend with every socket operation clamped to the time left."""

    def __init__(self, backend: httpcore2.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._backend.connect_tcp(
            host, port, _time_left(timeout, httpcore2.ConnectTimeout), local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore2.NetworkStream:
        return _DeadlineStream(self._backend.connect_unix_socket(
            path, _time_left(timeout, httpcore2.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _clamp_sockets(transport: Any) -> None:
    """Put the deadline backend under `transport`'s connection pool (httpx builds the pool
    itself and takes no backend; the attribute is httpcore's own). Without it the deadline is
    still checked between body chunks."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is not None and not isinstance(backend, _DeadlineBackend):
        pool._network_backend = _DeadlineBackend(backend)


class BoundedHttpxClient(openai.DefaultHttpxClient):
    """The SDK's blocking client, with a total deadline and a size limit per request (module doc)."""

    def __init__(self, *, deadline_s: float, max_reply_bytes: int = MAX_REPLY_BYTES, **settings: Any) -> None:
        super().__init__(**settings)
        self.deadline_s = deadline_s
        self.max_reply_bytes = max_reply_bytes
        _clamp_sockets(self._transport)
        for transport in self._mounts.values():
            _clamp_sockets(transport)

    def send(self, request: httpx2.Request, *, stream: bool = False, **kwargs: Any) -> httpx2.Response:  # type: ignore[override]
        try:
            return self._send_bounded(request, stream=stream, **kwargs)
        except Exception as error:
            refused = not_retried_if_refused(error, request)
            if refused is error:
                raise
            raise refused from error

    def _send_bounded(self, request: httpx2.Request, *, stream: bool, **kwargs: Any) -> httpx2.Response:
        deadline = time.monotonic() + self.deadline_s
        token = _deadline.set(deadline)
        try:
            if stream:  # a caller that streams reads the body itself: only the headers are bounded here
                return super().send(request, stream=True, **kwargs)
            _prepared(request)
            response = super().send(request, stream=True, **kwargs)
            try:
                body = BoundedBody(response.headers.get("content-encoding"), self.max_reply_bytes)
                for chunk in response.iter_raw():
                    if time.monotonic() > deadline:
                        raise ReplyDeadlineExceeded("the reply did not arrive within the total deadline")
                    body.feed(chunk)
                return _decoded_response(response, body.content())
            finally:
                response.close()
        finally:
            _deadline.reset(token)


# --- async requests ----------------------------------------------------------------------------

async def bounded_async_send(client: Any, request: httpx2.Request, *, deadline_s: float,
                             max_reply_bytes: int = MAX_REPLY_BYTES, stream: bool = False,
                             **kwargs: Any) -> httpx2.Response:
    """`client.send(request)` under a total deadline, its body read with the size limit."""
    if stream:
        return await client.send(request, stream=True, **kwargs)
    _prepared(request)
    try:
        async with asyncio.timeout(deadline_s):
            response = await client.send(request, stream=True, **kwargs)
            try:
                body = BoundedBody(response.headers.get("content-encoding"), max_reply_bytes)
                async for chunk in response.aiter_raw():
                    body.feed(chunk)
                return _decoded_response(response, body.content())
            finally:
                with contextlib.suppress(Exception):  # the connection is dropped either way
                    await response.aclose()
    except TimeoutError as error:
        raise ReplyDeadlineExceeded("the reply did not arrive within the total deadline") from error

