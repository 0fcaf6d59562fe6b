"""`local_model.prompt_logits`: a prompt batch asks llama.cpp for its last row of logits only,
and every row a reply's log-probabilities read (the prompt's last token on) is the row
llama-cpp-python's own `Llama.eval` keeps."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
llama = pytest.importorskip("llama_cpp.llama")

from judgegraph.local_model.prompt_logits import install, last_row_eval  # noqa: E402

VOCABULARY = 50


def logits_at(position: int) -> np.ndarray:
    return np.arange(VOCABULARY, dtype=np.float32) * 0.01 + position


class FakeContext:
    """llama.cpp's context: `decode` computes the marked rows of a batch, `get_logits` hands
    them over packed, as llama.cpp does (only the rows marked for output)."""

    def __init__(self) -> None:
        self.outputs = np.zeros(0, dtype=np.float32)
        self.rows_computed = 0

    def kv_cache_seq_rm(self, *args) -> None:
        pass

    def decode(self, batch: FakeBatch) -> None:
        rows = [logits_at(batch.positions[i]) for i in range(len(batch.tokens)) if batch.marked[i]]
        self.rows_computed += len(rows)
        self.outputs = np.concatenate(rows).astype(np.float32)

    def get_logits(self):
        return np.ctypeslib.as_ctypes(self.outputs)


class FakeBatch:
    """`_LlamaBatch.set_batch`: every token marked when `logits_all`, the last one always."""

    def set_batch(self, batch, n_past: int, logits_all: bool) -> None:
        self.tokens = list(batch)
        self.positions = [n_past + i for i in range(len(batch))]
        self.marked = [logits_all] * len(batch)
        self.marked[-1] = True


class FakeLlama:
    def __init__(self, n_batch: int) -> None:
        self._ctx = FakeContext()
        self._batch = FakeBatch()
        self._logits_all = True
        self._n_vocab = VOCABULARY
        self.n_batch = n_batch
        self.n_tokens = 0
        self.input_ids = np.zeros(64, dtype=np.intc)
        self.scores = np.zeros((64, VOCABULARY), dtype=np.float32)
        self._requires_eval = True


def run(eval_function, prompt: int, generated: int, n_batch: int) -> FakeLlama:
    model = FakeLlama(n_batch)
    eval_function(model, list(range(100, 100 + prompt)))
    for token in range(generated):  # generation: one token per eval
        eval_function(model, [200 + token])
    return model


@pytest.mark.parametrize(("prompt", "n_batch"), [(7, 512), (23, 8), (16, 8), (1, 512)])
def test_the_rows_a_reply_reads_are_the_originals(prompt, n_batch):
    generated = 5
    original = run(llama.Llama.eval, prompt, generated, n_batch)
    patched = run(last_row_eval, prompt, generated, n_batch)
    first_read = prompt - 1  # `_create_completion`: token_offset = len(prompt_tokens[1:])
    end = prompt + generated
    assert np.array_equal(patched.scores[first_read:end], original.scores[first_read:end])
    assert np.array_equal(patched.input_ids, original.input_ids)
    assert patched.n_tokens == original.n_tokens == end


def test_a_prompt_batch_computes_one_row_not_one_per_token():
    original = run(llama.Llama.eval, 23, 0, 8)
    patched = run(last_row_eval, 23, 0, 8)
    assert original._ctx.rows_computed == 23
    assert patched._ctx.rows_computed == 3  # one per batch of 8, 8, 7 tokens


def test_install_replaces_eval(monkeypatch):
    monkeypatch.setattr(llama.Llama, "eval", llama.Llama.eval)  # restored after the test
    install()
    assert llama.Llama.eval is last_row_eval
    install()
    assert llama.Llama.eval is last_row_eval
