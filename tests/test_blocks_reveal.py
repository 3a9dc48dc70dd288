"""webseg.blocks.reveal: pages captured before their content showed."""

from __future__ import annotations

import numpy as np

from tests.helpers import news_page
from webseg.blocks import block_functions
from webseg.blocks.reveal import laid_out, revealed
from webseg.clean import extract
from webseg.parse import parse

STORY = ("Workers closed the old bridge on Monday to replace its rusted beams, and the city "
         "expects the repairs to last until the end of the summer season. ") * 3


def hidden_story(box_of_wrapper=(100, 150, 800, 800)):
    """news_page with the story div (node 9) and its subtree hidden, with a given box."""
    p = news_page(para1=STORY, para2=STORY)
    vis = p.visible.copy()
    vis[9:16] = False
    p.visible = vis
    p.box[9] = box_of_wrapper
    return p


def test_hidden_but_laid_out_content_is_revealed():
    p = hidden_story()
    assert STORY.split()[0] not in " ".join(p.text[j] for j in p.text_leaves)
    q = revealed(p)
    assert q is not p and q.n == p.n and len(q.text_leaves) > len(p.text_leaves)
    assert np.array_equal(q.visible[9:16], [True] * 7) and not p.visible[9:16].any()
    assert revealed(q) is q  # idempotent: nothing left to reveal
    # the block model and the clean result see the revealed page
    res = extract(p, "blocks")
    assert "rusted beams" in res.text
    assert len(res.leaf_keep) == len(res.page.text_leaves)
    assert block_functions(p).page is not p


def test_removed_from_layout_stays_hidden():
    p = hidden_story(box_of_wrapper=(0, 0, 0, 0))  # display: none - no box
    p.box[10:16] = 0
    assert not laid_out(p)[9:16].any()
    assert revealed(p) is p


def test_mostly_visible_page_is_unchanged():
    p = news_page(para1=STORY, para2=STORY)
    vis = p.visible.copy()
    vis[2:9] = False  # the nav links hidden (a small share of the text)
    p.visible = vis
    assert revealed(p) is p


def test_parsed_pages():
    body = f"<p>{STORY}</p><p>{STORY}</p>"
    hid = parse(f"<html><body><div style='visibility:hidden'>{body}</div></body></html>")
    q = revealed(hid)
    assert q is not hid and "rusted" in " ".join(q.text[j] for j in q.text_leaves)
    # parsed pages keep no style: with any visible text, nothing is revealed
    menu = parse(f"<html><body><p>Menu</p><div style='visibility:hidden'>{body}</div>"
                 "</body></html>")
    assert revealed(menu) is menu
    # parsed pages keep no style: a page mostly visible stays as it is
    menu = "<p>Home</p><p>About</p>"
    small = parse(f"<html><body>{body}<div style='display: none'>{menu}</div>"
                  "<script>var x = 1;</script></body></html>")
    assert revealed(small) is small
    assert revealed(parse("")).n == parse("").n


def test_react_streamed_segments_are_revealed():
    article = f"<article><p>{STORY}</p><p>{STORY}</p></article>"
    html = ("<html><body><header><p>Site name and a long navigation menu text</p></header>"
            "<main><p>Loading...</p></main><footer><p>Copyright notice text</p></footer>"
            f"<div hidden id='S:0'>{article}<script>var x = 1;</script></div>"
            f"<div hidden id='other'>{article}</div></body></html>")
    p = parse(html)
    q = revealed(p)
    assert q is not p
    shown = " ".join(q.text[j] for j in q.text_leaves)
    assert shown.count("rusted beams") == 6  # the segment's two paragraphs, not the other div
    assert "var x" not in shown
    assert len(q.text_leaves) == len(p.text_leaves) + 2
