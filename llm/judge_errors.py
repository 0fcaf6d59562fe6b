"""What went wrong when the judge was called, said with where it was called.

Why its own module: a failed model call is reported in three places (a metric's explanation,
the one line of a dead-judge exit, the probe before a batch), and "Connection error." alone
does not tell a user which of their servers is down or why. LangChain 1.x raises
provider-neutral classes for the judge's set-up failures (`langchain_core.exceptions`:
connection, 401, 403, 404), and the OpenAI SDK's errors carry the request they were raised
for, so the URL and the cause can be read from the exception without knowing the provider.
"""

from __future__ import annotations

from langchain_core import exceptions as lc

_SETUP_CLASSES: tuple[tuple[type[Exception], str], ...] = (
    (lc.ModelAuthenticationError, "the API key was refused (HTTP 401)"),
    (lc.ModelPermissionDeniedError, "permission denied (HTTP 403)"),
    (lc.ModelNotFoundError, "model not found (HTTP 404)"),
)
_SETUP_STATUS = {401: "the API key was refused (HTTP 401)", 403: "permission denied (HTTP 403)",
                 404: "model not found (HTTP 404)"}


def request_url(error: BaseException) -> str | None:
    """The URL of the request that failed, when the exception carries it (OpenAI SDK errors)."""
    url = getattr(getattr(error, "request", None), "url", None)
    return str(url) if url else None


def _chain(error: BaseException) -> list[BaseException]:
    """The error and what caused it, outermost first (`__cause__`, else `__context__`)."""
    chain = [error]
    while True:
        nxt = chain[-1].__cause__ or chain[-1].__context__
        if nxt is None or any(nxt is seen for seen in chain):
            return chain
        chain.append(nxt)


def _is_connection_error(error: BaseException) -> bool:
    if isinstance(error, lc.ModelTimeoutError) or "Timeout" in type(error).__name__:
        return False
    return isinstance(error, lc.ModelConnectionError) or type(error).__name__ in (
        "APIConnectionError", "ConnectError")


def setup_cause(error: BaseException) -> str | None:
    """Why the judge cannot be used at all (cannot connect, key refused, no such model), in a
    few words; None for a failure of one call (a timeout, a 5xx, a rejected request)."""
    for cls, text in _SETUP_CLASSES:
        if isinstance(error, cls):
            return text
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and status in _SETUP_STATUS:
        return _SETUP_STATUS[status]
    if _is_connection_error(error):
        chain = _chain(error)
        texts = " | ".join(str(link) for link in chain)
        if any(isinstance(link, ConnectionRefusedError) for link in chain) \
                or "Connection refused" in texts or "Connect call failed" in texts:
            return "connection refused"
        if "Name or service not known" in texts or "nodename nor servname" in texts or "getaddrinfo" in texts:
            return "host name not found"
    return None  # a dropped connection, a timeout, a 5xx: the call failed, the judge may be fine


def call_failure_note(error: BaseException) -> str:
    """The parenthesis a failed call's description ends with: its cause and URL, when known
    ("" when the exception says neither)."""
    url, cause = request_url(error), setup_cause(error)
    if url and cause:
        return f" ({cause}: {url})"
    if url:
        return f" ({url})"
    return f" ({cause})" if cause else ""
