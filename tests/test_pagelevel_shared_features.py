"""PageLevel's node features are computed once per page when the block model already has them."""

from __future__ import annotations

import numpy as np

from webseg.blocks import block_functions
from webseg.parse import parse
from webseg.templates.features import SHARED_ATTR, _node_features, node_features

ARTICLE = """<html><head><title>Harbour news</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="http://other.example/">Elsewhere</a></nav>
<article><h1>Harbour news</h1><p>{body}</p><p>{body} Second paragraph.</p></article>
<footer>Contact us</footer></body></html>"""


def test_block_model_shares_the_features_pagelevel_would_compute() -> None:
    page = parse(ARTICLE.format(body="The ferry timetable changes this winter, says the port."),
                 url="http://news.example/ferry")
    block_functions(page)
    assert SHARED_ATTR in page.__dict__
    shared = node_features(page)
    assert not shared.flags.writeable  # one array, read by both
    assert np.array_equal(shared, _node_features(page), equal_nan=True)


def test_another_url_or_an_unspaced_script_computes_them_again() -> None:
    page = parse(ARTICLE.format(body="The ferry timetable changes this winter."),
                 url="http://news.example/ferry")
    block_functions(page)
    page.url = "http://other.example/ferry"  # intra-site links depend on the URL
    again = node_features(page)
    assert again.flags.writeable
    assert np.array_equal(again, _node_features(page), equal_nan=True)

    zh = parse(ARTICLE.format(body="渡轮时刻表今年冬天将会改变。"), url="http://news.example/zh")
    block_functions(zh)  # the block model counts each Han letter as a word, PageLevel does not
    assert SHARED_ATTR not in zh.__dict__
