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
