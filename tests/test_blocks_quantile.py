"""The block model's quantile of sorted scores is numpy's ``np.quantile``, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from webseg.blocks.context import sorted_quantile


@pytest.mark.parametrize("n", [1, 2, 3, 9, 10, 11, 57, 325, 2644])
def test_sorted_quantile_is_numpys(n: int) -> None:
    rng = np.random.default_rng(n)
    for kind in range(4):
        v = [rng.random(n), np.round(rng.random(n), 2),
             1 / (1 + np.exp(-5 * rng.normal(size=n))),
             rng.choice([0.0, 1e-300, 0.5, 1.0, 1 - 1e-16], size=n)][kind]
        s = np.sort(v)
        for q in (0.0, 0.1, 0.5, 0.9, 1.0):
            want = np.quantile(v, q)
            got = sorted_quantile(s, q)
            assert got == want and np.signbit(got) == np.signbit(want)
        assert [sorted_quantile(s, 0.5), sorted_quantile(s, 0.9)] == \
            np.quantile(v, (0.5, 0.9)).tolist()


def test_nan_takes_numpys_path() -> None:
    assert np.isnan(sorted_quantile(np.sort(np.array([0.3, np.nan, 0.1])), 0.9))
