"""The writers join kept leaves as a browser shows them (webseg.clean.layout, txt, markdown).

Every leaf is kept here: these tests check the writers alone, on parsed pages and on pages of
schema version 1 (no whitespace record); ``tests/test_structure_cases.py`` checks the whole
extraction on articles.
"""

from __future__ import annotations

import numpy as np
import pytest

from webseg.clean import CleanResult
from webseg.clean.layout import clean_chars
from webseg.page import Page
from webseg.parse import PARSERS, parse


def kept_all(html: str, parser: str = "lexbor") -> CleanResult:
    page = parse(html, parser=parser)
    return CleanResult(page=page, leaf_keep=np.ones(len(page.text_leaves), bool), method="all")


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(("html", "text"), [
    ("<p>W<b>orld</b></p>", "World"),
    ("<p>$<span>5.00</span></p>", "$5.00"),
    ("<p>H<sub>2</sub>O and E=mc<sup>2</sup></p>", "H2O and E=mc2"),
    ("<p>Visit <a href=/j>John</a> today.</p>", "Visit John today."),
    ("<p><b>a</b> <i>b</i></p>", "a b"),
    ("<p><b>a</b>\n<i>b</i></p>", "a b"),
    ("<p>a<br>b</p>", "a\nb"),
    ("<p>a<button>b</button>c</p>", "a b c"),
    ("<div>a</div><div>b</div>", "a\nb"),
    ("<p>Donau\u00addampf\u200bschiff\ufeff</p>", "Donaudampfschiff"),
    ("<p>\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645</p>",
     "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"),  # ZWNJ stays
    ("<table><tr><td>a</td><td></td><td>c</td></tr><tr><td>d</td><td>e</td><td>f</td></tr>"
     "</table>", "a\t\tc\nd\te\tf"),
    ("<table><tr><td></td><td>b</td><td></td></tr><tr><td>d</td><td>e</td><td>f</td></tr>"
     "</table>", "\tb\t\nd\te\tf"),  # empty cells at both ends keep their columns
    # paragraphs inside cells (<td><p>) stay in their cells: one row, one line
    ("<table><tr><td><p><strong>Drug</strong></p></td><td><p>Brand</p></td></tr>"
     "<tr><td><p>Semaglutide</p></td><td><p>Wegovy</p><p>Ozempic</p></td></tr></table>",
     "Drug\tBrand\nSemaglutide\tWegovy\n\tOzempic"),
    ("<pre><span>type</span> <span>Query</span> {\n  <span>id</span>\n}</pre>",
     "type Query {\n  id\n}"),
    # no CSS known: two elements side by side are two words when word characters meet
    ("<p><span>2026</span><span>1h 54m</span><span>R</span></p>", "2026 1h 54m R"),
    ("<p><span>$</span><span>5.00</span></p>", "$5.00"),
    # two links side by side are two words; a link inside a word is not
    ("<p><a href='/a'>Apply</a><a href='/b'>Download</a> the W<a href='/w'>orld</a></p>",
     "Apply Download the World"),
])
def test_text_like_inner_text(parser: str, html: str, text: str) -> None:
    assert kept_all(f"<body>{html}</body>", parser).text == text


@pytest.mark.browser
def test_rendered_pages_join_by_what_the_eye_sees(renderer) -> None:  # noqa: ANN001
    """Rendered: computed display and the gap between text boxes decide, not the tags."""
    page = renderer.render(
        b"<body><p>W<b>orld</b> <span style='margin-left:1em'>gap</span>ped</p>"
        b"<p><span>2026</span><span>1h</span></p>"
        b"<div style='display:flex'><span>flex</span><span>items</span></div></body>")
    res = CleanResult(page=page, leaf_keep=np.ones(len(page.text_leaves), bool),
                      method="all")
    assert res.text == "World gapped\n20261h\nflex\nitems"


@pytest.mark.browser
def test_rendered_links_side_by_side_are_two_words(renderer) -> None:  # noqa: ANN001
    """A saved page renders without the site's style sheets, so its buttons touch: two links
    side by side are still two words, a link inside a word and two spans are not."""
    page = renderer.render(
        b"<body><p><a href='/a'>Apply</a><a href='/b'>Download</a> the W<a href='/w'>orld"
        b"</a></p><p><span>2026</span><span>1h</span></p>"
        b"<p><a href='/c'>\xe5\x8c\x97\xe4\xba\xac</a><a href='/d'>\xe5\xa4\xa7\xe5\xad\xa6"
        b"</a></p></body>")
    res = CleanResult(page=page, leaf_keep=np.ones(len(page.text_leaves), bool),
                      method="all")
    assert res.text == "Apply Download the World\n20261h\n\u5317\u4eac\u5927\u5b66"


def test_version_one_pages_separate_inline_leaves() -> None:
    """Without the whitespace record a space goes between leaves, except before a comma."""
    page = parse("<body><p>a<b>b</b><i>,</i> c</p></body>")
    d = page.to_dict()
    d["version"] = 1
    del d["ws_before"]
    old = Page.from_dict(d)
    res = CleanResult(page=old, leaf_keep=np.ones(len(old.text_leaves), bool), method="all")
    assert res.text == "a b, c"


def test_markdown_tables_lists_code_and_inline_marks() -> None:
    md = kept_all(
        "<body><table><tr><th>City</th><th>Pop</th><th>X</th></tr>"
        "<tr><td>Oslo</td><td></td><td>3</td></tr><tr><td colspan=2>wide</td><td>z</td></tr>"
        "<tr><td rowspan=2>R</td><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>"
        "</table><ol><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Veg</li></ol>"
        "<pre class='language-python'><code><span>def</span> <span>f</span>():\n"
        "    <span>return</span> 1</code></pre>"
        "<p>H<sub>2</sub>O, E=mc<sup>2</sup>, <b>bold</b> and <em>it</em>, <code>a_b  c</code>"
        "</p><blockquote><p>q1</p><p>q2</p></blockquote></body>").to_markdown()
    assert ("| City | Pop | X |\n| --- | --- | --- |\n| Oslo | | 3 |\n| wide | | z |\n"
            "| R | a | b |\n| | c | d |") in md
    assert "1. Fruit\n   - Apple\n   - Pear\n2. Veg" in md
    assert "```python\ndef f():\n    return 1\n```" in md
    assert "H\u2082O, E=mc\u00b2, **bold** and *it*, `a_b  c`" in md
    assert "> q1\n>\n> q2" in md


def test_html_keeps_source_whitespace_and_spans() -> None:
    html = kept_all("<body><pre><span>a</span> <span>b</span></pre>"
                    "<table><tr><td colspan=2>q</td></tr></table></body>").to_html()
    assert "<span>a</span> <span>b</span>" in html and 'colspan="2"' in html


def test_clean_chars_removes_only_invisible_separators() -> None:
    assert clean_chars("a\u00adb\u200bc\ufeffd\u200ce\u200df") == "abcd\u200ce\u200df"


TIMETABLE = ("<html><head><style>.tt{white-space:pre}</style></head><body>"
             "<p>The   timetable:</p><div style=\"white-space: pre-wrap\">Mon  08:00\n"
             "  Tue  <b>09:30</b></div><div class=\"tt\">A   B\n C</div>"
             "<select><option>one  two</option></select></body></html>")


@pytest.mark.parametrize("parser", PARSERS)
def test_a_block_styled_white_space_pre_keeps_its_whitespace(parser: str) -> None:
    res = kept_all(TIMETABLE, parser)
    assert "Mon  08:00\n  Tue  09:30" in res.text
    assert "The timetable:" in res.text  # the others collapse as before
    assert "A B C" in res.text  # without a browser only the inline style is seen
    assert "```\nMon  08:00\n  Tue  09:30\n```" in res.to_markdown()


@pytest.mark.browser
def test_a_rendered_block_with_computed_white_space_pre_keeps_it(renderer) -> None:  # noqa: ANN001
    page = renderer.render(TIMETABLE.encode())
    res = CleanResult(page=page, leaf_keep=np.ones(len(page.text_leaves), bool), method="all")
    assert "Mon  08:00\n  Tue  09:30" in res.text
    assert "A   B\n C" in res.text  # the class's style, computed
    marked = [t for t, a in zip(page.tag, page.attrs, strict=True) if a and "white-space" in a]
    assert marked == ["div", "div"]  # not the select (a user-agent white-space: pre)


@pytest.mark.parametrize("parser", PARSERS)
def test_a_pre_line_block_keeps_its_line_breaks_and_collapses_its_spaces(parser: str) -> None:
    res = kept_all("<p>Intro.</p><p style=\"white-space: pre-line\">  Jane   Doe\n"
                   "   12 Harbour Road\n  Oslo  </p>", parser)
    assert "Jane Doe\n12 Harbour Road\nOslo" in res.text
    md = res.to_markdown()
    assert "Jane Doe\n12 Harbour Road\nOslo" in md and "```" not in md  # prose, not code


def test_layout_results_are_remembered_per_page_and_handed_out_as_copies():
    """strength / pre_roots / joints are computed once per page; changing what a caller got
    changes neither the remembered result nor what the next caller gets."""
    from webseg.clean import layout

    html = ("<html><body><p>Hello <b>wor</b>ld</p><table><tr><td>a</td><td>b</td></tr>"
            "</table><pre>x\n  y</pre></body></html>")
    page = parse(html)
    fresh = parse(html)
    kept = page.text_leaves
    st, pre = layout.strength(page), layout.pre_roots(page)
    sep, ws, cells = layout.joints(page, kept)
    st[:] = 0
    pre[:] = 7
    sep[:] = 0
    ws.append("junk")
    cells[:] = 9
    assert np.array_equal(layout.strength(page), layout.strength(fresh))
    assert np.array_equal(layout.pre_roots(page), layout.pre_roots(fresh))
    again, fresh_j = layout.joints(page, kept), layout.joints(fresh, fresh.text_leaves)
    assert np.array_equal(again[0], fresh_j[0]) and again[1] == fresh_j[1]
    assert np.array_equal(again[2], fresh_j[2])
    for k in range(8):  # many leaf sets: the memory stays bounded, the answers right
        sub = kept[: 1 + k % len(kept)]
        assert np.array_equal(layout.joints(page, sub)[0], layout.joints(fresh, sub)[0])
    assert sum(isinstance(k, tuple) for k in page.__dict__["_layout_memo"]) <= 4
