"""The loop every side runs in its own process: one (item, metric) at a time, resumable.

Standard library only (it runs under the peers' venv too). A side supplies a `Scorer`: given
an item and one of judgegraph's metric names it returns the score, or raises. The loop tags
the proxy's session before each try, times it, turns NaN / None into `nan` and an exception
into `failed` (both written, never dropped), and skips (item, metric) pairs already in the
side's scores file, so a run stopped after hours continues where it stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

from benchmarks.peers.records import (
    METRICS,
    Metric,
    PeerItem,
    ScoreRecord,
    Session,
    Side,
    append_jsonl,
    read_jsonl,
    status_of,
)

Scorer = Callable[[PeerItem, Metric], object]
"""Scores one item on one metric; returns the side's raw score (float, None or NaN)."""


def set_session(proxy_url: str, session: Session) -> None:
    """Tag the proxy's requests from now on with `session` (`proxy` module doc). `proxy_url` is
    the sides' base URL, ending in /v1."""
    root = proxy_url.rstrip("/").removesuffix("/v1")
    request = urllib.request.Request(root + "/_peers/session", data=json.dumps(session).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=30) as reply:
        reply.read()


def done_pairs(scores_path: Path) -> set[tuple[str, str]]:
    return {(r["item"], r["metric"]) for r in read_jsonl(scores_path) if "item" in r and "metric" in r}


def run_side(side: Side, items: list[PeerItem], metrics: list[Metric], scorer: Scorer, scores_path: Path,
             proxy_url: str, peer_metric_names: dict[str, str], *, show_tracebacks: bool = False) -> int:
    """Judge every item on each of `metrics` it asks for; returns how many pairs were judged now.

    A metric missing from `peer_metric_names` is one the side does not have: it is written as
    `not_computed` without a call, so the summary shows the gap instead of hiding it."""
    finished = done_pairs(scores_path)
    judged = 0
    for position, item in enumerate(items, 1):
        for metric in (m for m in metrics if m in item["metrics"]):
            if (item["id"], metric) in finished:
                continue
            attempt = uuid.uuid4().hex
            peer_metric = peer_metric_names.get(metric)
            record: ScoreRecord = {"side": side, "set": item["set"], "item": item["id"], "metric": metric,
                                   "attempt": attempt, "status": "not_computed", "score": None, "seconds": 0.0,
                                   "error": None, "peer_metric": peer_metric or ""}
            if peer_metric is not None:
                set_session(proxy_url, {"item": item["id"], "metric": metric, "attempt": attempt})
                started = time.perf_counter()
                try:
                    record["status"], record["score"] = status_of(scorer(item, metric))
                except Exception as error:  # noqa: BLE001 - a peer's failure on one item is data
                    record["status"] = "failed"
                    record["error"] = f"{type(error).__name__}: {error}"[:2000]
                    if show_tracebacks:
                        traceback.print_exc()
                record["seconds"] = round(time.perf_counter() - started, 4)
                set_session(proxy_url, {"item": None, "metric": None, "attempt": None})
            append_jsonl(scores_path, dict(record))
            judged += 1
            shown = f"{record['score']:.3f}" if record["score"] is not None else record["status"]
            print(f"[{side} {position}/{len(items)}] {item['id']} {metric}: {shown} ({record['seconds']:.1f}s)"
                  + (f" {record['error'][:200]}" if record["error"] else ""), file=sys.stderr, flush=True)
    return judged


def worker_parser(prog: str) -> argparse.ArgumentParser:
    """The flags the orchestrator (`run`) passes to every side's worker process."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--items", type=Path, required=True, help="items-<set>.jsonl written by `run`")
    parser.add_argument("--scores", type=Path, required=True, help="this side's per-item JSONL (appended, resumable)")
    parser.add_argument("--proxy-url", required=True, help="the counting proxy's base URL (…/v1)")
    parser.add_argument("--model", required=True, help="the model name the judge server serves")
    parser.add_argument("--metrics", default=",".join(METRICS))
    parser.add_argument("--traceback", action="store_true", help="print each failure's traceback")
    return parser


def read_items(path: Path) -> list[PeerItem]:
    return [PeerItem(**record) for record in read_jsonl(path)]  # type: ignore[typeddict-item]


def chosen_metrics(text: str) -> list[Metric]:
    metrics = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise SystemExit(f"unknown metrics {unknown}; known: {', '.join(METRICS)}")
    return metrics  # type: ignore[return-value]
