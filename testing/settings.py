"""Which judge a test session judges with, and where its replies are cached.

Why its own module: the pytest plugin reads these from three places (command-line options,
`pytest.ini` / `pyproject.toml` ini options, the environment), and the order must be the one
the rest of judgegraph uses: an option given on the command line wins over the ini file, and
with neither, `JUDGEGRAPH_MODEL` / `OPENAI_BASE_URL` choose the judge exactly as they do for
the CLI (`llm.models.resolve_model`), else the embedded local judge. Nothing here imports
pytest or the judging stack, so the plugin costs nothing to a session that judges nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_CACHE_DIR = ".judgegraph_cache"
"""The cache folder, under the session's rootdir: an unchanged item is answered from it."""

CACHE_FILE = "steps.sqlite"
"""The step cache inside the folder (`batch.cache.SqliteStepCache`, the CLI's `--cache`)."""


@dataclass(frozen=True)
class Option:
    """One setting, as a command-line option and as an ini option of the same meaning."""

    name: str
    flag: str
    ini: str
    help: str
    is_flag: bool = False


OPTIONS: tuple[Option, ...] = (
    Option("model", "--judgegraph-model", "judgegraph_model",
           "the judge: provider:name (openai:gpt-4o-mini), 'local', or a model served at the base URL "
           "(default: JUDGEGRAPH_MODEL, else the embedded local judge)"),
    Option("base_url", "--judgegraph-base-url", "judgegraph_base_url",
           "an OpenAI-compatible server to judge with (default: OPENAI_BASE_URL)"),
    Option("escalate_to", "--judgegraph-escalate-to", "judgegraph_escalate_to",
           "a second judge for the decisions the first is unsure of (the CLI's --escalate-to; its key: "
           "JUDGEGRAPH_ESCALATE_API_KEY)"),
    Option("escalate_base_url", "--judgegraph-escalate-base-url", "judgegraph_escalate_base_url",
           "the second judge's OpenAI-compatible server"),
    Option("cache_dir", "--judgegraph-cache-dir", "judgegraph_cache_dir",
           f"where judge replies are cached, relative to the rootdir (default: {DEFAULT_CACHE_DIR})"),
    Option("no_cache", "--judgegraph-no-cache", "judgegraph_no_cache",
           "judge every item again, reading and writing no cache", is_flag=True),
)


@dataclass(frozen=True)
class JudgeSettings:
    """The judge of a session: as named (None: the environment's, else the local judge), and
    the step cache file (None: no cache)."""

    model: str | None = None
    base_url: str | None = None
    cache: Path | None = None
    escalate_to: str | None = None
    escalate_base_url: str | None = None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def resolve_settings(option: Callable[[str], Any], ini: Callable[[str], Any], rootdir: Path) -> JudgeSettings:
    """The session's settings: each from its command-line option, else its ini option, else
    the default (the environment, for the judge).

    Args:
        option: the parsed command-line value of an `Option.name` (None or False when absent).
        ini: the ini value of an `Option.ini` ("" or None when absent).
        rootdir: the session's rootdir; a relative cache folder is under it.
    """
    values: dict[str, Any] = {}
    for spec in OPTIONS:
        given = option(spec.name)
        if given in (None, False, ""):
            given = ini(spec.ini)
        values[spec.name] = _truthy(given) if spec.is_flag else (str(given).strip() or None if given else None)
    cache = None
    if not values["no_cache"]:
        folder = Path(values["cache_dir"] or DEFAULT_CACHE_DIR).expanduser()
        cache = (folder if folder.is_absolute() else rootdir / folder) / CACHE_FILE
    return JudgeSettings(model=values["model"], base_url=values["base_url"], cache=cache,
                         escalate_to=values["escalate_to"], escalate_base_url=values["escalate_base_url"])
