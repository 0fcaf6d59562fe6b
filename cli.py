"""`python cli.py evaluate item.json`: the command line's entry point, the same as the installed
`judgegraph` console script. The commands live in `commands/cli.py` (`judgegraph.commands.cli`);
this file only starts them, so it is never imported as a module and never loads twice."""

import sys

from judgegraph.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
