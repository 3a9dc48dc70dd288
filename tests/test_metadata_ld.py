"""webseg.clean.metadata._ld_blocks: which JSON-LD scripts are read."""

from __future__ import annotations

from webseg.clean.metadata import _ld_blocks


def _script(kind: str, name: str) -> str:
    return f'<script type="{kind}">{{"@type": "Article", "headline": "{name}"}}</script>'


def test_scripts_in_document_order() -> None:
    html = "<html><head>" + _script("application/ld+json", "a") + \
        _script("text/javascript", "js") + _script("application/LD+JSON", "b") + "</head></html>"
    assert [b["headline"] for b in _ld_blocks(html)] == ["a", "b"]


def test_an_odd_spelling_alone_is_not_read() -> None:
    # only a page that spells the type ld+json, LD+JSON or ld+JSON somewhere has its
    # scripts read: "Ld+Json" alone is not
    assert list(_ld_blocks("<head>" + _script("application/Ld+Json", "x") + "</head>")) == []


def test_an_odd_spelling_beside_a_usual_one_is_read() -> None:
    html = _script("application/Ld+Json", "x") + _script("application/ld+json", "y")
    assert [b["headline"] for b in _ld_blocks(html)] == ["x", "y"]


def test_no_scripts_and_unparseable_ones() -> None:
    assert list(_ld_blocks("<p>ld+json in the text</p>")) == []
    assert list(_ld_blocks('<script type="application/ld+json">{not json</script>')) == []
