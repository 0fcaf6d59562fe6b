"""judgegraph's version, in a module of its own: the modules that stamp it (a batch's provenance,
a calibration profile) read it here, never from the package's `__init__`, which lazily loads
those same modules (`judgegraph.evaluate_batch`)."""

__version__ = "0.1.0"
