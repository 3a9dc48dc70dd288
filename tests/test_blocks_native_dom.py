"""The compiled DOM passes of the block features (``treewalk.or_down`` and
``treewalk.nearest``) give what their Python loops give, and refuse a parent array that is
not one tree in pre-order."""

from __future__ import annotations

import numpy as np
import pytest

from webseg import _native as native
from webseg.blocks.features import _ancestor_or_self_bits, _nearest_block


def _walk():
    walk = native.load("treewalk")
    if walk is None or not hasattr(walk, "or_down"):
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return walk


def _random_tree(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parent = np.full(n, -1, dtype=np.int32)
    for i in range(1, n):  # any earlier node: one tree in pre-order
        parent[i] = rng.integers(max(0, i - 6), i)
    return parent


@pytest.mark.parametrize("n", [0, 1, 2, 7, 500])
def test_compiled_and_python_passes_agree(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _walk()
    rng = np.random.default_rng(n)
    parent = _random_tree(n, n)
    bits = rng.integers(0, 2**62, size=n, dtype=np.int64) & rng.integers(0, 2, size=n) * -1
    flag = rng.random(n) < 0.3
    got = (_ancestor_or_self_bits(bits, parent), _nearest_block(parent, flag))
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    want = (_ancestor_or_self_bits(bits, parent), _nearest_block(parent, flag))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype == np.int64 and np.array_equal(g, w)


@pytest.mark.parametrize("parent", [[-1, 1], [-1, 0, 5], [-1, -1]])
def test_a_parent_not_before_its_node_is_refused(parent: list[int]) -> None:
    walk = _walk()
    par = np.array(parent, dtype=np.int64)
    out = np.empty(len(par), dtype=np.int64)
    with pytest.raises(ValueError, match="not before it"):
        walk.or_down(np.zeros(len(par), dtype=np.int64), par, out)
    with pytest.raises(ValueError, match="not before it"):
        walk.nearest(par, np.zeros(len(par), dtype=bool), out)
    with pytest.raises(ValueError, match="expected"):
        walk.nearest(par, np.zeros(len(par) + 1, dtype=bool), out)
