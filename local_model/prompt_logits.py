"""Make llama-cpp-python's server compute a prompt's logits for its last token only.

Why: log-probabilities of a reply need `logits_all=True` in llama-cpp-python 0.3.x (it refuses
`logprobs` otherwise), and its server turns that on. Then `Llama.eval` asks llama.cpp for the
logits of *every* prompt token and copies each row (a vocabulary wide: 151,936 floats on the
embedded judge) into the `scores` array. A reply's log-probabilities only ever read the rows
from the prompt's last token on (`_create_completion`: `token_offset = len(prompt_tokens[1:])`
without `echo`, which judgegraph never sends); every other prompt row is computed, copied and
never read. The output layer of a small model with a large vocabulary is a real share of the
prompt's compute, and the prompt is most of an item's time on CPU.

`install()` replaces `Llama.eval` by the same loop that, for a batch of several tokens, marks only
the batch's last token for logits (what llama.cpp does with `logits_all=False`) and copies that
one row; a one-token batch (each generated token) is unchanged. The rows a reply reads are
therefore the same numbers as before. It runs only inside judgegraph's own server child process
(`local_model.server`), like `fast_logprobs`.
"""

from __future__ import annotations

from typing import Any


def last_row_eval(self: Any, tokens: Any) -> None:
    """`Llama.eval` (llama-cpp-python 0.3.x) computing and keeping a multi-token batch's last row only."""
    import numpy as np

    self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
    for start in range(0, len(tokens), self.n_batch):
        batch = tokens[start : min(len(tokens), start + self.n_batch)]
        n_past = self.n_tokens
        n_tokens = len(batch)
        every_row = self._logits_all and n_tokens == 1
        self._batch.set_batch(batch=batch, n_past=n_past, logits_all=every_row)
        self._ctx.decode(self._batch)
        self.input_ids[n_past : n_past + n_tokens] = batch
        if self._logits_all:
            cols = self._n_vocab
            row = np.ctypeslib.as_array(self._ctx.get_logits(), shape=(cols,))
            self.scores[n_past + n_tokens - 1, :] = row
        self.n_tokens += n_tokens
        self._requires_eval = False


def install() -> None:
    """Replace `llama_cpp.llama.Llama.eval` (see the module docstring); idempotent."""
    import llama_cpp.llama as llama_module

    llama_module.Llama.eval = last_row_eval  # type: ignore[method-assign]
