"""Titles a reader would write, and keywords split the way sites write them."""

from __future__ import annotations

from webseg.clean.metadata import extract_metadata


def _page(title: str, h1: str, head: str = "") -> str:
    return (f"<html><head><title>{title}</title>{head}</head><body>"
            f"<h1>{h1}</h1><p>Some text of the article.</p></body></html>")


def test_headline_first_title_loses_the_site_name() -> None:
    md = extract_metadata(_page("Gardening in a Warming World | Cornell Garden Learning",
                                "Gardening in a <em>Warming</em> World"))
    assert md.title == "Gardening in a Warming World"
    md = extract_metadata(_page("2015年陇药销售额要超100亿元 -亿元|销售|药品",
                                "2015年陇药销售额要超100亿元"))
    assert md.title == "2015年陇药销售额要超100亿元"


def test_title_kept_whole_when_the_h1_is_not_its_headline() -> None:
    # the h1 ends the title: on documentation and forum pages it is the site's banner
    md = extract_metadata(_page("What is Ownership? - The Rust Programming Language",
                                "The Rust Programming Language"))
    assert md.title == "What is Ownership? - The Rust Programming Language"
    # a prefix that is not followed by a separator is another title
    md = extract_metadata(_page("News of the day", "News"))
    assert md.title == "News of the day"


def test_structured_title_wins_over_the_headline_rule() -> None:
    head = '<meta property="og:title" content="Headline from Open Graph">'
    md = extract_metadata(_page("Headline - Site", "Headline", head))
    assert md.title == "Headline from Open Graph"


def test_keywords_split_at_bars_and_cjk_commas() -> None:
    head = '<meta name="keywords" content="亿元|销售|药品、企业，流通; health">'
    md = extract_metadata(_page("T", "T", head))
    assert md.tags == ["亿元", "销售", "药品", "企业", "流通", "health"]
