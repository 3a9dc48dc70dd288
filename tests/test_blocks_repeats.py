"""Repeated text (a print layer, a second copy of the article) is kept once."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webseg.blocks.align import words
from webseg.blocks.repeats import drop_repeated

PARA = "Justyna Żurowska nie jest już koszykarką Lotosu, wyjaśnił generalny menedżer klubu."


def test_second_copy_dropped_whitespace_and_case_ignored():
    texts = ["Menu", PARA, "Czytaj również", PARA.replace(" ", "\xa0").upper(), "Menu"]
    keep = np.ones(len(texts), dtype=bool)
    out = drop_repeated([words(x) for x in texts], keep)
    assert out.tolist() == [True, True, True, False, True]  # short "Menu" repeats stay
    assert keep.all()  # the input is not changed


def test_only_kept_leaves_count():
    texts = [PARA, PARA, PARA]
    out = drop_repeated([words(x) for x in texts], np.array([False, True, True]))
    assert out.tolist() == [False, True, False]


def test_unspaced_letters_are_words():
    zh = "北京是中华人民共和国的首都也是全国的政治中心"
    out = drop_repeated([words(zh), words(zh)], np.array([True, True]))
    assert out.tolist() == [True, False]


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="token lists"):
        drop_repeated([["a"]], np.array([True, True]))


@given(st.lists(st.tuples(st.lists(st.sampled_from("ab"), max_size=3), st.booleans()),
                max_size=12), st.integers(0, 3))
def test_against_brute_force(leaves, min_tokens):
    toks = [t for t, _ in leaves]
    keep = np.array([k for _, k in leaves], dtype=bool)
    out = drop_repeated(toks, keep, min_tokens)
    for i in range(len(toks)):
        earlier = any(keep[j] and toks[j] == toks[i] for j in range(i))
        want = keep[i] and not (len(toks[i]) >= min_tokens and earlier)
        assert out[i] == want


def test_print_layer_copy_is_kept_once():
    """End to end: an article and its print-only copy (``id="print-layer"``, shown only by a
    print style sheet the parser does not apply) give the article's text once."""
    from webseg.blocks import block_functions
    from webseg.parse import parse

    paras = [f"Paragraph {i}: the minister said on Tuesday that the new railway line would "
             f"open in spring, after years of delays and a budget that doubled. {PARA}"
             for i in range(6)]
    body = "".join(f"<p>{p}</p>" for p in paras)
    html = (f"<html><head><title>Railway</title></head><body><nav><a href='/'>Home</a>"
            f"<a href='/news'>News</a></nav><article><h1>Railway line opens</h1>{body}"
            f"</article><div id='print-layer' class='disabled'><h2>Railway line opens</h2>"
            f"{body}</div><footer>Contact</footer></body></html>")
    page = parse(html)
    bf = block_functions(page)
    kept = [page.text[j] for j in page.text_leaves[bf.keep[page.text_leaves]]]
    assert sum(PARA in t for t in kept) == 6  # once per paragraph, not twice
