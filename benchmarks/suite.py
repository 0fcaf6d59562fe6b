"""The whole agreement suite in one command: the four sets, the combined report and the plot.

    python -m benchmarks.suite [--limit N] [--model ... | --base-url ...] [--out-dir bench-out]

Same flags as `benchmarks.agreement` (it is `agreement --all`); the default per-set limits
keep a run on the embedded local model under 30 minutes on 2 cores (see docs/benchmarks.md).
"""

from __future__ import annotations

import shlex
import sys

from benchmarks.agreement import main as agreement_main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    return agreement_main(["--all", *argv], command="python -m benchmarks.suite " + shlex.join(argv))


if __name__ == "__main__":
    sys.exit(main())
