"""Make llama-cpp-python's server return token log-probabilities in milliseconds, not seconds.

Why: judgegraph reads each verdict's probability from `top_logprobs` (graded verdicts). For
every generated token, llama-cpp-python 0.3.x builds its top-k list with
`sorted(zip(row, range(len(row))), reverse=True)` over the whole 151,936-token vocabulary of
numpy scalars, in Python: more time per token than the model's own work (docs/benchmarks.md
has the profile). Only the
first `logprobs` (<= 20) entries of that sorted list are ever used.

`install()` gives the `llama_cpp.llama` module its own `zip` and `sorted` (module globals
shadow builtins): that exact pattern, a vocabulary-sized 1-D numpy row zipped with its
`range`, sorted in reverse, is answered with the top `TOP_K` entries found by
`numpy.argpartition`, in the same (value, index) form and order; every other call goes to the
builtins unchanged. It runs only inside judgegraph's own server child process
(`local_model.server`); nothing else is affected.

The second cost is once per reply but grows with the prompt: the non-streaming path takes
`Llama.logits_to_logprobs(self._scores)[token_offset:]`, a log-softmax over every row the
context holds (the prompt's, a reused prefix's, and the reply's, each a vocabulary wide) of
which it keeps only the reply's rows. `install()` wraps that static method so a 2-D input
answers lazily: slicing it computes the log-softmax of the sliced rows only, which is row by
row the same arithmetic, so the same numbers; any other use computes the whole array as before.
"""

from __future__ import annotations

import builtins
from typing import Any

TOP_K = 64
"""More than the 20 alternatives OpenAI's API allows, so the slice the server takes is exact."""
_MIN_ROW = 4096
"""Only rows this long (a vocabulary) take the fast path."""


class _VocabularyRow:
    """`zip(row, range(len(row)))` for a vocabulary-sized row, kept lazy until sorted."""

    __slots__ = ("row",)

    def __init__(self, row: Any) -> None:
        self.row = row

    def __iter__(self):
        return builtins.zip(self.row, range(len(self.row)))


def _is_vocabulary_pair(iterables: tuple, kwargs: dict) -> bool:
    import numpy as np

    if len(iterables) != 2 or kwargs:
        return False
    row, indices = iterables
    return (isinstance(row, np.ndarray) and row.ndim == 1 and len(row) >= _MIN_ROW
            and isinstance(indices, range) and len(indices) == len(row) and indices.start == 0
            and indices.step == 1)


def fast_zip(*iterables: Any, **kwargs: Any):
    if _is_vocabulary_pair(iterables, kwargs):
        return _VocabularyRow(iterables[0])
    return builtins.zip(*iterables, **kwargs)


def fast_sorted(iterable: Any, /, *, key: Any = None, reverse: bool = False) -> list:
    if isinstance(iterable, _VocabularyRow) and key is None and reverse:
        import numpy as np

        row = iterable.row
        k = min(TOP_K, len(row))
        cut = row[np.argpartition(row, -k)[-k:]].min()
        top = np.flatnonzero(row >= cut)  # every member of a tie group at the cut, as the builtin sees them
        # the builtin sorts (value, index) tuples in reverse: by value, then by index, descending
        order = np.lexsort((top, row[top]))[::-1][:k]
        return [(row[i], int(i)) for i in top[order]]
    if isinstance(iterable, _VocabularyRow):
        iterable = iter(iterable)
    return builtins.sorted(iterable, key=key, reverse=reverse)


class RowWiseLogprobs:
    """The log-softmax of a 2-D logits array, computed for the rows a slice asks for.

    Stands in for the ndarray `logits_to_logprobs` returns: indexed by a slice it is an ndarray
    of those rows; used any other way (another index, `numpy.asarray`, iteration) it is the
    whole array's log-softmax, computed then."""

    __slots__ = ("logits", "convert")

    def __init__(self, logits: Any, convert: Any) -> None:
        self.logits = logits
        self.convert = convert

    def whole(self) -> Any:
        """The log-softmax of every row, as the unpatched method returns it."""
        return self.convert(self.logits)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return self.convert(self.logits[key])
        return self.whole()[key]

    def __len__(self) -> int:
        return len(self.logits)

    def __iter__(self):
        return iter(self.whole())

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        whole = self.whole()
        return whole if dtype is None else np.asarray(whole, dtype=dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.logits.shape)


def row_wise(convert: Any):
    """`convert` (llama-cpp-python's `logits_to_logprobs`, a log-softmax over the last axis) that
    answers a 2-D ndarray with `axis=-1` lazily (`RowWiseLogprobs`); every other call unchanged."""

    def logits_to_logprobs(logits: Any, axis: int = -1) -> Any:
        import numpy as np

        if isinstance(logits, np.ndarray) and logits.ndim == 2 and axis in (-1, 1):
            return RowWiseLogprobs(logits, convert)
        return convert(logits, axis=axis)

    logits_to_logprobs.wrapped = convert  # type: ignore[attr-defined]
    return logits_to_logprobs


def install() -> None:
    """Patch `llama_cpp.llama`'s module-level `zip` and `sorted`, and make `Llama.logits_to_logprobs`
    row-wise lazy (see the module docstring)."""
    import llama_cpp.llama as llama_module

    llama_module.zip = fast_zip  # type: ignore[attr-defined]
    llama_module.sorted = fast_sorted  # type: ignore[attr-defined]
    current = llama_module.Llama.__dict__["logits_to_logprobs"].__func__
    if not hasattr(current, "wrapped"):  # installing twice must not wrap twice
        llama_module.Llama.logits_to_logprobs = staticmethod(row_wise(current))
