"""Dates a page shows (the step before ``htmldate``) and the scans the metadata shares."""

from __future__ import annotations

import pytest

from webseg.clean.metadata import extract_metadata, text_date


@pytest.mark.parametrize(("text", "iso"), [
    ("Last Updated: 2025-02-22", "2025-02-22"),
    ("Posted 2024/3/5 by Jo", "2024-03-05"),
    ("12 November 2025", "2025-11-12"),
    ("Nov. 25, 2025 5:00 am PST", "2025-11-25"),
    ("August 25th, 2024", "2024-08-25"),
    ("3. März 2024", "2024-03-03"),
    ("12 de noviembre de 2025", "2025-11-12"),
    ("le 1er août 2023", "2023-08-01"),
    ("12.11.2025", "2025-11-12"),
])
def test_text_date_reads_the_common_spellings(text: str, iso: str) -> None:
    assert text_date(text) == iso


@pytest.mark.parametrize("text", ["© 2025 Example", "11/12/2025", "31.02.2025 then nothing",
                                  "May 2025", "", "version 2.10.2025x"])
def test_text_date_gives_nothing_for_partial_or_ambiguous_dates(text: str) -> None:
    assert text_date(text) is None


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>T</title>{head}</head><body>{body}</body></html>"


def test_the_shown_date_is_the_articles_not_a_comments() -> None:
    html = _page('<div class="comment-date">January 1, 2020</div><article><h1>T</h1>'
                 '<div class="entry-meta"><span class="posted-on">Posted on '
                 '<a href="/x">December 18, 2025</a></span></div><p>Text.</p></article>')
    md = extract_metadata(html)
    assert md.date_published == "2025-12-18"
    assert md.sources["date_published"] == "page"


def test_a_time_element_text_counts_and_structured_dates_win() -> None:
    html = _page('<p>By Jo</p><time>4 September 2025</time>')
    assert extract_metadata(html).date_published == "2025-09-04"
    head = '<meta property="article:published_time" content="2024-01-02T10:00:00Z">'
    md = extract_metadata(_page('<div class="date">4 September 2025</div>', head))
    assert md.date_published == "2024-01-02T10:00:00+00:00"
    assert md.sources["date_published"] == "opengraph"


def test_words_in_the_head_are_not_a_shown_date() -> None:
    head = '<script>var date = "2019-05-06"; var updated = "2019-05-07";</script>'
    md = extract_metadata(_page("<p>No date here.</p>", head), dates=False)
    assert md.date_published is None


def test_no_date_without_a_marked_element_and_dates_false_skips_the_search() -> None:
    html = _page('<div class="date">12 November 2025</div>')
    assert extract_metadata(html, dates=False).date_published is None
    assert extract_metadata(_page("<p>Nothing dated. Copyright 2025.</p>"),
                            dates=False).date_published is None


def test_json_ld_is_found_whatever_the_case_and_beside_other_scripts() -> None:
    html = ('<html><head><script>var t = "application/ld+json";</script>'
            '<SCRIPT TYPE="Application/LD+JSON">{"@type": "NewsArticle", "headline": "H1",'
            ' "datePublished": "2024-05-06"}</SCRIPT>'
            '<script type="application/ld+json">{"@type": "WebSite", "name": "Site"}</script>'
            '<link rel="stylesheet" href="a.css"><link rel="canonical" href="https://e.org/a">'
            '</head><body><time datetime="2020-01-01">x</time></body></html>')
    md = extract_metadata(html)
    assert (md.title, md.date_published, md.site_name) == ("H1", "2024-05-06", "Site")
    assert md.canonical_url == "https://e.org/a"
    # an unterminated JSON-LD script is no error
    assert extract_metadata('<script type="application/ld+json">{"headline": "x"').title is None


def test_the_first_time_element_with_a_datetime_is_used() -> None:
    html = _page('<time>soon</time><time datetime="">x</time>'
                 '<time class="x" datetime="2023-04-05">5 April</time>'
                 '<time datetime="2021-01-01">y</time>')
    assert extract_metadata(html, dates=False).date_published == "2023-04-05"
