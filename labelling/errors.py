"""The labelling package's one error: a file or an action that cannot be used, said in one line."""


class LabellingError(Exception):
    """A results or labels file that cannot be used, or a label that cannot be saved; one line."""
