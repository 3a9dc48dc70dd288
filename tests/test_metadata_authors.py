"""Authors: a byline must read as a name, and the site or its publisher is no writer."""

from __future__ import annotations

from webseg.clean.metadata import extract_metadata

#: A column of the site's writers beside the article, each item a link to another article
#: (a news site's "editor's column" widget), then a comments widget of other articles.
WIDGETS = (
    '<div id="authors"><div class="author"><img src="a.jpg">'
    '<p class="anons"><a href="/x/1">Сердюкову &ndash; личный чешский самолет</a></p></div>'
    '</div><div id="authors"><div class="author"><img src="b.jpg">'
    '<p class="title"><a href="/authors/u">Андрей Угланов</a></p>'
    '<p class="anons"><a href="/x/2">Оленеводы в первых рядах</a></p></div></div>'
    '<div class="cp_author">Ким Евгений-имперскому сторожевому псу</div>'
    '<div class="cp_author">Осьен</div>'
    '<p>Натуральное молоко поможет отказаться от курения.</p>')


def test_a_headline_in_a_writers_widget_is_no_author() -> None:
    md = extract_metadata(f"<html><body>{WIDGETS}</body></html>", dates=False)
    assert md.authors == []


def test_a_byline_after_a_widget_of_headlines_is_found() -> None:
    html = f'<body>{WIDGETS}<span class="byline">By Kim Park</span></body>'
    assert extract_metadata(html, dates=False).authors == ["Kim Park"]


def test_headlines_and_sentences_do_not_read_as_names() -> None:
    for text in ("Minister gets a private jet", "Why we ride bikes?",
                 "Clone Furtseva \u2013 urgently", "This review is posted in"):
        html = f'<body><div class="author">{text}</div></body>'
        assert extract_metadata(html, dates=False).authors == [], text
    for text in ("Ludwig van Beethoven", "jo lee", "María José García", "王小明", "Jo Lee »"):
        html = f'<body><div class="author">{text}</div></body>'
        assert extract_metadata(html, dates=False).authors == [text.rstrip(" »")], text


def test_on_a_forum_the_first_post_author_is_the_page_author() -> None:
    posts = "".join(f'<div class="post"><span class="author">{n}</span><p>Post {i}.</p></div>'
                    for i, n in enumerate(["pelex", "Outer Space", "Jo Lee"]))
    assert extract_metadata(f"<body>{posts}</body>", dates=False).authors == ["pelex"]


CREDIT = ('<meta name="Owner" content="in.gr &mdash; Lambrakis Press S.A.">'
          '<meta name="Author" content="in.gr &mdash; Lambrakis Press S.A.">')


def test_a_publisher_credit_line_is_no_author() -> None:
    html = f"<head>{CREDIT}</head><body><p>News text.</p></body>"
    for url in ("http://health.in.gr/news/article/?aid=1", None):
        md = extract_metadata(html, url=url, dates=False)
        assert md.authors == [] and "authors" not in md.sources, url


def test_the_site_as_meta_author_gives_way_to_a_byline_and_is_the_last_resort() -> None:
    head = ('<meta property="og:site_name" content="Gym Provisions">'
            '<meta name="author" content="Gym Provisions">')
    md = extract_metadata(f'<head>{head}</head><body><p class="byline">By Kim Park</p></body>',
                          dates=False)
    assert md.authors == ["Kim Park"] and md.sources["authors"] == "page"
    md = extract_metadata(f"<head>{head}</head><body><p>Rent gym equipment.</p></body>",
                          dates=False)
    assert md.authors == ["Gym Provisions"] and md.sources["authors"] == "meta"
    head = '<meta name="author" content="AccountingDepartment.com">'
    md = extract_metadata(f"<head>{head}</head><body><p>GAAP.</p></body>",
                          url="https://www.accountingdepartment.com/gaap", dates=False)
    assert md.authors == ["AccountingDepartment.com"]


def test_a_person_as_meta_author_stays() -> None:
    head = ('<meta property="og:site_name" content="Daily Planet">'
            '<meta name="author" content="Lois Lane">')
    md = extract_metadata(f"<head>{head}</head><body><p>Text.</p></body>",
                          url="https://dailyplanet.example/story", dates=False)
    assert md.authors == ["Lois Lane"] and md.sources["authors"] == "meta"


def test_posted_by_is_not_part_of_the_name() -> None:
    for text in ("Posted by msmash", "Written by Jo Lee", "by Kim Park"):
        html = f'<body><span class="byline">{text}</span><p>Story.</p></body>'
        assert extract_metadata(html, dates=False).authors == [text.split(" by ")[-1]
                                                               .removeprefix("by ")], text


def test_lead_ins_and_labels_of_a_byline_are_skipped_for_the_name() -> None:
    for box in ('<div class="author">Insights from <a href="/p/lb">Liza Burke</a></div>',
                '<dl class="topic-author"><dt>Topic Author</dt><dd>changingtimes</dd></dl>',
                '<div class="byline">via <a href="/u/s">scvalex</a></div>',
                '<div class="post-author"><h3>About the Authors</h3><p>Jo Lee</p></div>'):
        html = f'<html><body><h1>T</h1>{box}<p>Text of the article.</p></body></html>'
        got = extract_metadata(html, dates=False).authors
        assert got and got[0] in ("Liza Burke", "changingtimes", "scvalex", "Jo Lee"), box
    # a date's label is no name, and the date after it is none either
    html = ('<html><body><div class="author-date">Updated <span>Jan 8, 2026</span></div>'
            '</body></html>')
    assert extract_metadata(html, dates=False).authors == []


def _byline_of(body: str) -> list[str]:
    return extract_metadata(f"<html><body><h1>T</h1>{body}<p>Text.</p></body></html>",
                            dates=False).authors


def test_a_byline_mark_must_be_a_word_of_the_class() -> None:
    assert _byline_of('<a href="/t"><i class="lnr lnr-typewriter"></i><div class="text">'
                      'Office managers</div></a>') == []  # an icon's name
    assert _byline_of('<li class="menu-item authorities-board"><a href="/b">Governing '
                      'Board Actions</a></li>') == []
    assert _byline_of('<div class="post-meta no-byline"><a href="/">Home</a></div>') == []
    for mark in ("phpbb-showtopicauthor", "writername", "authorcredit", "post-author"):
        assert _byline_of(f'<div class="{mark}">Kim Park</div>') == ["Kim Park"], mark


def test_a_comment_form_field_and_the_footer_are_no_byline() -> None:
    form = ('<p class="comment-form-author"><label for="author">Name <span>*</span></label>'
            '<input id="author" name="author" type="text"></p>')
    assert _byline_of(form) == []
    assert _byline_of('<div class="footer__writers">Writing Tools</div>') == []


def test_the_byline_type_category_and_date_parts_are_skipped() -> None:
    assert _byline_of('<div class="byline"><span class="article_type"> Guide </span> '
                      '<span class="by">by</span> <span class="author"><a href="/a/w">Will '
                      'Judd</a></span></div>') == ["Will Judd"]
    assert _byline_of('<div class="byline"><a class="tag tag--linked" href="/t">Personal '
                      'finance</a></div>') == []
    assert _byline_of('<p class="blog-result-author">This review is posted in <a href="/r">'
                      'Mobile App Reviews</a></p>') == []
    assert _byline_of('<div class="post-detail-byline-date">By Haley Hoekstra &bull; '
                      '<span>March 12, 2025</span></div>') == ["Haley Hoekstra"]


def test_the_name_is_inside_the_byline_element_or_right_after_its_label() -> None:
    empty = ('<div class="article-author"><div class="article-author__content"></div></div>'
             '<div class="product-range"><h2>Find Your Freewrite</h2></div>')
    assert _byline_of(empty) == []
    assert _byline_of('<div class="showtopicauthor">Topic Author</div> <a href="/u/1" '
                      'class="username">changingtimes</a>') == ["changingtimes"]
    assert _byline_of('<span class="byline-author">Posted by&nbsp;</span><span>Jo Lee'
                      '</span>') == ["Jo Lee"]
    assert _byline_of('<div class="author-bio"><h4>About Becky</h4><p>Hi, I am Becky.</p>'
                      '</div>') == ["Becky"]


def test_field_marks_are_words_and_container_flags_are_no_byline() -> None:
    assert _byline_of('<div class="hero__author-wrap"><span class="hero-jobber__author">Lisa '
                      'Pham</span></div>') == ["Lisa Pham"]  # "jobber" is no job title
    meta = ('<div class="story-meta has-byline"><span class="date">Updated Nov 11</span>'
            '<span class="tip">Originally published</span></div>'
            '<div class="byline"><p>By&nbsp;</p><p><a href="/p/af">April Fulton</a></p></div>')
    assert _byline_of(meta) == ["April Fulton"]
