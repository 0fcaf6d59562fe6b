"""`judgegraph label RESULTS --labels LABELS.jsonl`: people label a random sample of a batch.

Serves the labelling page on 127.0.0.1 (prints its URL, opens a browser unless `--no-browser`)
or, with `--terminal`, asks in the terminal; both append to LABELS, which `estimate` and
`calibrate` read (docs/labelling.md). Running the command again resumes at the next unlabelled
item. Building the parser imports nothing of the labelling machinery; it loads when the command
runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_USAGE = 2


def add_label_parser(commands: argparse._SubParsersAction) -> None:
    label = commands.add_parser(
        "label", help="label a random sample of a results file, one item at a time (a page on 127.0.0.1)",
        description="Show the items of a results file one at a time, in a seeded random order, and "
                    "append each label to LABELS as it is given (docs/labelling.md).")
    label.add_argument("results", type=Path, help="results.jsonl of a batch judged with --details")
    label.add_argument("--labels", type=Path, required=True, metavar="LABELS.jsonl",
                       help="the labels file to write (created, or resumed where it stopped)")
    label.add_argument("--metric", action="append", metavar="METRIC",
                       help="a metric to label (repeatable; default: every metric of the results a person "
                            "can label: faithfulness, context_relevance, answer_relevance, liverag's, coverage)")
    label.add_argument("--strata", action="store_true", default=None,
                       help="a stratified design: label more items where the judge is unsure (by its score "
                            "on the first metric)")
    label.add_argument("--design", choices=("uniform", "stratified", "active"), default=None,
                       help="how the items are drawn: uniform (default), stratified (as --strata) or active "
                            "(the next item drawn with a probability growing with the judge's uncertainty on it)")
    label.add_argument("--target-width", type=float, default=None, metavar="W",
                       help="after each label, say about how many labels in all would give an interval of +-W "
                            "on the first metric")
    label.add_argument("--seed", type=int, default=None,
                       help="the order's seed (default: a random one, recorded in LABELS)")
    label.add_argument("--show-judge", action="store_true",
                       help="show the judge's verdicts, evidence and scores before each label, not after it "
                            "(recorded on each label as judge_shown; estimate warns: such labels tend to copy "
                            "the judge's errors)")
    label.add_argument("--terminal", action="store_true", help="label in the terminal instead of a browser page")
    label.add_argument("--no-browser", action="store_true", help="print the page's URL without opening a browser")
    label.add_argument("--port", type=int, default=0, help="the page's port on 127.0.0.1 (default: a free one)")


def label_command(args: argparse.Namespace) -> int:
    from ..labelling.errors import LabellingError
    from ..labelling.scales import ScaleError
    from ..labelling.session import start_session

    metrics = [name.strip() for value in args.metric or [] for name in value.split(",") if name.strip()] or None
    if args.design is not None and args.strata and args.design != "stratified":
        print(f"judgegraph: --strata is --design stratified; it cannot go with --design {args.design}", file=sys.stderr)
        return EXIT_USAGE
    if args.target_width is not None and not 0 < args.target_width < float("inf"):
        print("judgegraph: --target-width: give a half width > 0 on the metric's scale (e.g. 0.05)", file=sys.stderr)
        return EXIT_USAGE
    try:
        session = start_session(args.results, args.labels, metrics=metrics, stratified=args.strata, seed=args.seed,
                                kind=args.design, show_judge=args.show_judge)
        session.target_width = args.target_width
    except (LabellingError, ScaleError) as error:
        print(f"judgegraph: {error}", file=sys.stderr)
        return EXIT_USAGE
    if session.log.repaired_tail:
        print(f"judgegraph: {args.labels}: dropped a cut-off last line (a label being written when the last "
              "session ended)", file=sys.stderr)
    design = session.design.header
    print(f"judgegraph: labelling {', '.join(design['metrics'])} of {session.n_items:,} items "
          f"({design['kind']} design, seed {design['seed']}); {session.labelled} labelled, "
          f"{session.skipped} skipped so far"
          + ("; the judge is shown before each label (recorded as judge_shown)" if args.show_judge else
             "; the judge's verdicts and scores are shown after each label"), file=sys.stderr)
    try:
        with session:
            if args.terminal:
                return _terminal(session)
            return _serve(session, args)
    except KeyboardInterrupt:
        pass
    print(f"judgegraph: stopped; {session.labelled} labels in {args.labels}", file=sys.stderr)
    return EXIT_OK


def _terminal(session) -> int:
    from rich.console import Console
    from rich.text import Text

    from ..labelling.terminal import run_terminal

    console = Console(highlight=False)
    run_terminal(session, console, lambda prompt: console.input(Text(prompt)))
    print(f"judgegraph: {session.labelled} labels in {session.log.path}", file=sys.stderr)
    return EXIT_OK


def _serve(session, args: argparse.Namespace) -> int:
    from ..labelling.server import LabellingServer

    try:
        server = LabellingServer(session, args.port)
    except OSError as error:
        print(f"judgegraph: cannot serve on 127.0.0.1:{args.port}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    with server:
        print(server.url, flush=True)
        print("judgegraph: the labelling page is at the URL above; Ctrl-C stops (every label is already saved)",
              file=sys.stderr, flush=True)
        if not args.no_browser:
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
    return EXIT_OK
