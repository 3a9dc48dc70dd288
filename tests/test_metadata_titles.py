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


def test_title_and_h1_agreeing_win_over_the_structured_title() -> None:
    head = '<meta property="og:title" content="POLECAM: Chiny: Apel o spokój">'
    md = extract_metadata(_page("Chiny: Apel o spokój - fakty.interia.pl",
                                "Chiny: Apel o spokój", head))
    assert md.title == "Chiny: Apel o spokój"
    # the <title> alone does not make a short h1 the headline of another structured title
    head = '<meta property="og:title" content="Headline from Open Graph">'
    md = extract_metadata(_page("Headline from a page", "Headline", head))
    assert md.title == "Headline from Open Graph"


def test_keywords_split_at_bars_and_cjk_commas() -> None:
    head = '<meta name="keywords" content="亿元|销售|药品、企业，流通; health">'
    md = extract_metadata(_page("T", "T", head))
    assert md.tags == ["亿元", "销售", "药品", "企业", "流通", "health"]


# ------------------------------------------------------------- the visible headline
def test_headline_wins_over_a_title_written_for_search_engines() -> None:
    # most words in common both ways: the h1 is the page's headline, reworded for readers
    head = '<meta property="og:title" content="Best Hiking Boots for Women in 2025 | Trail Co">'
    md = extract_metadata(_page("Best Hiking Boots for Women in 2025 | Trail Co",
                                "The Best Hiking Boots for Women", head))
    assert md.title == "The Best Hiking Boots for Women"
    assert md.sources["title"] == "page"


def test_headline_sharing_few_words_is_not_the_title() -> None:
    head = '<meta property="og:title" content="Ten quick ways to bake sourdough bread">'
    md = extract_metadata(_page("Bread", "Our Blog", head))
    assert md.title == "Ten quick ways to bake sourdough bread"


def test_headline_naming_the_site_is_not_the_title() -> None:
    head = ('<meta property="og:title" content="Bread Lovers: how to bake a loaf">'
            '<meta property="og:site_name" content="Bread Lovers">')
    md = extract_metadata(_page("x", "Bread Lovers", head))
    assert md.title == "Bread Lovers: how to bake a loaf"
    md = extract_metadata(_page("davidbau.com Vibe Coding", "davidbau.com"))
    assert md.title == "davidbau.com Vibe Coding"
    # the name part of "Headline - Site Name", worded differently in the banner
    md = extract_metadata(_page("Pacjent Zero AIDS - Ciekawostki naukowe w Onet.pl",
                                "Onet.pl Ciekawostki naukowe"))
    assert md.title == "Pacjent Zero AIDS - Ciekawostki naukowe w Onet.pl"


def test_title_cut_at_the_headline_keeps_its_own_spelling() -> None:
    head = """<meta property="og:title" content="Why Cheap SEO Doesn't Work | Acme">"""
    md = extract_metadata(_page("x", "Why Cheap SEO Doesn’t Work", head))
    assert md.title == "Why Cheap SEO Doesn't Work"
    # same words, other punctuation: the declared spelling
    md = extract_metadata(_page("Mobile UX Design - The Ultimate Guide",
                                "Mobile UX Design: The Ultimate Guide"))
    assert md.title == "Mobile UX Design - The Ultimate Guide"


def test_headline_that_is_part_of_a_fuller_title_keeps_the_title() -> None:
    md = extract_metadata(_page("Gymshark Arrival T-Shirt - Black", "Arrival T-Shirt"))
    assert md.title == "Gymshark Arrival T-Shirt - Black"


def test_site_name_in_brackets_and_cjk_titles_without_spaces() -> None:
    md = extract_metadata(_page("Welcome to LWN.net [LWN.net]", "Welcome to LWN.net"))
    assert md.title == "Welcome to LWN.net"
    md = extract_metadata(_page("被告人刑期与罚金均大幅减少-新闻频道-和讯网",
                                "被告人刑期与罚金均大幅减少"))
    assert md.title == "被告人刑期与罚金均大幅减少"
    md = extract_metadata(_page("李娜领衔体坛风云人物_网易新闻中心",
                                "李娜领衔体坛风云人物"))
    assert md.title == "李娜领衔体坛风云人物"
    md = extract_metadata(_page("給台灣醫療體制一個讚｜藝文新聞｜中時電子報",
                                "給台灣醫療體制一個讚"))
    assert md.title == "給台灣醫療體制一個讚"
    md = extract_metadata(_page("Президент исповедался, но не ушел // НТВ.Ru",
                                "Президент исповедался, но не ушел"))
    assert md.title == "Президент исповедался, но не ушел"
    # a hyphen between Latin words is no separator; "::" inside a name is none either
    md = extract_metadata(_page("tokio::runtime - Rust", "tokio::runtime"))
    assert md.title == "tokio::runtime"


def test_headline_among_labels_in_the_h1_is_the_titles_run() -> None:
    # a label, a breadcrumb or a comment count in child elements of the h1
    md = extract_metadata(_page("Sunderland mum's plea over implant - Local - Sunderland Echo",
                                "<div><span>Sponsored by</span><a href='/x'>Castle</a></div>"
                                "Sunderland mum's plea over implant"))
    assert md.title == "Sunderland mum's plea over implant"
    md = extract_metadata(_page("Онищенко: Мы мягкие либералы по отношению к курильщикам",
                                "Онищенко: Мы мягкие либералы по отношению к курильщикам"
                                "<a href='#c'>Комментарии:&nbsp;<span>45</span></a>"))
    assert md.title == "Онищенко: Мы мягкие либералы по отношению к курильщикам"
    md = extract_metadata(_page("春節全家出遊 別忘了「旅用護理包」 - uho優活健康網",
                                "<a href='/'>uho優活健康網</a>&nbsp;〉<a href='?'>檢視火線新聞</a>"
                                "&nbsp;〉春節全家出遊　別忘了「旅用護理包」"))
    assert md.title == "春節全家出遊 別忘了「旅用護理包」"
    # a headline, its subtitle and a date: the headline (numbers are not the heading's words)
    md = extract_metadata(_page("NR2.RU::: «Мистер Нет» возвращается в Кремль / Перезагрузке "
                                "скоро наступит конец / 04.01.12 / Политика",
                                "«Мистер Нет» возвращается в Кремль<br><span>Перезагрузке скоро "
                                "наступит конец</span><span>04.01.12 15:59</span>"))
    assert md.title == "«Мистер Нет» возвращается в Кремль"
    # one name split by markup is not a label and a name
    md = extract_metadata(_page("tokio - Rust", "Crate <a href='#'>tokio</a>"))
    assert md.title == "Crate tokio"


def test_first_h1_reads_as_a_reader_sees_it() -> None:
    from webseg.clean.titles import first_h1

    def text(inner: str, attrs: str = "") -> str | None:
        h = first_h1(f"<body><h1{attrs}>{inner}</h1><p>x</p></body>")
        return h.text if h else None

    assert text("<p>Auth</p>", ' class="a>b"') == "Auth"  # '>' in an attribute, a block
    assert text("W<b>orld</b> news") == "World news"  # inline markup inside a word
    assert text("Top<br>Tools") == "Top Tools"
    assert text("Title<span>Copy</span><button>Copy item path</button>") == "TitleCopy"
    hidden = first_h1("<body><h1>Crate tokio<button><span>Copy item path</span></button>"
                      "</h1></body>")
    assert hidden is not None and hidden.pieces == ("Crate tokio",)  # nothing hidden
    assert text('<span aria-hidden="true">The product</span>The product system') \
        == "The product system"
    assert text("Logging HOWTO<a class='headerlink' href='#x'>¶</a>") == "Logging HOWTO"
    assert text("Ansible playbooks\uf0c1") == "Ansible playbooks"  # an icon font's glyph
    assert text("<style>.x{color:red}</style>Name") == "Name"
    assert text("<svg></svg>") is None
    assert first_h1("<body><h1>No end") is None
    assert text("<!-- a comment only -->") is None
    assert text("x\ud800") == "x"  # a lone surrogate: left out, no exception
    assert text("<b>" * 5000 + "deep") is None  # past the heading's span: no text, no error
    assert first_h1("<body><p>no heading</p></body>") is None


def test_double_encoded_utf8_is_read_again() -> None:
    from webseg.clean.titles import undo_double_utf8

    assert undo_double_utf8("A DIY Investor\u00e2\u0080\u0099s Guide") == "A DIY Investor’s Guide"
    assert undo_double_utf8("JOHNSON\u00e2\u0080\u0099S\u00c2\u00ae") == "JOHNSON’S®"
    # no C1 control character: text that only looks like it is left alone
    assert undo_double_utf8("Ã© and Â« stay") == "Ã© and Â« stay"
    assert undo_double_utf8("日本語 \u00e2\u0080\u0094 x") == "日本語 — x"
    head = '<meta property="og:title" content="itertools \u00e2\u0080\u0094 Functions">'
    assert extract_metadata(_page("x", "y", head)).title == "itertools — Functions"


def test_site_name_ending_the_title_goes_without_a_headline_to_cut_at() -> None:
    from webseg.clean.titles import without_site_name

    head = '<meta property="og:site_name" content="Quanta Magazine">'
    md = extract_metadata(_page("The Year in Mathematics | Quanta Magazine", "Menu", head))
    assert md.title == "The Year in Mathematics"
    # the domain names the site: "Newegg.com", "REI Co-op" for rei.com
    md = extract_metadata(_page("GAME CHANGER | Newegg.com", "x"), url="https://www.newegg.com/p")
    assert md.title == "GAME CHANGER"
    assert without_site_name("Hiking Boots | REI Co-op", [], "rei.com") == "Hiking Boots"
    assert without_site_name("Royal visit - The Sun", [], "the-sun.com") == "Royal visit"
    # only the last part; a section stays, and so does a name in front or another last part
    assert without_site_name("Jobs | News | Acme", ["Acme"]) == "Jobs | News"
    assert without_site_name("Acme | Jobs", ["Acme"]) == "Acme | Jobs"
    assert without_site_name("Why hike heavy? - Lightweight packs", ["Acme"], "acme.com") \
        == "Why hike heavy? - Lightweight packs"
    assert without_site_name("| Acme", ["Acme"]) == "| Acme"  # nothing before it
    assert without_site_name("新闻标题_新浪网", [], "sina.com.cn") == "新闻标题_新浪网"
    assert without_site_name("新闻标题_新浪网", ["新浪网"]) == "新闻标题"


def test_headline_from_a_page_without_source() -> None:
    # a rendered URL or a saved page JSON: the Page's h1, joined as the writers join text
    from webseg.clean.titles import page_h1
    from webseg.parse import parse

    page = parse(_page("Best Hiking Boots for Women in 2025 | Trail Co",
                       "The Best <em>Hiking</em> Boots for W<b>omen</b>"))
    assert page_h1(page).text == "The Best Hiking Boots for Women"
    assert extract_metadata(page=page).title == "The Best Hiking Boots for Women"
    page = parse("<html><head><title>GAME CHANGER | Newegg.com</title></head>"
                 "<body><p>Text</p></body></html>")
    assert page_h1(page) is None
    assert extract_metadata(page=page, url="https://www.newegg.com/p").title == "GAME CHANGER"


def test_a_logo_in_an_h1_is_passed_over_for_the_headline() -> None:
    """Sites put their logo image in the first ``<h1>``; the headline is the next one."""
    from webseg.clean.titles import first_h1, page_h1
    from webseg.parse import parse

    html = ("<html><head><title>十年一遇最美月全食明晚登场 - 服务快递 - 济南新闻_舜网新闻中心"
            "</title></head><body><h1><a href='/'><img src='logo.gif' alt='舜网'></a></h1>"
            "<h1>十年一遇最美月全食明晚登场</h1><p>明天将上演月全食。</p></body></html>")
    assert first_h1(html).text == "十年一遇最美月全食明晚登场"
    assert extract_metadata(html).title == "十年一遇最美月全食明晚登场"
    page = parse(html)
    assert page_h1(page).text == "十年一遇最美月全食明晚登场"
    assert extract_metadata(page=page).title == "十年一遇最美月全食明晚登场"
    # only a heading holding an image alone is passed over: an empty one (a menu button's
    # holder) still means the page shows no headline there, a first h1 with text is the one
    empty = "<body><h1><button>Menu</button></h1><h1>Webcams</h1></body>"
    assert first_h1(empty) is None
    assert first_h1("<body><h1><svg></svg></h1><h1>Webcams</h1></body>").text == "Webcams"
    two = "<body><h1>Site banner</h1><h1>Headline</h1></body>"
    assert first_h1(two).text == "Site banner"
    assert page_h1(parse(two)).text == "Site banner"


def test_headline_inside_the_title_drops_the_site_in_front_and_sections_after() -> None:
    title = ("in.gr - Εμφυτεύματα σιλικόνης: Ασφαλή σύμφωνα με το πόρισμα - Αλλαγές ζητά ο "
             "υπουργός - Υγεία - Ειδήσεις - Πολιτική Υγείας")
    md = extract_metadata(_page(title, "Εμφυτεύματα σιλικόνης: Ασφαλή σύμφωνα με το "
                                       "πόρισμα - Αλλαγές ζητά ο υπουργός"))
    assert md.title == ("Εμφυτεύματα σιλικόνης: Ασφαλή σύμφωνα με το πόρισμα - Αλλαγές ζητά "
                        "ο υπουργός")
    md = extract_metadata(_page("Аргументы в Ижевске / Глава Удмуртии поддержал идею о "
                                "запрете курения -Новости",
                                "Глава Удмуртии поддержал идею о запрете курения"))
    assert md.title == "Глава Удмуртии поддержал идею о запрете курения"
    # a section in the h1 is a short inner part, not the headline: the title stays whole
    md = extract_metadata(_page("Storm closes the old bridge - Health - Harbour Times",
                                "Health"))
    assert md.title == "Storm closes the old bridge - Health - Harbour Times"


def _no_h1_page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def test_without_an_h1_the_title_part_a_lower_heading_shows_is_the_headline() -> None:
    nav = "<ul><li><a href='/'>新闻中心</a></li></ul>"
    md = extract_metadata(_no_h1_page(
        "吉林境内车祸致36名香港游客受伤 - 新华社会 - 新华网",
        nav + '<td class="biaoti"><span id="title"> 吉林境内车祸致36名香港游客受伤 '
              "</span></td><p>正文。</p>"))
    assert md.title == "吉林境内车祸致36名香港游客受伤"
    md = extract_metadata(_no_h1_page(
        "流感急速升溫 疾管局再籲注意個人衛生 ｜新聞速報｜中時樂活｜中時電子報",
        '<h3 class="highlight"><!--title begin-->流感急速升溫 疾管局再籲注意個人衛生'
        "<!--title end--></h3><p>正文。</p>"))
    assert md.title == "流感急速升溫 疾管局再籲注意個人衛生"
    # the site's name in front: the headline is the run the heading shows, wherever it stands
    md = extract_metadata(_no_h1_page(
        "Rynek zdrowia - Anglia: obiecująca szczepionka przeciwko HCV",
        "<div class='logo'>Rynek zdrowia</div><h2>Anglia: obiecująca szczepionka przeciwko "
        "HCV</h2><p>Tekst.</p>"))
    assert md.title == "Anglia: obiecująca szczepionka przeciwko HCV"


def test_without_an_h1_a_heading_that_is_not_a_title_part_changes_nothing() -> None:
    # the related-news list holds the headline too, but in no heading-like element
    body = ("<select><option>Boy swallows coin on way to get ice cream</option></select>"
            "<h2>Latest news</h2><p>Text.</p>")
    md = extract_metadata(_no_h1_page("Boy swallows coin on way to get ice cream | Local "
                                      "Herald Daily", body))
    assert md.title == "Boy swallows coin on way to get ice cream | Local Herald Daily"
    # a short part (a section's name) in a heading is not the headline
    body = "<h2 class='section-title'>Health</h2><p>Text.</p>"
    md = extract_metadata(_no_h1_page("Storm closes the old bridge - Health - Harbour Times",
                                      body))
    assert md.title == "Storm closes the old bridge - Health - Harbour Times"
    # an element's text must be the whole run, not hold it among other words
    body = "<div class='title'>Read: Storm closes the old bridge today</div>"
    md = extract_metadata(_no_h1_page("Storm closes the old bridge - Harbour Times", body))
    assert md.title == "Storm closes the old bridge - Harbour Times"
    # the site's name in a banner heading linking to the home page is not the headline
    body = ("<h2 class='logo-type'><a href='/'>Occupational Safety and Health "
            "Administration</a></h2><p>Text.</p>")
    title = "Electrical - Overview | Occupational Safety and Health Administration"
    assert extract_metadata(_no_h1_page(title, body)).title == title


def test_without_an_h1_a_short_headline_before_long_site_names_is_found() -> None:
    # fewer than half of the title's words, but more than any other part
    md = extract_metadata(_no_h1_page(
        "尼古丁替代療法 無助戒菸 | 國際萬象 | 全球觀察 | 聯合新聞網",
        "<div class='story_title' id='story_title'>尼古丁替代療法 無助戒菸</div><p>正文。</p>"))
    assert md.title == "尼古丁替代療法 無助戒菸"
