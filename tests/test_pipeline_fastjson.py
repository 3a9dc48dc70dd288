"""The journal's and the shards' JSON (orjson when installed) gives back exactly what the standard
module does."""

from __future__ import annotations

import gc
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.fastjson import dumps_line, loads
from webseg.pipeline.run import page_phase_gc

_SCALARS = (st.none() | st.booleans() | st.integers(-(2 ** 63), 2 ** 64 - 1)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text())
_VALUES = st.recursive(_SCALARS, lambda kids: st.lists(kids, max_size=4)
                       | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_round_trip_equals_standard_json(obj):
    line = dumps_line(obj)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    ref = json.loads(json.dumps(obj, ensure_ascii=False))
    assert loads(line) == ref
    assert json.loads(line) == ref  # a line any JSON reader takes
    assert loads(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) == ref


def test_what_orjson_refuses_goes_through_json():
    big = {"n": 2 ** 70, 1: "int key", "s": "ü 北京"}
    assert loads(dumps_line(big)) == json.loads(json.dumps(big))
    got = loads('{"x": NaN}')  # a line the standard module wrote
    assert math.isnan(got["x"])
    with pytest.raises(ValueError):
        loads(b'{"torn": ')


def test_page_phase_gc_restores_thresholds():
    before = gc.get_threshold()
    with page_phase_gc():
        assert gc.get_threshold()[0] >= 50_000
    assert gc.get_threshold() == before
