"""Flex rows (:func:`webseg.blocks.units._flex_rows`) are the same whether the containers'
children are found one container at a time or by listing every node's children (the way
taken above ``_FLEX_SCAN`` containers)."""

from __future__ import annotations

import pytest

from webseg.blocks import units
from webseg.parse import parse

HTML = ("<body>"
        + "".join(f'<div style="display:flex"><span>a{k}</span> <b>b</b></div>' for k in range(5))
        + '<div style="display:flex"><div>card</div><span>x</span></div>'
        + '<div style="display:grid">text only</div>'
        + '<p style="display:inline-flex"><em>e</em><time>t</time><a href="/">l</a></p>'
        + '<div style="display:flex"><section style="display:flex"><span>in</span></section></div>'
        + "</body>")


@pytest.mark.parametrize("scan", [0, 1000])
def test_flex_rows_by_either_way(scan: int, monkeypatch: pytest.MonkeyPatch) -> None:
    page = parse(HTML)
    monkeypatch.setattr(units, "_FLEX_SCAN", scan)
    rows = units._flex_rows(page)
    tags = [page.tag[i] for i in sorted(rows)]
    # the five span rows and the nested section of spans; not the card row, the text-only
    # grid, the paragraph with a link, nor the div holding a section
    assert tags == ["div"] * 5 + ["section"]
