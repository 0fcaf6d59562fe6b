"""judgegraph's version, as every results file's provenance and every fitted profile records it.

Why here, in the lowest layer: the batch's provenance (`batch/provenance.py`) and
`judgegraph calibrate` (`commands/calibrate.py`) record it, and the root package, which names it
`judgegraph.__version__`, sits above every folder (its `judgegraph.evaluate` & co. load the
graph). pyproject reads the version from this file.
"""

__version__ = "0.1.0"
