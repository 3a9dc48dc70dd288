"""``webseg clean`` on structure cases (``tests/structure_cases.py``): the shipped block model
on ordinary article pages, each with one structure fragment, in txt and Markdown, parsed
without a browser and rendered by Chromium."""

from __future__ import annotations

import numpy as np
import pytest

from tests.structure_cases import CASES, Case, page_html
from webseg.blocks.units import apply_units
from webseg.clean import CleanResult, extract
from webseg.clean.txt import without_gutters
from webseg.parse import parse
from webseg.render import Renderer

BOILERPLATE = ("Most read", "Storm closes bridge", "Copyright 2024", "Privacy")


def check(res: CleanResult, case: Case) -> None:
    text, md = res.text, res.to_markdown()
    for want in case.txt:
        assert want in text, f"txt lacks {want!r}:\n{text}"
    for want in case.md:
        assert want in md, f"Markdown lacks {want!r}:\n{md}"
    for junk in BOILERPLATE + case.absent:
        assert junk not in text and junk not in md, f"{junk!r} kept"
    title = res.page.title.split(" | ")[0]
    assert title in text.splitlines()  # the article is kept, with its heading


def test_enough_cases_in_every_script() -> None:
    assert len(CASES) >= 40
    assert {c.lang for c in CASES} >= {"en", "zh", "ru", "ar", "el"}
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parsed(case: Case) -> None:
    check(extract(parse(page_html(case)), "blocks"), case)


@pytest.mark.browser
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rendered(case: Case, renderer: Renderer) -> None:
    page = renderer.render(page_html(case).encode("utf-8"))
    check(extract(page, "blocks"), case)


# ---------------------------------------------------------------------- the unit rules alone

def _units(html: str, keep_texts: set[str], scores: dict[str, float] | None = None,
           threshold: float | None = None) -> list[str]:
    page = parse(html)
    leaves = page.text_leaves
    texts = [page.leaf_text(j) for j in leaves.tolist()]
    keep = np.array([t in keep_texts for t in texts])
    chars = np.array([len(t) for t in texts], dtype=np.float32)
    s = None if scores is None else np.array([scores.get(t, 0.0) for t in texts])
    out = apply_units(page, leaves, chars, keep, s, threshold)
    return [t for t, k in zip(texts, out, strict=True) if k]


BODY = "<body><p>before text</p>{}<p>after text</p><div>menu</div></body>"


def test_mixed_unit_inside_kept_content_is_kept_whole() -> None:
    html = BODY.format("<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li>"
                       "<li>Vegetables</li></ul>")
    kept = _units(html, {"before text", "Fruit", "Vegetables", "after text"})
    assert kept == ["before text", "Fruit", "Apple", "Pear", "Vegetables", "after text"]


def test_mixed_unit_at_the_edge_is_decided_by_its_kept_share() -> None:
    html = "<body><p>before text</p><ul><li>a long kept item here</li><li>x</li></ul></body>"
    assert _units(html, {"before text", "a long kept item here"})[-1] == "x"
    # 2 of 24 characters: the list leaves it to its items, each already whole
    assert _units(html, {"before text", "x"}) == ["before text", "x"]
    item = "<body><p>before text</p><ul><li>a long dropped item <b>x</b></li></ul></body>"
    assert _units(item, {"before text", "x"}) == ["before text"]  # innermost: dropped whole


def test_data_table_by_rows_when_not_inside_kept_content() -> None:
    html = ("<body><p>intro</p><table><tr><th>City</th><th>Population</th></tr>"
            "<tr><td>Oslo</td><td>700,000</td></tr><tr><td>Bergen</td><td>3</td></tr></table>"
            "</body>")
    kept = _units(html, {"intro", "City", "Bergen"})  # 12 of 38 chars: not the whole table
    assert kept == ["intro", "Bergen", "3"]  # the row with most of its text kept stays whole
    assert _units(html, {"intro", "City", "Population", "Bergen"}) == [
        "intro", "City", "Population", "Oslo", "700,000", "Bergen", "3"]  # 23 of 38: whole


def test_layout_table_is_no_unit() -> None:
    html = ("<body><table><tr><td><p>" + "main article text " * 30 + "</p></td>"
            "<td>sidebar</td></tr><tr><td>x</td><td>y</td></tr></table></body>")
    kept = _units(html, {("main article text " * 30).strip()})
    assert kept == [("main article text " * 30).strip()]


def test_heading_before_kept_content_is_kept() -> None:
    html = "<body><div>menu</div><h2>Background</h2><p>kept paragraph</p></body>"
    assert _units(html, {"kept paragraph"}) == ["Background", "kept paragraph"]
    bold = "<body><div>menu</div><p><b>Costs</b></p><p>kept paragraph</p></body>"
    assert _units(bold, {"kept paragraph"}) == ["Costs", "kept paragraph"]
    nav = "<body><h2>Menu</h2><div>menu</div><p>kept paragraph</p></body>"
    assert _units(nav, {"kept paragraph"}) == ["kept paragraph"]  # not immediately followed


def test_dropped_unit_between_kept_content_needs_half_the_threshold() -> None:
    html = BODY.format("<figure><img src=x.png><figcaption>A caption</figcaption></figure>")
    keep = {"before text", "after text"}
    assert "A caption" in _units(html, keep, {"A caption": 0.2}, threshold=0.35)
    assert "A caption" not in _units(html, keep, {"A caption": 0.1}, threshold=0.35)
    assert "A caption" not in _units(html, keep)  # without scores: the decoder's word


def test_short_row_of_a_table_holding_a_table_is_a_unit() -> None:
    html = ("<body><p>intro</p><table><tr><td>A</td><td><table><tr><td>x1</td><td>x2</td></tr>"
            "<tr><td>y1</td><td>y2</td></tr></table></td></tr>"
            "<tr><td>B row</td><td>every hour</td></tr></table><p>after text</p></body>")
    keep = {"intro", "A", "x1", "x2", "y1", "y2", "B row", "after text"}
    scores = {t: 0.9 for t in keep} | {"every hour": 0.3}
    assert "every hour" in _units(html, keep, scores, threshold=0.4)
    low = scores | {"B row": 0.45, "every hour": 0.05}  # mean score under half the threshold
    assert "every hour" not in _units(html, keep, low, threshold=0.4)


def test_details_is_a_unit() -> None:
    html = BODY.format("<details open><summary>More</summary><p>hidden text</p></details>")
    keep = {"before text", "after text"}
    scores = {"More": 0.3, "hidden text": 0.3}
    assert _units(html, keep, scores, threshold=0.4)[:3] == ["before text", "More",
                                                              "hidden text"]


def test_heading_permalink_mark_is_dropped() -> None:
    html = ("<body><h2>Costs<a href=\"#costs\">\u00b6</a></h2><p>kept paragraph</p>"
            "<h2><a href=\"#a2\">Anchor text</a></h2><p>second paragraph</p></body>")
    kept = _units(html, {"Costs", "\u00b6", "kept paragraph", "Anchor text",
                         "second paragraph"})
    assert kept == ["Costs", "kept paragraph", "Anchor text", "second paragraph"]


def test_link_list_gets_context_help_only_when_its_kept_part_is_plain_text() -> None:
    links = ("<ul><li>Plan<ul><li><a href=/a>Main text</a></li><li><a href=/b>Annexes</a>"
             "</li></ul></li><li>{}</li></ul>")
    scores = {"Plan": 0.2, "Main text": 0.15, "Annexes": 0.15, "Minutes of hearings": 0.5,
              "<a>": 0.5}
    plain = BODY.format(links.format("Minutes of hearings"))
    keep = {"before text", "Minutes of hearings", "after text"}
    assert "Main text" in _units(plain, keep, scores, threshold=0.4)
    menu = BODY.format(links.format("<a href=/c>Minutes of hearings</a>"))
    assert "Main text" not in _units(menu, keep, scores, threshold=0.4)


def test_run_of_dropped_units_between_kept_content_is_one_hole() -> None:
    html = BODY.format("<h3>Install</h3><p>Run this:</p><pre>make all</pre>")
    keep = {"before text", "after text"}
    scores = {"Install": 0.3, "Run this:": 0.3, "make all": 0.25}
    assert _units(html, keep, scores, threshold=0.4)[:4] == ["before text", "Install",
                                                              "Run this:", "make all"]
    low = {"Install": 0.1, "Run this:": 0.1, "make all": 0.1}
    assert _units(html, keep, low, threshold=0.4) == ["before text", "after text"]
    # a loose line (no unit, no heading) in the run: no structure the reader sees as a gap
    loose = BODY.format("<p>Run this:</p><span>Advertisement</span><pre>make all</pre>")
    assert "Run this:" not in _units(loose, keep, scores | {"Advertisement": 0.3},
                                     threshold=0.4)
    # several short boxes with no heading or code among them: page furniture (a forum
    # post's user box), each box alone is no hole either
    box = BODY.format("<p>pnomes said:</p><dl><dt>Joined</dt><dd>Jun 2016</dd></dl>")
    box_scores = {"pnomes said:": 0.3, "Joined": 0.3, "Jun 2016": 0.3}
    assert _units(box, keep, box_scores, threshold=0.4) == ["before text", "after text"]


def test_code_listing_table_between_kept_content_is_kept_whole() -> None:
    code = "\n".join(f"line_{k} = compute({k})" for k in range(20))
    html = BODY.format("<table class=highlighttable><tr><td><pre>" +
                       "\n".join(str(k) for k in range(1, 21)) + f"</pre></td><td><pre>{code}"
                       "</pre></td></tr></table>")
    keep = {"before text", "after text"}
    kept = _units(html, keep, {}, threshold=0.4)  # scores 0: the context alone decides
    assert " ".join(code.split()) in kept and len(code) > 200  # leaf texts are normalised
    table = BODY.format("<table><tr><td><pre>1</pre></td><td>a cell</td></tr></table>")
    assert _units(table, keep, {}, threshold=0.4) == ["before text", "after text"]


def test_flex_row_and_one_line_div_are_decided_by_their_kept_share() -> None:
    flex = BODY.format("<div style=\"display:flex\"><span>Departure</span><span>08:00</span>"
                       "<span>Pier 3</span></div>")
    assert "08:00" in _units(flex, {"before text", "Departure", "Pier 3", "after text"})
    line = BODY.format("<div>Cranes over the shipyard. <small>Photo: A. Berg</small></div>")
    assert "Photo: A. Berg" in _units(line, {"before text", "Cranes over the shipyard.",
                                             "after text"})
    # the share alone decides a line: a short kept part takes nothing back, drops nothing
    assert _units(line, {"before text", "Photo: A. Berg", "after text"}) == [
        "before text", "Photo: A. Berg", "after text"]


def test_line_numbers_of_a_code_listing_are_left_out() -> None:
    html = ("<body><table><tr><td><pre>7\n8\n9</pre></td><td><pre>a = 1\nb = 2\nc = 3</pre>"
            "</td></tr></table><table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td>"
            "</tr></table></body>")
    page = parse(html)
    res = without_gutters(page, np.ones(len(page.text_leaves), dtype=bool))
    kept = [page.leaf_text(j) for j, k in zip(page.text_leaves.tolist(), res, strict=True)
            if k]
    assert kept[0] == "a = 1 b = 2 c = 3" and "7 8 9" not in kept  # leaf texts normalised
    assert kept[-4:] == ["1", "2", "3", "4"]  # numbers in a table without code stay


def test_announced_list_is_kept_whole_a_short_label_is_not() -> None:
    links = "<ul><li><a href=/a>Final plan</a></li><li><a href=/b>Traffic study</a></li></ul>"
    scores = {"Final plan": 0.05, "Traffic study": 0.05}
    said = BODY.format("<p>The council published these documents today:</p>" + links)
    keep = {"before text", "The council published these documents today:", "after text"}
    assert "Traffic study" in _units(said, keep, scores, threshold=0.4)
    label = BODY.format("<p>Related:</p>" + links)
    assert "Traffic study" not in _units(label, {"before text", "Related:", "after text"},
                                         scores, threshold=0.4)


def test_noscript_text_is_dropped_beside_more_text_only() -> None:
    article = "The article's own paragraph, longer than the notice."
    html = f"<body><p>{article}</p><noscript><p>Please enable JavaScript</p></noscript></body>"
    assert _units(html, {article, "Please enable JavaScript"}) == [article]
    # a forum serving its posts in noscript (Flarum): the posts are the text
    forum = ("<body><p>Forum title</p><noscript><p>The first post of the thread, with all "
             "its words.</p></noscript></body>")
    posts = {"Forum title", "The first post of the thread, with all its words."}
    assert len(_units(forum, posts)) == 2


def test_unit_ending_the_article_is_a_hole_a_teaser_list_is_not() -> None:
    first, second = "first kept paragraph " * 6, "second kept paragraph " * 6
    page = ("<body><article><p>{}</p><p>{}</p>{}</article><div>menu</div></body>")
    table = ("<table><tr><th>City</th><th>Population</th></tr><tr><td>Oslo</td>"
             "<td>700,000</td></tr></table>")
    keep = {first.strip(), second.strip()}
    scores = {"City": 0.3, "Population": 0.3, "Oslo": 0.3, "700,000": 0.3}
    assert "Oslo" in _units(page.format(first, second, table), keep, scores, threshold=0.4)
    # a table without links needs no score test (tiny cells); a figure's caption does
    assert "Oslo" in _units(page.format(first, second, table), keep, {}, threshold=0.4)
    figure = "<figure><img src=x.png><figcaption>The pier at dawn</figcaption></figure>"
    for score, kept in ((0.3, True), (0.1, False)):
        got = _units(page.format(first, second, figure), keep, {"The pier at dawn": score},
                     threshold=0.4)
        assert ("The pier at dawn" in got) == kept
    # after a title and a byline alone (a title's cell), no article ends there
    assert "Oslo" not in _units(page.format("A title", "A byline", table),
                                {"A title", "A byline"}, scores, threshold=0.4)
    teasers = ("<ul><li><a href=/1>Storm news</a> A long teaser text here</li>"
               "<li><a href=/2>Ferry news</a> Another teaser text</li></ul>")
    kept = _units(page.format(first, second, teasers), keep | {"A long teaser text here"},
                  {"Storm news": 0.3, "Ferry news": 0.3, "Another teaser text": 0.3},
                  threshold=0.4)
    assert "Another teaser text" not in kept  # a list with links is not completed there


def test_copy_button_over_code_is_dropped() -> None:
    html = BODY.format("<div><button>Copy</button><pre>make all</pre></div>")
    kept = _units(html, {"before text", "Copy", "make all", "after text"})
    assert "Copy" not in kept and "make all" in kept
    faq = ("<body><article><h3><button>How do I build it?</button></h3><p>Run the command "
           "below in the project folder.</p><pre>make all</pre></article></body>")
    assert "How do I build it?" in _units(faq, {"How do I build it?", "make all",
                                                "Run the command below in the project folder."})


def test_ruby_readings_are_left_out_of_the_text() -> None:
    page = parse("<p>新しい<ruby>港<rp>(</rp><rt>みなと</rt><rp>)</rp></ruby>の計画は<ruby>東<rt>"
                 "とう</rt>京<rt>きょう</rt></ruby>で発表された。</p>")
    keep = np.ones(len(page.text_leaves), dtype=bool)
    from webseg.clean.txt import to_text

    assert to_text(page, keep) == "新しい港の計画は東京で発表された。"


def test_parsed_joints_glue_formatting_runs_and_unspaced_scripts() -> None:
    from webseg.clean.txt import to_text

    for html, want in (("<p>The <b>Har</b><b>bour</b> fest</p>", "The Harbour fest"),
                       ("<p>来自<b>北京</b><em>大学</em>的专家</p>", "来自北京大学的专家"),
                       ("<p><span>2026</span><span>1h 54m</span></p>", "2026 1h 54m")):
        page = parse(html)
        assert to_text(page, np.ones(len(page.text_leaves), dtype=bool)) == want
