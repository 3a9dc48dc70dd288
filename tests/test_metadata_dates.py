"""The faster scans of the metadata find what the slower ones found."""

from __future__ import annotations

from webseg.clean.metadata import extract_metadata


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>T</title>{head}</head><body>{body}</body></html>"


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


def test_a_capitalised_or_camel_case_byline_mark_is_found_in_the_body() -> None:
    head = '<meta name="x" content="author">'
    for mark in ('class="postAuthor"', 'class="Author-name"', 'id="byline"',
                 'class="entry-writer"'):
        html = _page(f'<h1>T</h1><div {mark}>By Jane Roe</div><p>Text.</p>', head)
        assert extract_metadata(html).authors == ["Jane Roe"], mark


def test_a_date_shown_by_the_headline_is_the_date_when_nothing_else_gives_one() -> None:
    body = ('<nav><a href="/">Home</a></nav><h1>How to plan a course</h1>'
            '<div class="meta"><span>Nov 21, 2018</span></div>'
            '<p>On 3 May 2020 the rules changed, as the first article said.</p>')
    assert extract_metadata(_page(body)).date_published == "2018-11-21"
    # a date mentioned in a sentence is not the page's date
    body = '<h1>How to plan a course</h1><p>' + "Words here. " * 10 + \
        'On 3 May 2020 the rules changed.</p>'
    assert extract_metadata(_page(body)).date_published is None
    # no headline: no place to look
    assert extract_metadata(_page('<p><span>Nov 21, 2018</span></p>')).date_published is None
    # dates=False: no search of the text at all
    body = '<h1>T</h1><p class="d">21 November 2018</p>'
    assert extract_metadata(_page(body)).date_published == "2018-11-21"
    assert extract_metadata(_page(body), dates=False).date_published is None


def test_the_url_day_wins_over_a_time_stamp_one_day_off() -> None:
    head = '<meta property="article:published_time" content="2025-12-19T02:41:41+00:00">'
    url = "https://blog.example.org/2025/12/18/a-post/"
    assert extract_metadata(_page("<p>x</p>", head), url=url).date_published == "2025-12-18"
    # further apart: two different dates, the structured one stays
    url = "https://blog.example.org/2025/12/10/a-post/"
    md = extract_metadata(_page("<p>x</p>", head), url=url)
    assert md.date_published == "2025-12-19T02:41:41+00:00"
