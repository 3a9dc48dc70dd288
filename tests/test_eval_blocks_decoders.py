"""eval.blocks.decoders: decoder variants on saved scores decode as the shipped code does."""

from __future__ import annotations

import numpy as np

from eval.blocks.decoders import VARIANTS, page_tokens, part_of
from webseg.blocks.features import FEATURE_NAMES
from webseg.blocks.train import PageTable, page_f1


def _table() -> PageTable:
    """One page of four leaves: an article paragraph, a comment at the edge of the
    threshold, the paragraph again under print markup, a sure comment."""
    para = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    leaves = [para, [9, 10], para, [11, 12]]
    X = np.zeros((4, len(FEATURE_NAMES)), dtype=np.float32)
    X[[1, 3], FEATURE_NAMES.index("cat_any_comment")] = 1
    X[2, FEATURE_NAMES.index("cat_any_share")] = 1
    ids = np.array([t for lf in leaves for t in lf])
    toff = np.concatenate([[0], np.cumsum([len(lf) for lf in leaves])])
    gold = np.bincount(np.array(para + [11, 12]), minlength=13)
    return PageTable(X=X, y=np.array([1, 0, 0, 1], dtype=np.int8),
                     words=np.array([9, 2, 9, 2], dtype=np.float32),
                     chars=np.array([50, 10, 50, 10], dtype=np.float32),
                     ranges=np.zeros((4, 8, 2), np.int32), off=np.array([0, 4]),
                     meta=[{"dataset": "d", "id": "1", "variant": "rendered", "site": "s"}],
                     tok_ids=[ids], tok_off=[toff], gold_counts=[gold],
                     gold_unmatched=np.zeros(1, dtype=np.int64))


def test_variants_on_one_page():
    t = _table()
    s = np.array([0.9, 0.45, 0.9, 0.95])
    keep = s >= 0.4
    assert VARIANTS["base"](t, 0, s, keep, 0.4).tolist() == [True, True, True, True]
    assert VARIANTS["repeats-8-share-hidden"](t, 0, s, keep, 0.4).tolist() == [
        True, True, False, True]
    both = VARIANTS["copies+comment-margin-0.2"](t, 0, s, keep, 0.4)
    assert both.tolist() == [True, False, False, True]
    assert page_f1(t, 0, both)[2] == 1.0 and page_f1(t, 0, keep)[2] < 1.0
    assert len(page_tokens(t, 0)) == 4


def test_parts_are_fixed_by_site():
    parts = [part_of(f"site{i}.example") for i in range(500)]
    assert parts == [part_of(f"site{i}.example") for i in range(500)]
    assert 0.1 < parts.count("holdout") / 500 < 0.3
