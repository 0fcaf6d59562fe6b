"""How fast the labelling page shows the next item on a large results file.

    python -m benchmarks.label_page_speed [--records 100000] [--labels 50] [--out-dir bench-out]

Writes a results file of `--records` rag records with details (item, one claim with its verdict
and evidence: `tests.support.labelling_results`), starts `judgegraph label`'s server on it in
this process (`labelling.server.LabellingServer`, 127.0.0.1), then, `--labels` times, POSTs a
label and GETs the page of the next item over real HTTP, as the browser does after each key
press. Prints the one-pass index time at start and the milliseconds per next item (median, 95th
percentile, max), wall and CPU (this process's, server thread included: on a machine busy
with other work the wall figures grow, the CPU ones much less): the target is under 100 ms per
item on 100,000 records. Each item is read back with one seek by its byte offset; the file is
never read again after the index. With `--out-dir`, a results file already there is reused.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from tests.support.labelling_results import results_record, write_results


def _request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": f"127.0.0.1:{port}"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read().decode("utf-8")
    connection.close()
    return response.status, data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--labels", type=int, default=50)
    parser.add_argument("--out-dir", type=Path, default=None, help="keep the results file here (default: a temp dir)")
    args = parser.parse_args(argv)

    from judgegraph.labelling.server import LabellingServer
    from judgegraph.labelling.session import start_session

    with tempfile.TemporaryDirectory() as scratch:
        folder = args.out_dir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        results = folder / "label_speed_results.jsonl"
        labels = folder / "label_speed_labels.jsonl"
        labels.unlink(missing_ok=True)
        started = time.perf_counter()
        if not (args.out_dir and results.exists()):
            write_results(results, [results_record(n, (n % 11) / 10) for n in range(args.records)])
        written = time.perf_counter() - started
        started, cpu = time.perf_counter(), time.process_time()
        session = start_session(results, labels, metrics=None, stratified=None, seed=1)
        indexed, indexed_cpu = time.perf_counter() - started, time.process_time() - cpu
        server = LabellingServer(session)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            status, html = _request(server.port, "GET", "/")
            timings: list[float] = []
            cpu_timings: list[float] = []
            for _ in range(args.labels):
                hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', html))
                form = hidden | {"m:faithfulness": "1", "m:context_relevance": "1", "m:answer_relevance": "0"}
                started, cpu = time.perf_counter(), time.process_time()
                status, _ = _request(server.port, "POST", "/label", urlencode(form).encode("utf-8"))
                assert status == 303, status
                status, html = _request(server.port, "GET", "/")
                timings.append((time.perf_counter() - started) * 1000)
                cpu_timings.append((time.process_time() - cpu) * 1000)
                assert status == 200, status
        finally:
            server.shutdown()
            server.server_close()
        size = results.stat().st_size
    timings.sort()
    p95 = timings[min(len(timings) - 1, round(0.95 * (len(timings) - 1)))]
    records = session.index.records
    print(f"results file: {len(records):,} records with details, {size / 1e6:,.1f} MB (written in {written:.1f} s)")
    print(f"index at start (one pass, sha256, scores): {indexed:.2f} s wall, {indexed_cpu:.2f} s CPU")
    print(f"label saved (fsync) + next item shown, over {len(timings)} items: median {statistics.median(timings):.1f} ms, "
          f"p95 {p95:.1f} ms, max {timings[-1]:.1f} ms wall; CPU median {statistics.median(cpu_timings):.1f} ms, "
          f"max {max(cpu_timings):.1f} ms")
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
