"""`local_model.fast_logprobs`: the top-k shortcut must give exactly what llama-cpp-python's
`sorted(zip(row, range(len(row))), reverse=True)` gives for the entries it uses, and leave
every other `zip` / `sorted` call alone."""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from judgegraph.local_model.fast_logprobs import TOP_K, fast_sorted, fast_zip, install  # noqa: E402

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


def test_install_patches_only_the_llama_module(monkeypatch):
    if find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    import builtins

    import llama_cpp.llama as llama_module

    monkeypatch.setattr(llama_module, "zip", builtins.zip, raising=False)
    monkeypatch.setattr(llama_module, "sorted", builtins.sorted, raising=False)
    install()
    assert llama_module.zip is fast_zip and llama_module.sorted is fast_sorted
    assert builtins.zip is not fast_zip and builtins.sorted is not fast_sorted
