"""`judgegraph evaluate items.jsonl --out results.jsonl --engine ray`: the batch over a Ray cluster.

Design: only the judging moves out. The driver (this process) reads and checks the input,
skips the ids already in `--out`, writes bad lines' records, and owns the results file, exactly
as the local engine does (`batch.runner.BatchRun`); so input checks, resume and the output record stay in
one place. The items to judge go to Ray Data as one string column; `map_batches` hands blocks
of them to a pool of `ItemJudge` actors. Each actor builds the judge from the same flags with
the factory the driver was given (`batch.judge_setup`; with `--escalate-to`, the second judge
too; the driver's judge-related environment variables are set in the actors' processes
through Ray's `runtime_env`) and judges its block with the async graph, `--concurrency` items
at a time (`batch.item_judging.judge_entry`, the local engine's code). The records stream back
to the driver, which writes each one as it arrives.

Faults: Ray Data restarts a dead actor and re-runs its block (its actors are created with
`max_restarts=-1, max_task_retries=-1`); a block's records reach the driver only once it is
finished, so a worker killed mid-block loses nothing and the block is judged again. The driver
also drops any record whose id it already wrote in this run, so a retried block can never
duplicate a line. If the driver itself dies, re-running the command resumes from `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Iterator
from typing import Any

from ..graph.every_item.input_fields import checked_field_map
from ..run.judge_builder import ESCALATE_API_KEY_ENV
from .item_judging import judge_entry
from .judge_setup import JudgeFactory, resolve_judge
from .options import BatchOptions, BatchUsageError
from .reader import Entry, id_key

RECORD = "record"
ENTRY = "entry"

JUDGE_ENVIRONMENT = ("JUDGEGRAPH_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", ESCALATE_API_KEY_ENV, "PYTHONPATH")
"""Variables the judges are resolved from (the second judge's key too, `--escalate-to`); passed to
the actors, which may run on other hosts."""

DEFAULT_ACTORS = 2
"""Actors when `--ray-actors` is not given: each holds `--concurrency` items in flight."""


class RayUnavailable(Exception):
    """`--engine ray` without the `ray` extra installed; one line, exit 2."""


def import_ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401 - the engine needs Ray Data, not only Ray Core
    except ImportError as error:
        raise RayUnavailable(
            f"--engine ray needs Ray Data: pip install 'judgegraph[ray]' ({error})"
        ) from error
    return ray


def check_ray_flags(options: BatchOptions, args: argparse.Namespace) -> None:
    """What `--engine ray` cannot do, said before any work (exit 2)."""
    if options.cache is not None:
        raise BatchUsageError("--cache is a local SQLite file; it cannot be shared by Ray workers "
                              "(drop --cache or use --engine local)")
    if (getattr(args, "ray_actors", None) or 1) < 1:
        raise BatchUsageError("--ray-actors must be at least 1")
    try:
        import_ray()
    except RayUnavailable as error:
        raise BatchUsageError(str(error)) from error


TOKEN_FIX = ("set RAY_AUTH_MODE=token, with the cluster's token in ~/.ray/auth_token, RAY_AUTH_TOKEN or "
             "RAY_AUTH_TOKEN_PATH (docs/batch.md)")
"""How a driver joins a cluster that uses Ray's token authentication."""


def connect(ray: Any, address: str | None) -> None:
    """Join the cluster at `address` (or $RAY_ADDRESS); start a local Ray when neither is set.
    A Ray already initialised by the caller (tests, notebooks) is used as it is. A cluster that
    cannot be joined is a `BatchUsageError` naming the cause (`joining_problem`)."""
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    try:
        if address:
            ray.init(address=address, configure_logging=False)
        else:  # a throw-away local Ray for this run (never a cluster found lying around): no dashboard
            ray.init(address="local", include_dashboard=False, configure_logging=False)
    except (ConnectionError, RuntimeError) as error:
        raise BatchUsageError(joining_problem(error, address or "a local Ray")) from error


def join_cluster(args: argparse.Namespace) -> None:
    """Join the cluster the flags name (`connect`), before any file is written."""
    connect(import_ray(), getattr(args, "ray_address", None))


def joining_problem(error: BaseException, address: str) -> str:
    """Why the driver could not join the cluster, in one line with the fix when it is known.

    Why the token case is told apart: a cluster started with token authentication (Ray 2.5x's
    `ray start --head` turns it on) refuses a driver that sends no token, and Ray says only
    "Failed to connect to Ray cluster at ...", the cause buried in the traceback text of the
    error behind it ("InvalidAuthToken"); judgegraph reported it as "cannot write out.jsonl"."""
    links: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and not any(link is seen for seen in links):
        links.append(link)
        link = link.__cause__ or link.__context__
    text = " ".join(f"{type(link).__name__}: {link}" for link in links)
    if "InvalidAuthToken" in text or "AuthenticationError" in text or "authentication token" in text.lower():
        if os.environ.get("RAY_AUTH_MODE", "").strip().lower() == "token":
            return (f"cannot join the Ray cluster at {address}: it refused this process's token (token "
                    "authentication); give the cluster's token in ~/.ray/auth_token, RAY_AUTH_TOKEN or "
                    "RAY_AUTH_TOKEN_PATH (docs/batch.md)")
        return (f"cannot join the Ray cluster at {address}: it uses token authentication and this process "
                f"sent no token; {TOKEN_FIX}")
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return f"cannot join the Ray cluster at {address}: {first}"


def encode_entry(entry: Entry) -> str:
    """One row of the dataset: ids may be ints or strings, so the row is a JSON string."""
    return json.dumps({"id": entry.id, "line": entry.line, "item": entry.item}, ensure_ascii=False)


class ItemJudge:
    """A Ray Data actor: builds the judge once, then judges blocks of entries."""

    def __init__(self, flags: dict[str, Any], concurrency: int, make_judge: JudgeFactory) -> None:
        self.context, _ = resolve_judge(make_judge, argparse.Namespace(**flags))
        self.rubric = flags.get("rubric")
        self.field_map = checked_field_map(flags.get("map"))
        self.details = bool(flags.get("details"))
        self.concurrency = concurrency
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: clients stay bound to it

    def __call__(self, block: dict[str, Any]) -> dict[str, list[str]]:
        entries = [json.loads(text) for text in block[ENTRY]]
        records = self.loop.run_until_complete(self._judge_all(entries))
        # allow_nan: the driver's writer turns NaN into an internal-error record, as locally
        return {RECORD: [json.dumps(record, ensure_ascii=False) for record in records]}

    async def _judge_all(self, entries: list[dict]) -> list[dict]:
        gate = asyncio.Semaphore(self.concurrency)

        async def one(entry: dict) -> dict:
            async with gate:
                return await judge_entry(entry["id"], entry["line"], entry["item"], self.context,
                                         rubric=self.rubric, concurrency=self.concurrency,
                                         details=self.details, field_map=self.field_map)

        return list(await asyncio.gather(*(one(entry) for entry in entries)))


def judged_records(ray: Any, rows: list[str], flags: dict[str, Any], make_judge: JudgeFactory, *,
                   concurrency: int, actors: int) -> Iterator[dict]:
    """Judge `rows` (encoded entries) on the cluster; yield each record as it comes back."""
    from ray.data import ActorPoolStrategy, DataContext

    DataContext.get_current().enable_progress_bars = False  # the driver shows its own bar
    environment = {name: os.environ[name] for name in JUDGE_ENVIRONMENT if name in os.environ}
    dataset = ray.data.from_items([{ENTRY: row} for row in rows]).map_batches(
        ItemJudge,
        fn_constructor_kwargs={"flags": flags, "concurrency": concurrency, "make_judge": make_judge},
        batch_size=max(1, concurrency),
        compute=ActorPoolStrategy(size=max(1, actors)),
        num_cpus=1,
        runtime_env={"env_vars": environment},  # set when the actor's process starts (PYTHONPATH too)
    )
    for block in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        for text in block[RECORD]:
            yield json.loads(str(text))


def run_on_ray(batch: Any, args: argparse.Namespace, done: set[str], total: int, make_judge: JudgeFactory) -> None:
    """The Ray engine's loop: triage in the driver, judging on the cluster, writing here."""
    ray = import_ray()
    connect(ray, getattr(args, "ray_address", None))
    written: set[str] = set()
    with batch.start_progress(total) as progress:
        rows = [encode_entry(entry) for entry in batch.entries_to_judge(done, progress.console)]
        if not rows:
            return
        flags = {key: value for key, value in vars(args).items() if _portable(value)}
        for record in judged_records(ray, rows, flags, make_judge, concurrency=batch.concurrency,
                                     actors=getattr(args, "ray_actors", None) or DEFAULT_ACTORS):
            key = id_key(record["id"])
            if key in written:  # a retried block's item already written: never a second line
                continue
            written.add(key)
            batch.record_judged(record)


def _portable(value: Any) -> bool:
    """Flags that can travel to the actors (paths and plain values; not open files)."""
    return value is None or isinstance(value, (str, int, float, bool, list, tuple, os.PathLike))
