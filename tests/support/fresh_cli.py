"""`judgegraph <argv>` run in a fresh interpreter, reporting which modules it left loaded: how the
start-up tests check what a command imports (`sys.modules` after it ran, not a timing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def modules_after_cli(argv: list[str], watched: tuple[str, ...], *, prelude: str = "",
                      drop_env: tuple[str, ...] = ()) -> tuple[int, list[str], str]:
    """(exit code, the loaded modules that are a `watched` name or inside one, stderr) after
    `judgegraph <argv>` ran in a fresh interpreter; `prelude` is Python run before the command
    (an import blocker), `drop_env` environment variables the child must not see."""
    script = prelude + (
        "import json, sys\n"
        "from judgegraph.commands.cli import main\n"
        "try:\n"
        f"    code = main({argv!r})\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        f"watched = {watched!r}\n"
        "loaded = sorted(m for m in sys.modules if any(m == w or m.startswith(w + '.') for w in watched))\n"
        "print(json.dumps([code, loaded]), file=sys.__stdout__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in drop_env}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                           check=False)
    code, loaded = json.loads(child.stdout.strip().splitlines()[-1])
    return code, loaded, child.stderr
