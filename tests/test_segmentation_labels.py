"""Segmentation.node_labels's vectorised path for disjoint roots gives what the ranked
loop gives (the loop, as written before the shortcut, is the reference here)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import sample_page
from webseg.parse import parse
from webseg.segmentation import UNASSIGNED, Segment, Segmentation

HTML = ("<html><body><div><h1>Title</h1><p>One <b>two</b> three</p></div>"
        "<ul><li>a</li><li>b <i>c</i></li><li>d</li></ul><div><p>x</p><p>y</p></div>"
        "<table><tr><td>1</td><td>2</td></tr></table><p>end</p></body></html>")


def reference(seg, level=None):
    page = seg.page
    labels = np.full(page.n, UNASSIGNED, dtype=np.int64)
    rank = np.full(page.n, -1, dtype=np.int64)
    limit = level if level is not None else np.inf
    for s in sorted(seg.segments, key=lambda s: s.level):
        if s.level > limit:
            continue
        for r in s.nodes:
            key = s.level * 100_000 + int(page.depth[r])
            sl = slice(r, int(page.subtree_end[r]))
            better = rank[sl] <= key
            labels[sl][better] = s.id
            rank[sl][better] = key
    return labels


PAGE = parse(HTML.encode())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, PAGE.n - 1), min_size=1, max_size=4),
                max_size=8),
       st.lists(st.integers(-1, 7), max_size=8), st.sampled_from([None, 1, 2, 3]))
def test_random_segmentations_match_the_loop(groups, parents, level):
    segs = []
    for k, nodes in enumerate(groups):
        p = parents[k] if k < len(parents) else -1
        segs.append(Segment(k, tuple(sorted(set(nodes))), parent=p if 0 <= p < k else None))
    seg = Segmentation(PAGE, segs)
    assert seg.node_labels(level).tolist() == reference(seg, level).tolist()


def test_disjoint_flat_and_nested_pages():
    p = sample_page()
    flat = Segmentation(p, [Segment(0, (6,)), Segment(1, (8, 10)), Segment(2, (12,))])
    assert flat.node_labels().tolist() == reference(flat).tolist()
    nested = Segmentation(p, [Segment(0, (4,)), Segment(1, (5,))])
    assert nested.node_labels().tolist() == reference(nested).tolist()
    empty = Segmentation(p, [])
    assert (empty.node_labels() == UNASSIGNED).all()
