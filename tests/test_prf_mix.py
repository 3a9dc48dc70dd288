"""The RM3 / block-PRF expansion mixture of eval.prf.prf_mix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval.prf.prf_mix import mix

weights = st.dictionaries(st.sampled_from("abcdef"), st.floats(0.01, 1.0), max_size=6)


@given(weights, weights, st.floats(0.0, 1.0))
def test_mixture_is_convex(r, b, alpha):
    m = mix(r, b, alpha)
    assert sum(m.values()) == pytest.approx(alpha * sum(r.values())
                                            + (1 - alpha) * sum(b.values()))
    for t, w in m.items():
        assert min(r.get(t, 0.0), b.get(t, 0.0)) - 1e-9 <= w <= max(r.get(t, 0.0),
                                                                     b.get(t, 0.0)) + 1e-9


def test_ends_are_the_two_methods_and_bad_alpha_is_refused():
    r, b = {"a": 0.7, "x": 0.3}, {"a": 0.8, "y": 0.2}
    assert mix(r, b, 1.0) == r and mix(r, b, 0.0) == b
    assert mix(r, b, 0.5) == pytest.approx({"a": 0.75, "x": 0.15, "y": 0.1})
    with pytest.raises(ValueError):
        mix(r, b, 1.5)


def test_block_sweep_refuses_unknown_parameters(tmp_path):
    from eval.prf.block_sweep import sweep

    with pytest.raises(ValueError, match="not a block-PRF parameter"):
        sweep(tmp_path, "no_such_param", [0.0])
