"""`local_model.fast_logprobs`: the top-k shortcut must give exactly what llama-cpp-python's
`sorted(zip(row, range(len(row))), reverse=True)` gives for the entries it uses, and leave
every other `zip` / `sorted` call alone."""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from judgegraph.local_model.fast_logprobs import (  # noqa: E402
    TOP_K,
    RowWiseLogprobs,
    fast_sorted,
    fast_zip,
    install,
    row_wise,
)

VOCABULARY = 151_936
"""Qwen2.5's vocabulary: the row length the local server sorts for every generated token."""


@pytest.fixture(scope="module")
def row():
    """Log-probabilities of one token over the vocabulary, with ties at the top and below."""
    generator = np.random.default_rng(941)
    values = generator.normal(-12.0, 3.0, VOCABULARY).astype(np.float32)
    top = float(values.max())
    values[[5, 77, 150_000]] = np.float32(top + 2.0)   # a three-way tie for first place
    values[[9, 10]] = np.float32(top + 1.0)            # a tie inside the top 20
    values[generator.integers(0, VOCABULARY, 40)] = np.float32(-30.0)  # ties far below the cut
    return values


def test_top_entries_equal_the_builtin_sort(row):
    expected = sorted(zip(row, range(len(row))), reverse=True)[:20]
    got = fast_sorted(fast_zip(row, range(len(row))), reverse=True)[:20]
    assert got == expected
    assert [index for _, index in got[:3]] == [150_000, 77, 5]  # ties: higher index first, as the builtin
    assert all(type(index) is int for _, index in got)


def test_the_whole_fast_list_is_the_builtins_prefix(row):
    got = fast_sorted(fast_zip(row, range(len(row))), reverse=True)
    assert len(got) == TOP_K >= 20
    assert got == sorted(zip(row, range(len(row))), reverse=True)[:TOP_K]


@pytest.mark.parametrize("tied", [5000, 100], ids=["all-equal", "tie-across-the-cut"])
def test_a_tie_group_straddling_the_cut(tied):
    row = np.random.default_rng(2).normal(-20.0, 1.0, 5000).astype(np.float32)
    row[:tied] = np.float32(0.0)
    row[4990:4995] = np.float32(1.0)   # five entries above the tie group: it spans ranks 6..tied+5
    assert fast_sorted(fast_zip(row, range(len(row))), reverse=True)[:20] == sorted(
        zip(row, range(len(row))), reverse=True)[:20]


@pytest.mark.parametrize(
    "make",
    [
        lambda r: ([3, 1, 2], [9, 8, 7]),                      # plain lists
        lambda r: (r[:100], range(100)),                      # a short row: not a vocabulary
        lambda r: (r, range(1, len(r) + 1)),                  # a range that does not start at 0
        lambda r: (r, range(0, 2 * len(r), 2)),               # a range with a step
        lambda r: (r.tolist(), range(len(r))),                # a list, as in llama-cpp's streaming path
        lambda r: (r.reshape(2, -1), range(2)),               # not 1-D
    ],
    ids=["lists", "short-row", "offset-range", "stepped-range", "python-list", "2-d"],
)
def test_other_zips_pass_through(row, make):
    args = make(row)
    zipped = fast_zip(*args)
    assert type(zipped) is zip
    first = next(fast_zip(*args))
    expected = next(zip(*args))
    assert first[1] == expected[1] and np.array_equal(np.asarray(first[0]), np.asarray(expected[0]))


def test_zip_keywords_pass_through(row):
    with pytest.raises(ValueError):
        list(fast_zip([1, 2], [1], strict=True))
    assert list(fast_zip(row, range(len(row)), strict=True))[:3] == list(zip(row, range(3)))


def test_other_sorts_pass_through(row):
    assert fast_sorted([3, 1, 2]) == [1, 2, 3]
    assert fast_sorted([3, 1, 2], reverse=True) == [3, 2, 1]
    assert fast_sorted(["bb", "a", "ccc"], key=len) == ["a", "bb", "ccc"]
    assert fast_sorted(iter([2, 1])) == [1, 2]


def test_a_vocabulary_zip_sorted_any_other_way_is_sorted_in_full():
    small = np.random.default_rng(1).normal(size=5000).astype(np.float32)
    ascending = fast_sorted(fast_zip(small, range(len(small))))
    assert ascending == sorted(zip(small, range(len(small))))
    by_index = fast_sorted(fast_zip(small, range(len(small))), key=lambda pair: -pair[1], reverse=True)
    assert len(by_index) == 5000 and by_index[0][1] == 0
    assert list(fast_zip(small, range(len(small))))[:2] == list(zip(small, range(2)))


def _llama_source() -> str | None:
    spec = find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "llama.py"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_llama_cpp_still_uses_the_pattern_the_shortcut_answers():
    source = _llama_source()
    if source is None:
        pytest.skip("llama-cpp-python is not installed")
    pattern = re.compile(r"sorted\(\s*zip\((\w+), range\(len\(\1\)\)\),\s*reverse=True\s*,?\s*\)")
    assert pattern.search(source), "llama_cpp/llama.py no longer sorts (logprob, index) pairs this way"


def _log_softmax(logits, axis=-1):
    """llama-cpp-python's `Llama.logits_to_logprobs`, copied so the test runs without it."""
    maxs = np.amax(logits, axis=axis, keepdims=True)
    if maxs.ndim > 0:
        maxs[~np.isfinite(maxs)] = 0
    elif not np.isfinite(maxs):
        maxs = 0
    shifted = np.subtract(logits, maxs, dtype=np.single)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return shifted - out


@pytest.fixture(scope="module")
def scores():
    """A context's logits: 60 rows (prompt and reply) of a 6,000-token vocabulary, one masked row."""
    values = np.random.default_rng(7).normal(0.0, 4.0, (60, 6000)).astype(np.single)
    values[41, :3000] = -np.inf
    return values


def test_sliced_rows_equal_the_whole_log_softmax_sliced(scores):
    fast = row_wise(_log_softmax)
    got = fast(scores)[45:]
    assert isinstance(got, np.ndarray) and got.shape == (15, 6000)
    assert np.array_equal(got, _log_softmax(scores)[45:])
    assert np.array_equal(fast(scores)[40:50], _log_softmax(scores)[40:50])  # the masked row too


def test_any_other_use_is_the_whole_array(scores):
    fast = row_wise(_log_softmax)
    whole = _log_softmax(scores)
    assert np.array_equal(np.asarray(fast(scores)), whole)
    assert np.array_equal(fast(scores)[3], whole[3])
    assert np.array_equal(fast(scores)[3, 7], whole[3, 7])
    assert len(fast(scores)) == 60 and fast(scores).shape == (60, 6000)
    assert np.array_equal(np.stack(list(fast(scores))), whole)
    assert np.array_equal(fast(scores[0]), _log_softmax(scores[0]))       # a 1-D row: computed at once
    assert np.array_equal(fast(scores, axis=0), _log_softmax(scores, axis=0))
    assert not isinstance(fast(scores[0]), RowWiseLogprobs)


def test_only_the_sliced_rows_are_computed(scores):
    seen = []
    fast = row_wise(lambda logits, axis=-1: seen.append(logits.shape) or _log_softmax(logits, axis))
    fast(scores)[50:]
    assert seen == [(10, 6000)]


def test_llama_cpp_still_slices_the_whole_context_log_softmax():
    source = _llama_source()
    if source is None:
        pytest.skip("llama-cpp-python is not installed")
    assert "Llama.logits_to_logprobs(self._scores)[token_offset:]" in source


def test_install_makes_the_llama_log_softmax_row_wise_once(monkeypatch, scores):
    if find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    import llama_cpp.llama as llama_module

    original = llama_module.Llama.__dict__["logits_to_logprobs"]
    monkeypatch.setattr(llama_module.Llama, "logits_to_logprobs", original)
    install()
    install()
    patched = llama_module.Llama.logits_to_logprobs
    assert patched.wrapped is original.__func__
    assert np.array_equal(patched(scores)[30:], original.__func__(scores)[30:])
    assert np.array_equal(patched(scores[0]), original.__func__(scores[0]))


def test_install_patches_only_the_llama_module(monkeypatch):
    if find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    import builtins

    import llama_cpp.llama as llama_module

    monkeypatch.setattr(llama_module.Llama, "logits_to_logprobs", llama_module.Llama.__dict__["logits_to_logprobs"])
    monkeypatch.setattr(llama_module, "zip", builtins.zip, raising=False)
    monkeypatch.setattr(llama_module, "sorted", builtins.sorted, raising=False)
    install()
    assert llama_module.zip is fast_zip and llama_module.sorted is fast_sorted
    assert builtins.zip is not fast_zip and builtins.sorted is not fast_sorted
