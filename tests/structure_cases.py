"""Structure cases: HTML fragments inside ordinary article pages, with what a reader must get.

Each case puts one fragment (a table, a nested list, a link mid-sentence, code...) in the
middle of a realistic article in the fragment's language (navigation, title, byline, a few
paragraphs, a footer), so the block model has an article to keep. ``txt`` and ``md`` are
strings that must appear in ``webseg clean``'s text and Markdown; ``absent`` must appear in
neither. Used by ``tests/test_structure_cases.py`` in parsed and rendered mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ARTICLES = {
    "en": ("City council approves new harbour plan",
           ["The city council voted on Tuesday evening to approve a long-debated plan for the "
            "old harbour, ending almost three years of public hearings and revisions.",
            "Under the plan, the former shipyard will be turned into housing, a public park "
            "and a ferry terminal. Construction is expected to start next spring and to last "
            "until the end of the decade.",
            "Residents who spoke at the final hearing were divided. Some welcomed the new "
            "homes, while others worried about traffic and the cost of the terminal."],
           ["The mayor said the council would publish a detailed timetable in the coming "
            "weeks, together with the results of the environmental review.",
            "Opposition members announced that they would ask the regional court to review "
            "the decision, arguing that the public consultation had been too short."]),
    "zh": ("市议会批准新的港口改造计划",
           ["市议会周二晚间投票通过了旧港口改造计划，结束了近三年的公开听证和反复修改。",
            "根据该计划，原造船厂将被改建为住宅、公共公园和渡轮码头。工程预计明年春天开工，"
            "并将持续到本世纪末十年结束。",
            "在最后一次听证会上发言的居民意见不一。一些人欢迎新建住房，另一些人则担心交通"
            "问题和码头的建设成本。"],
           ["市长表示，议会将在未来几周内公布详细的时间表，以及环境评估的结果。",
            "反对派议员宣布，他们将请求地区法院审查这一决定，认为公众咨询的时间太短。"]),
    "ru": ("Городской совет одобрил новый план реконструкции порта",
           ["Во вторник вечером городской совет проголосовал за давно обсуждавшийся план "
            "реконструкции старого порта, завершив почти три года публичных слушаний.",
            "Согласно плану, бывшая верфь будет превращена в жилой квартал, общественный парк "
            "и паромный терминал. Строительство должно начаться следующей весной.",
            "Жители, выступавшие на последних слушаниях, разделились во мнениях. Одни "
            "приветствовали новое жильё, другие опасались пробок и стоимости терминала."],
           ["Мэр заявил, что в ближайшие недели совет опубликует подробный график работ "
            "вместе с результатами экологической экспертизы.",
            "Депутаты от оппозиции объявили, что попросят областной суд проверить решение, "
            "поскольку общественное обсуждение, по их словам, было слишком коротким."]),
    "ar": ("مجلس المدينة يوافق على خطة جديدة لتطوير الميناء",
           ["صوّت مجلس المدينة مساء الثلاثاء على الموافقة على خطة طال النقاش حولها لتطوير "
            "الميناء القديم، منهياً ما يقارب ثلاث سنوات من جلسات الاستماع العامة.",
            "وبموجب الخطة، سيتحول حوض بناء السفن السابق إلى مساكن وحديقة عامة ومحطة للعبّارات. "
            "ومن المتوقع أن يبدأ البناء في الربيع المقبل.",
            "وانقسم السكان الذين تحدثوا في جلسة الاستماع الأخيرة، فرحّب بعضهم بالمساكن الجديدة "
            "بينما أبدى آخرون قلقهم من حركة المرور وتكلفة المحطة."],
           ["وقال رئيس البلدية إن المجلس سينشر جدولاً زمنياً مفصلاً خلال الأسابيع المقبلة، "
            "إلى جانب نتائج المراجعة البيئية.",
            "وأعلن أعضاء المعارضة أنهم سيطلبون من المحكمة الإقليمية مراجعة القرار، معتبرين أن "
            "المشاورات العامة كانت قصيرة جداً."]),
    "el": ("Το δημοτικό συμβούλιο ενέκρινε νέο σχέδιο για το λιμάνι",
           ["Το δημοτικό συμβούλιο ψήφισε την Τρίτη το βράδυ υπέρ ενός πολυσυζητημένου σχεδίου "
            "για το παλιό λιμάνι, βάζοντας τέλος σε σχεδόν τρία χρόνια δημόσιων ακροάσεων.",
            "Σύμφωνα με το σχέδιο, το πρώην ναυπηγείο θα μετατραπεί σε κατοικίες, δημόσιο "
            "πάρκο και σταθμό πορθμείων. Οι εργασίες αναμένεται να ξεκινήσουν την άνοιξη.",
            "Οι κάτοικοι που μίλησαν στην τελευταία ακρόαση διχάστηκαν. Κάποιοι χαιρέτισαν "
            "τις νέες κατοικίες, ενώ άλλοι ανησυχούν για την κίνηση και το κόστος."],
           ["Ο δήμαρχος δήλωσε ότι το συμβούλιο θα δημοσιεύσει αναλυτικό χρονοδιάγραμμα τις "
            "επόμενες εβδομάδες, μαζί με τα αποτελέσματα της περιβαλλοντικής μελέτης.",
            "Μέλη της αντιπολίτευσης ανακοίνωσαν ότι θα ζητήσουν από το περιφερειακό "
            "δικαστήριο να εξετάσει την απόφαση, καθώς η διαβούλευση ήταν πολύ σύντομη."]),
}
ARTICLES["fa"] = ARTICLES["ar"]

NAV = {"en": ["Home", "News", "Sport", "Culture", "Contact"],
       "zh": ["首页", "新闻", "体育", "文化", "联系我们"],
       "ru": ["Главная", "Новости", "Спорт", "Культура", "Контакты"],
       "ar": ["الرئيسية", "أخبار", "رياضة", "ثقافة", "اتصل بنا"],
       "el": ["Αρχική", "Ειδήσεις", "Αθλητισμός", "Πολιτισμός", "Επικοινωνία"]}
NAV["fa"] = NAV["ar"]


def article(fragment: str, lang: str = "en", at_end: bool = False) -> str:
    """An ordinary article page with ``fragment`` after its third paragraph (``at_end``:
    after its last one)."""
    title, before, after = ARTICLES[lang]
    if at_end:
        before, after = before + after, []
    nav = "".join(f'<li><a href="/{k}">{t}</a></li>' for k, t in enumerate(NAV[lang]))
    rtl = ' dir="rtl"' if lang in ("ar", "fa") else ""
    paras = "".join(f"<p>{p}</p>" for p in before)
    tail = "".join(f"<p>{p}</p>" for p in after)
    return (f'<!DOCTYPE html><html lang="{lang}"{rtl}><head><meta charset="utf-8">'
            f"<title>{title} | Harbour Times</title></head><body>"
            f'<header><a href="/">Harbour Times</a><nav><ul>{nav}</ul></nav></header>'
            f"<main><article><h1>{title}</h1><p class=\"byline\">2024-03-12</p>"
            f"{paras}\n{fragment}\n{tail}</article></main>"
            '<aside><h3>Most read</h3><ul><li><a href="/a">Storm closes bridge</a></li>'
            '<li><a href="/b">Library reopens</a></li></ul></aside>'
            "<footer><p>Copyright 2024 Harbour Times</p><a href=\"/privacy\">Privacy</a>"
            "</footer></body></html>")


@dataclass(frozen=True)
class Case:
    name: str
    fragment: str
    txt: tuple[str, ...] = ()
    md: tuple[str, ...] = ()
    lang: str = "en"
    absent: tuple[str, ...] = field(default=())


CASES: tuple[Case, ...] = (
    # ------------------------------------------------------------------ inline tags in words
    Case("bold-inside-word", "<p>Fans across the W<b>orld</b> watched the ferry launch live "
         "on television last night.</p>",
         txt=("Fans across the World watched",), md=("Fans across the W**orld** watched",)),
    Case("price-span", "<p>A single ticket will cost $<span>5.00</span> and a monthly pass "
         "$<span class=amount>48.50</span>, the operator said.</p>",
         txt=("cost $5.00 and a monthly pass $48.50,",), md=("cost $5.00 and a monthly",)),
    Case("subscript", "<p>Engineers measured the H<sub>2</sub>O quality and the "
         "CO<sub>2</sub> output of the old shipyard every week.</p>",
         txt=("the H2O quality and the CO2 output",), md=("the H\u2082O quality and the "
                                                          "CO\u2082 output",)),
    Case("superscript", "<p>The physicist recalled that E=mc<sup>2</sup> was written on the "
         "blackboard of the old harbour school for decades.</p>",
         txt=("recalled that E=mc2 was written",), md=("recalled that E=mc\u00b2 was",)),
    Case("footnote-sup", "<p>The terminal will handle two million passengers a year<sup>"
         "<a href=\"#fn1\">1</a></sup> according to the operator's forecast.</p>",
         txt=("passengers a year1 according",), md=("passengers a year\u00b9 according",)),
    Case("link-mid-sentence", "<p>Visit <a href=\"/team/john\">John</a> today at the "
         "council office to see the plans for the new harbour district.</p>",
         txt=("Visit John today at the council office",),
         md=("Visit John today at the council office",)),
    Case("hashtag-strong", "<p>Residents shared photos of the harbour with the tag "
         "#<strong>YouAreWelcome</strong> throughout the evening.</p>",
         txt=("with the tag #YouAreWelcome throughout",),
         md=("with the tag #**YouAreWelcome** throughout",)),
    Case("italic-title", "<p>The director compared the plan to \u201c<i>Hamlet</i>\u201d: "
         "long, tragic in places, and finally decided by a vote.</p>",
         txt=("compared the plan to \u201cHamlet\u201d: long",),
         md=("compared the plan to \u201c*Hamlet*\u201d: long",)),
    Case("abbr-possessive", "<p>The <abbr title=\"European Union\">EU</abbr>'s regional fund "
         "will pay for a third of the new ferry terminal and the park.</p>",
         txt=("The EU's regional fund",), md=("The EU's regional fund",)),
    Case("spaces-between-inline", "<p>The vote was <b>close</b> <i>and</i> <em>bitter</em>, "
         "with several members changing their minds at the last minute.</p>",
         txt=("The vote was close and bitter, with",),
         md=("The vote was **close** *and* *bitter*, with",)),
    # ------------------------------------------------------------------ invisible characters
    Case("soft-hyphens", "<p>The German partner, the Donau\u00addampf\u00adschiff\u00adfahrts"
         "\u00adgesellschaft, will run the first ferry line from the new terminal.</p>",
         txt=("the Donaudampfschifffahrtsgesellschaft, will",),
         md=("the Donaudampfschifffahrtsgesellschaft, will",)),
    Case("zero-width-space", "<p>The new web\u200bsite harbour\u200bplan\u200b.example will "
         "show\ufeff the timetable once the works begin next spring.</p>",
         txt=("The new website harbourplan.example will show the",),
         md=("The new website harbourplan.example will show the",)),
    # ------------------------------------------------------------------ tables
    Case("table-3x2", "<table><tr><th>City</th><th>Population</th></tr>"
         "<tr><td>Oslo</td><td>700,000</td></tr><tr><td>Bergen</td><td>320,000</td></tr>"
         "</table>",
         txt=("City\tPopulation\nOslo\t700,000\nBergen\t320,000",),
         md=("| City | Population |\n| --- | --- |\n| Oslo | 700,000 |\n| Bergen | 320,000 |",)),
    Case("table-empty-cell", "<table><thead><tr><th>Feature</th><th>Basic</th><th>Pro</th>"
         "<th>Enterprise</th></tr></thead><tbody><tr><td>Parking</td><td>yes</td><td>yes</td>"
         "<td>yes</td></tr><tr><td>Pricing</td><td></td><td>yes</td><td>yes</td></tr>"
         "<tr><td>Support</td><td>no</td><td></td><td>yes</td></tr></tbody></table>",
         txt=("Pricing\t\tyes\tyes", "Support\tno\t\tyes"),
         md=("| Pricing | | yes | yes |", "| Support | no | | yes |")),
    Case("table-colspan", "<table><tr><th>Line</th><th>Mon</th><th>Tue</th></tr>"
         "<tr><td>Ferry A</td><td colspan=\"2\">closed for repairs</td></tr>"
         "<tr><td>Ferry B</td><td>08:00</td><td>09:30</td></tr></table>",
         txt=("Ferry A\tclosed for repairs", "Ferry B\t08:00\t09:30"),
         md=("| Ferry A | closed for repairs | |", "| Ferry B | 08:00 | 09:30 |")),
    Case("table-rowspan", "<table><tr><th>Pier</th><th>Berth</th><th>Length</th></tr>"
         "<tr><td rowspan=\"2\">North</td><td>N1</td><td>120 m</td></tr>"
         "<tr><td>N2</td><td>95 m</td></tr><tr><td>South</td><td>S1</td><td>210 m</td></tr>"
         "</table>",
         txt=("North\tN1\t120 m", "N2\t95 m"),
         md=("| North | N1 | 120 m |", "| | N2 | 95 m |", "| South | S1 | 210 m |")),
    Case("table-caption-numbers", "<table><caption>Budget by year</caption>"
         "<tr><th>Year</th><th>Million</th></tr><tr><td>2025</td><td>12.5</td></tr>"
         "<tr><td>2026</td><td>30.1</td></tr><tr><td>2027</td><td>8.0</td></tr></table>",
         txt=("Budget by year", "Year\tMillion\n2025\t12.5\n2026\t30.1\n2027\t8.0"),
         md=("| 2026 | 30.1 |",)),
    # ------------------------------------------------------------------ lists
    Case("nested-list", "<p>The market stalls will sell:</p><ul><li>Fruit<ul><li>Apple</li>"
         "<li>Pear</li></ul></li><li>Vegetables<ul><li>Leek</li><li>Kale</li></ul></li></ul>",
         txt=("Fruit\nApple\nPear\nVegetables\nLeek\nKale",),
         md=("- Fruit\n  - Apple\n  - Pear\n- Vegetables\n  - Leek\n  - Kale",)),
    Case("ordered-nested-list", "<p>The works come in phases:</p><ol><li>Demolition<ul>"
         "<li>Old cranes</li><li>Warehouses</li></ul></li><li>Housing</li><li>Park</li></ol>",
         txt=("Demolition\nOld cranes\nWarehouses\nHousing\nPark",),
         md=("1. Demolition\n   - Old cranes\n   - Warehouses\n2. Housing\n3. Park",)),
    Case("list-with-links", "<p>Documents published by the council:</p><ul>"
         "<li>The <a href=\"/d/1\">final plan</a>, adopted on Tuesday after three years of "
         "hearings</li><li>A <a href=\"/d/2\">traffic study</a> of the new access roads and "
         "the bridge</li><li>The minutes of every public hearing since 2021</li></ul>",
         txt=("The final plan, adopted on Tuesday after three years of hearings\nA traffic "
              "study of the new access roads",),
         md=("- The final plan, adopted on Tuesday after three years of hearings\n- A traffic "
             "study of the new access roads and the bridge\n- The minutes",)),
    Case("table-of-contents-dropped", "<nav class=\"toc\"><p>Contents</p><ul><li><a "
         "href=\"#a\">Background of the plan</a></li><li><a href=\"#b\">Costs and "
         "funding</a></li><li><a href=\"#c\">What residents said</a></li></ul></nav>",
         absent=("Background of the plan", "Costs and funding")),
    # ------------------------------------------------------------------ headings
    Case("heading-h2", "<h2>Background</h2><p>The harbour has been closed to cargo ships "
         "since 2009, when the last shipyard moved to the coast.</p>",
         txt=("Background\nThe harbour has been closed",), md=("## Background\n\nThe harbour",)),
    Case("heading-h3-short", "<h3>Costs</h3><p>The total cost is estimated at 450 million, "
         "of which the city pays about a fifth.</p>",
         txt=("Costs\nThe total cost",), md=("### Costs\n\nThe total cost",)),
    Case("heading-with-em", "<h2>What <em>residents</em> said</h2><p>Most speakers at the "
         "hearing asked for more green space and fewer parking places.</p>",
         txt=("What residents said\nMost speakers",), md=("## What residents said",)),
    # ------------------------------------------------------------------ code
    Case("inline-code", "<p>Developers can fetch the open data with <code>pip install "
         "harbour-data</code> and read the timetable with <code>load_timetable()</code>.</p>",
         txt=("with pip install harbour-data and read",),
         md=("with `pip install harbour-data` and read the timetable with "
             "`load_timetable()`.",)),
    Case("pre-highlighted-python", "<p>The open-data portal gives this example:</p>"
         "<pre class=\"language-python\"><code><span class=k>def</span> <span class=nf>"
         "berths</span>(<span class=n>pier</span>):\n    <span class=k>return</span> "
         "<span class=n>pier</span>.<span class=n>berths</span>\n</code></pre>",
         txt=("def berths(pier):\n    return pier.berths",),
         md=("```python\ndef berths(pier):\n    return pier.berths\n```",)),
    Case("pre-plain", "<p>The ferry timetable file looks like this:</p><pre>"
         "LINE  DEP    ARR\nA     08:00  08:25\nB     09:30  10:05</pre>",
         txt=("LINE  DEP    ARR\nA     08:00  08:25\nB     09:30  10:05",),
         md=("```\nLINE  DEP    ARR\nA     08:00  08:25\nB     09:30  10:05\n```",)),
    Case("code-graphql-spans", "<p>The API accepts queries such as:</p><pre><code "
         "class=\"language-graphql\"><span>type</span> <span>Query</span> {\n  "
         "<span>ferries</span>: [<span>Ferry</span>]\n}</code></pre>",
         txt=("type Query {\n  ferries: [Ferry]\n}",),
         md=("```graphql\ntype Query {\n  ferries: [Ferry]\n}\n```",)),
    # ------------------------------------------------------------------ figures, dl, quotes
    Case("figure-caption", "<figure><img src=\"/img/plan.jpg\" alt=\"Plan\"><figcaption>The "
         "planned park seen from the water (illustration: city of Harbour)</figcaption>"
         "</figure>",
         txt=("The planned park seen from the water (illustration: city of Harbour)",),
         md=("The planned park seen from the water (illustration: city of Harbour)",)),
    Case("definition-list", "<p>Terms used in the plan:</p><dl><dt>Berth</dt><dd>A place "
         "where a ship is moored.</dd><dt>Quay</dt><dd>A platform along the water.</dd></dl>",
         txt=("Berth\nA place where a ship is moored.\nQuay\nA platform along the water.",),
         md=("Berth\n: A place where a ship is moored.", "Quay\n: A platform along the "
             "water.")),
    Case("blockquote-two-paragraphs", "<blockquote><p>We have waited long enough for this "
         "harbour to come back to life.</p><p>Now the work can begin.</p></blockquote>",
         txt=("We have waited long enough for this harbour to come back to life.\nNow the "
              "work can begin.",),
         md=("> We have waited long enough for this harbour to come back to life.\n>\n> Now "
             "the work can begin.",)),
    Case("line-breaks", "<p>Harbour Office<br>12 Quay Street<br>Open Monday to Friday</p>",
         txt=("Harbour Office\n12 Quay Street\nOpen Monday to Friday",),
         md=("Harbour Office\n12 Quay Street\nOpen Monday to Friday",)),
    # ------------------------------------------------------------------ CJK
    Case("zh-bold-in-word",
         "<p>来自北京<b>大学</b>的专家参加了听证会，并对码头设计提出了建议。</p>",
         lang="zh", txt=("来自北京大学的专家参加了听证会",), md=("来自北京**大学**的专家",)),
    Case("zh-link-mid-sentence", "<p>市民可以访问<a href=\"/plan\">官方网站</a>了解改造计划的"
         "全部细节和时间安排。</p>", lang="zh",
         txt=("市民可以访问官方网站了解改造计划",), md=("市民可以访问官方网站了解改造计划",)),
    Case("zh-table", "<table><tr><th>区域</th><th>面积</th></tr><tr><td>住宅</td>"
         "<td>12公顷</td></tr><tr><td>公园</td><td>8公顷</td></tr></table>", lang="zh",
         txt=("区域\t面积\n住宅\t12公顷\n公园\t8公顷",),
         md=("| 区域 | 面积 |\n| --- | --- |\n| 住宅 | 12公顷 |\n| 公园 | 8公顷 |",)),
    Case("zh-nested-list", "<p>工程分为以下几个阶段：</p><ul><li>拆除<ul><li>旧起重机</li>"
         "<li>仓库</li></ul></li><li>住宅建设</li></ul>", lang="zh",
         txt=("拆除\n旧起重机\n仓库\n住宅建设",),
         md=("- 拆除\n  - 旧起重机\n  - 仓库\n- 住宅建设",)),
    # ------------------------------------------------------------------ Cyrillic
    Case("ru-table-empty-cell", "<table><tr><th>Линия</th><th>Пн</th><th>Вт</th></tr>"
         "<tr><td>Паром А</td><td></td><td>08:00</td></tr><tr><td>Паром Б</td><td>09:30</td>"
         "<td>10:00</td></tr></table>", lang="ru",
         txt=("Паром А\t\t08:00",), md=("| Паром А | | 08:00 |",)),
    Case("ru-heading-list", "<h2>Что изменится</h2><ul><li>Новые дома</li><li>Парк у воды"
         "</li><li>Паромный терминал</li></ul>", lang="ru",
         txt=("Что изменится\nНовые дома\nПарк у воды\nПаромный терминал",),
         md=("## Что изменится\n\n- Новые дома\n- Парк у воды\n- Паромный терминал",)),
    Case("ru-soft-hyphen-bold", "<p>Новая элек\u00adтро\u00adстан\u00adция обеспечит "
         "<b>паро</b>мы энергией уже в следующем году, заявили в мэрии.</p>", lang="ru",
         txt=("Новая электростанция обеспечит паромы энергией",),
         md=("Новая электростанция обеспечит **паро**мы энергией",)),
    # ------------------------------------------------------------------ Arabic / RTL
    Case("ar-link-mid-sentence", "<p>يمكن للسكان زيارة <a href=\"/plan\">الموقع الرسمي</a> "
         "للاطلاع على تفاصيل الخطة والجدول الزمني للأعمال.</p>", lang="ar",
         txt=("يمكن للسكان زيارة الموقع الرسمي للاطلاع",),
         md=("يمكن للسكان زيارة الموقع الرسمي للاطلاع",)),
    Case("ar-list", "<p>وتشمل الخطة ما يلي:</p><ol><li>مساكن جديدة</li><li>حديقة عامة</li>"
         "<li>محطة للعبّارات</li></ol>", lang="ar",
         txt=("مساكن جديدة\nحديقة عامة\nمحطة للعبّارات",),
         md=("1. مساكن جديدة\n2. حديقة عامة\n3. محطة للعبّارات",)),
    Case("fa-zwnj", "<p>ساکنان می\u200cخواهند که کار\u200cها هر چه زودتر آغاز شود و پارک "
         "ساحلی در بهار آینده باز شود.</p>", lang="fa",
         txt=("ساکنان می\u200cخواهند که کار\u200cها",), md=("ساکنان می\u200cخواهند",)),
    # ------------------------------------------------------------------ Greek
    Case("el-table-colspan", "<table><tr><th>Γραμμή</th><th>Δευ</th><th>Τρι</th></tr>"
         "<tr><td>Πλοίο Α</td><td colspan=\"2\">εκτός λειτουργίας</td></tr>"
         "<tr><td>Πλοίο Β</td><td>08:00</td><td>09:30</td></tr></table>", lang="el",
         txt=("Πλοίο Α\tεκτός λειτουργίας", "Πλοίο Β\t08:00\t09:30"),
         md=("| Πλοίο Α | εκτός λειτουργίας | |",)),
    Case("el-blockquote", "<blockquote><p>Περιμέναμε πολλά χρόνια για αυτή τη στιγμή.</p>"
         "</blockquote>", lang="el",
         txt=("Περιμέναμε πολλά χρόνια για αυτή τη στιγμή.",),
         md=("> Περιμέναμε πολλά χρόνια για αυτή τη στιγμή.",)),
    Case("el-subscript", "<p>Οι εκπομπές CO<sub>2</sub> του λιμανιού θα μειωθούν κατά το "
         "ήμισυ μέχρι το τέλος της δεκαετίας, σύμφωνα με τη μελέτη.</p>", lang="el",
         txt=("Οι εκπομπές CO2 του λιμανιού",), md=("Οι εκπομπές CO\u2082 του λιμανιού",)),
    # ------------------------------------------------------------------ news details
    Case("image-caption-div", "<div class=\"wp-caption\"><img src=\"/img/pier.jpg\" "
         "alt=\"Pier\"><p class=\"wp-caption-text\">The old pier at low tide (photo: Harbour "
         "Times)</p></div>",
         txt=("The old pier at low tide (photo: Harbour Times)",),
         md=("The old pier at low tide (photo: Harbour Times)",)),
    Case("related-list-in-article", "<div class=\"related-articles\"><h3>Read also</h3><ul>"
         "<li><a href=\"/n/1\">Storm surge floods the old town</a></li>"
         "<li><a href=\"/n/2\">Ferry fares to rise in January</a></li>"
         "<li><a href=\"/n/3\">New mayor sworn in at the town hall</a></li></ul></div>",
         txt=(), md=(), absent=("Storm surge floods", "Ferry fares to rise", "Read also")),
    Case("white-space-pre-div", "<div style=\"white-space: pre\">Departures  Arrivals\n"
         "08:00       09:30\n  (weekdays only)</div>",
         txt=("Departures  Arrivals\n08:00       09:30\n  (weekdays only)",),
         md=("Departures  Arrivals\n08:00       09:30\n  (weekdays only)",)),
    Case("el-pre-line-poem", "<p style=\"white-space: pre-line\">Στο λιμάνι   φυσάει,\n"
         "        τα πλοία περιμένουν,\n        η πόλη ξυπνά.</p>", lang="el",
         txt=("Στο λιμάνι φυσάει,\nτα πλοία περιμένουν,\nη πόλη ξυπνά.",),
         md=("Στο λιμάνι φυσάει,\nτα πλοία περιμένουν,\nη πόλη ξυπνά.",)),
    # ------------------------------------------------------------------ line breaks
    Case("double-br-paragraphs", "<div class=\"text\">The ferry returned to its usual timetable "
         "on Monday morning after three days of storms.<br/>\n<br/>\nPassengers with tickets "
         "for cancelled crossings can use them on any sailing this month.<br>Engineers "
         "checked the hull before the ferry sailed again.</div>",
         txt=("after three days of storms.\nPassengers with tickets",),
         md=("after three days of storms.\n\nPassengers with tickets",
             "on any sailing this month.\nEngineers checked")),
)

# ---------------------------------------------------------------------- harder variations
# Cases a demanding tester writes against naive rules: sectioned tables, spans in both
# directions, lists in cells, list attributes, invisible characters, special characters of
# Markdown, long tables, scripts without spaces.
_LONG_ROWS = "".join(f"<tr><td>Berth {k}</td><td>{90 + 5 * k} m</td>"
                     f"<td>{'free' if k % 3 else 'taken'}</td></tr>" for k in range(1, 23))
HARD_CASES: tuple[Case, ...] = (
    # ------------------------------------------------------------------ tables
    Case("table-thead-tbody-tfoot", "<table><thead><tr><th>Item</th><th>Cost</th></tr></thead>"
         "<tbody><tr><td>Dredging</td><td>120</td></tr><tr><td>Park</td><td>80</td></tr>"
         "</tbody><tfoot><tr><td>Total</td><td>200</td></tr></tfoot></table>",
         txt=("Item\tCost\nDredging\t120\nPark\t80\nTotal\t200",),
         md=("| Item | Cost |\n| --- | --- |\n| Dredging | 120 |\n| Park | 80 |\n"
             "| Total | 200 |",)),
    Case("table-row-headers", "<table><tr><th></th><th>Opens</th><th>Closes</th></tr>"
         "<tr><th scope=\"row\">Monday</th><td>08:00</td><td>17:00</td></tr>"
         "<tr><th scope=\"row\">Saturday</th><td>10:00</td><td>14:00</td></tr></table>",
         txt=("\tOpens\tCloses\nMonday\t08:00\t17:00\nSaturday\t10:00\t14:00",),
         md=("| | Opens | Closes |\n| --- | --- | --- |\n| Monday | 08:00 | 17:00 |",)),
    Case("table-rowspan-and-colspan", "<table><tr><th rowspan=\"2\">Pier</th>"
         "<th colspan=\"2\">Depth</th></tr><tr><th>Low tide</th><th>High tide</th></tr>"
         "<tr><td>North</td><td>4 m</td><td>6 m</td></tr>"
         "<tr><td>South</td><td colspan=\"2\">not measured</td></tr></table>",
         txt=("North\t4 m\t6 m", "South\tnot measured"),
         md=("| Pier | Depth | |\n| --- | --- | --- |\n| | Low tide | High tide |\n"
             "| North | 4 m | 6 m |\n| South | not measured | |",)),
    Case("table-nbsp-empty-cell", "<table><tr><th>Service</th><th>Basic</th><th>Pro</th></tr>"
         "<tr><td>Parking</td><td>&nbsp;</td><td>yes</td></tr>"
         "<tr><td>Storage</td><td>yes</td><td> </td></tr></table>",
         txt=("Parking\t\tyes", "Storage\tyes"),
         md=("| Parking | | yes |", "| Storage | yes | |")),
    Case("table-pipe-in-cell", "<table><tr><th>Route</th><th>Stops</th></tr>"
         "<tr><td>Line A</td><td>Quay | Market | Station</td></tr>"
         "<tr><td>Line B</td><td>Quay | Park</td></tr></table>",
         txt=("Line A\tQuay | Market | Station",),
         md=("| Line A | Quay \\| Market \\| Station |",)),
    Case("table-br-in-cell", "<table><tr><th>Office</th><th>Address</th></tr>"
         "<tr><td>Harbour office</td><td>12 Quay Street<br>Old Town</td></tr>"
         "<tr><td>Ferry desk</td><td>Pier 3</td></tr></table>",
         txt=("Harbour office\t12 Quay Street", "Ferry desk\tPier 3"),
         md=("| Harbour office | 12 Quay Street<br>Old Town |", "| Ferry desk | Pier 3 |")),
    Case("table-list-in-cell", "<table><tr><th>Stall</th><th>Sells</th></tr>"
         "<tr><td>Kiosk</td><td><ul><li>Bread</li><li>Milk</li></ul></td></tr>"
         "<tr><td>Fish stand</td><td>Herring</td></tr></table>",
         txt=("Kiosk\tBread", "Milk", "Fish stand\tHerring"),
         md=("Bread", "Milk", "Herring")),
    Case("table-nested-in-cell", "<table><tr><th>Line</th><th>Times</th></tr>"
         "<tr><td>Ferry A</td><td><table><tr><td>Weekdays</td><td>08:00</td></tr>"
         "<tr><td>Sundays</td><td>10:00</td></tr></table></td></tr>"
         "<tr><td>Ferry B</td><td>every hour</td></tr></table>",
         txt=("Weekdays\t08:00", "Sundays\t10:00", "Ferry B\tevery hour"),
         md=("| Ferry A | Weekdays 08:00<br>Sundays 10:00 |\n| Ferry B | every hour |",)),
    Case("table-long", "<p>Berths in the new marina:</p><table><tr><th>Berth</th>"
         f"<th>Length</th><th>Status</th></tr>{_LONG_ROWS}</table>",
         txt=("Berth\tLength\tStatus\nBerth 1\t95 m\tfree", "Berth 12\t150 m\ttaken",
              "Berth 22\t200 m\tfree"),
         md=("| Berth | Length | Status |\n| --- | --- | --- |\n| Berth 1 | 95 m | free |",
             "| Berth 21 | 195 m | taken |\n| Berth 22 | 200 m | free |")),
    Case("table-data-beside-layout", "<table class=\"layout\" width=\"100%\"><tr><td>"
         "<p>The ferry terminal will have two floors, a waiting hall with large windows "
         "facing the water, and a roof terrace open to the public in summer.</p></td>"
         "<td><p>Its architects won an international competition with 48 entries last "
         "year, judged by a panel of residents and engineers.</p></td></tr></table>"
         "<table><tr><th>Floor</th><th>Use</th></tr><tr><td>Ground</td><td>Tickets</td>"
         "</tr><tr><td>First</td><td>Waiting hall</td></tr></table>",
         txt=("The ferry terminal will have two floors", "Its architects won",
              "Floor\tUse\nGround\tTickets\nFirst\tWaiting hall"),
         md=("\nThe ferry terminal will have two floors", "\nIts architects won",
             "| Floor | Use |\n| --- | --- |\n| Ground | Tickets |")),
    # ------------------------------------------------------------------ lists
    Case("list-item-paragraphs", "<p>Two changes were made after the hearings:</p><ul>"
         "<li><p>The park grows by two hectares.</p><p>It now reaches the old lighthouse."
         "</p></li><li><p>The terminal moves fifty metres east.</p></li></ul>",
         txt=("The park grows by two hectares.\nIt now reaches the old lighthouse.\n"
              "The terminal moves fifty metres east.",),
         md=("- The park grows by two hectares.\n\n  It now reaches the old lighthouse.",
             "- The terminal moves fifty metres east.")),
    Case("ordered-list-start", "<p>The last steps of the plan:</p><ol start=\"7\">"
         "<li>Plant the trees</li><li>Open the park</li><li>Start the ferry line</li></ol>",
         txt=("Plant the trees\nOpen the park\nStart the ferry line",),
         md=("7. Plant the trees\n8. Open the park\n9. Start the ferry line",)),
    Case("ordered-list-reversed", "<p>The countdown to the opening:</p><ol reversed>"
         "<li>Final inspection</li><li>Test sailing</li><li>Opening ceremony</li></ol>",
         txt=("Final inspection\nTest sailing\nOpening ceremony",),
         md=("3. Final inspection\n2. Test sailing\n1. Opening ceremony",)),
    Case("task-list", "<p>Progress so far:</p><ul class=\"tasks\"><li><input type=\"checkbox\" "
         "checked disabled> Dredging of the basin</li><li><input type=\"checkbox\" disabled> "
         "Planting of the park</li></ul>",
         txt=("Dredging of the basin\nPlanting of the park",),
         md=("- [x] Dredging of the basin\n- [ ] Planting of the park",)),
    Case("list-three-levels", "<p>Who pays for what:</p><ul><li>City<ol><li>Park<ul>"
         "<li>Trees</li><li>Benches</li></ul></li><li>Roads</li></ol></li><li>State</li></ul>",
         txt=("City\nPark\nTrees\nBenches\nRoads\nState",),
         md=("- City\n  1. Park\n     - Trees\n     - Benches\n  2. Roads\n- State",)),
    Case("list-item-br", "<p>Contact points:</p><ul><li>Harbour office<br>12 Quay Street</li>"
         "<li>Ferry desk<br>Pier 3</li></ul>",
         txt=("Harbour office\n12 Quay Street\nFerry desk\nPier 3",),
         md=("- Harbour office\n  12 Quay Street\n- Ferry desk\n  Pier 3",)),
    Case("dl-several-dd", "<p>Who runs the services:</p><dl><dt>Ferries</dt>"
         "<dd>Harbour Lines</dd><dd>Coastal Shipping</dd><dt>Parking</dt><dd>City of Harbour"
         "</dd></dl>",
         txt=("Ferries\nHarbour Lines\nCoastal Shipping\nParking\nCity of Harbour",),
         md=("Ferries\n: Harbour Lines\n: Coastal Shipping",)),
    Case("blockquote-with-list", "<blockquote><p>The plan gives the town three things:</p>"
         "<ul><li>homes</li><li>a park</li><li>jobs</li></ul></blockquote>",
         txt=("The plan gives the town three things:\nhomes\na park\njobs",),
         md=("> The plan gives the town three things:\n>\n> - homes\n> - a park\n> - jobs",)),
    # ------------------------------------------------------------------ inline elements
    Case("inline-phrasing-tags", "<p>Press <kbd>Ctrl</kbd>+<kbd>F</kbd> to search the "
         "<mark>full</mark> plan; the budget rose from <del>450</del> <ins>480</ins> million "
         "on <time datetime=\"2024-05-01\">1 May</time> <small>(estimate)</small>.</p>",
         txt=("Press Ctrl+F to search the full plan; the budget rose from 450 480 million "
              "on 1 May (estimate).",),
         md=("the budget rose from ~~450~~ 480 million on 1 May (estimate).",)),
    Case("quote-element", "<p>The mayor called the vote <q>a new start for the harbour</q>, "
         "and thanked the residents for their patience.</p>",
         txt=("a new start for the harbour", "and thanked the residents"),
         md=("a new start for the harbour",)),
    Case("wbr-and-nbsp", "<p>The Donau<wbr>dampf<wbr>schiff company will run ferries "
         "every&nbsp;&nbsp;20&nbsp;minutes from the new terminal.</p>",
         txt=("The Donaudampfschiff company",), md=("The Donaudampfschiff company",)),
    Case("display-block-spans", "<p>The new timetable, in short:"
         "<span style=\"display:block\">Weekdays every 20 minutes</span>"
         "<span style=\"display: block\">Weekends every hour</span></p>",
         txt=("The new timetable, in short:\nWeekdays every 20 minutes\nWeekends every hour",),
         md=("Weekdays every 20 minutes\nWeekends every hour",)),
    Case("sup-negative-exponent", "<p>The sediment holds 10<sup>-3</sup> grams of lead per "
         "litre, and the basin is 2&times;10<sup>5</sup> m<sup>2</sup> wide.</p>",
         txt=("holds 10-3 grams", "2\u00d7105 m2 wide"),
         md=("holds 10\u207b\u00b3 grams", "2\u00d710\u2075 m\u00b2 wide")),
    Case("image-inline-alt", "<p>Tap the <img src=\"/i/share.png\" alt=\"share\"> icon to "
         "send the plan to a friend, or print it from the council website.</p>",
         txt=("Tap the icon to send the plan",), md=("Tap the icon to send the plan",)),
    Case("link-around-image", "<p><a href=\"/img/big.jpg\"><img src=\"/img/small.jpg\" "
         "alt=\"The pier\"></a></p><p>The photo shows the pier before the works began in "
         "the spring of last year.</p>",
         txt=("The photo shows the pier before the works",),
         md=("The photo shows the pier before the works",), absent=("[](",)),
    Case("figure-two-images", "<figure><img src=\"/a.jpg\" alt=\"Before\"><img src=\"/b.jpg\" "
         "alt=\"After\"><figcaption>The quay before and after the works (photos: city "
         "archive)</figcaption></figure>",
         txt=("The quay before and after the works (photos: city archive)",),
         md=("The quay before and after the works (photos: city archive)",)),
    Case("details-open", "<details open><summary>Full ferry timetable</summary><p>Ferries "
         "leave every twenty minutes from six in the morning until midnight.</p></details>",
         txt=("Full ferry timetable\nFerries leave every twenty minutes",),
         md=("Full ferry timetable", "Ferries leave every twenty minutes")),
    # ------------------------------------------------------------------ code
    Case("pre-tabs-blank-lines", "<p>The script that checks the tide data:</p><pre><code>"
         "def check(level):\n\tif level &gt; 4:\n\t\treturn 'high'\n\n\n\treturn 'low'\n"
         "</code></pre>",
         txt=("def check(level):\n\tif level > 4:\n\t\treturn 'high'\n\n\n\treturn 'low'",),
         md=("```\ndef check(level):\n\tif level > 4:\n\t\treturn 'high'\n\n\n\treturn 'low'"
             "\n```",)),
    Case("pre-js-entities", "<p>The map widget is embedded like this:</p>"
         "<pre><code class=\"language-js\">if (a &lt; b &amp;&amp; c &gt; d) {\n"
         "  el.innerHTML = \"&lt;div&gt;pier&lt;/div&gt;\";\n}</code></pre>",
         txt=("if (a < b && c > d) {\n  el.innerHTML = \"<div>pier</div>\";\n}",),
         md=("```js\nif (a < b && c > d) {\n  el.innerHTML = \"<div>pier</div>\";\n}\n```",)),
    Case("pre-leading-spaces", "<p>The sign at the pier reads:</p><pre>\n"
         "    NO SWIMMING\n      NO FISHING\n    Harbour Office</pre>",
         txt=("    NO SWIMMING\n      NO FISHING\n    Harbour Office",),
         md=("    NO SWIMMING\n      NO FISHING\n    Harbour Office\n```",)),
    Case("inline-code-backticks", "<p>In the shell, quote it as <code>echo `date`</code> or "
         "use <code>$(date)</code> instead.</p>",
         txt=("quote it as echo `date` or use $(date) instead.",),
         md=("quote it as `` echo `date` `` or use `$(date)` instead.",)),
    # ------------------------------------------------------------------ Markdown specials
    Case("markdown-special-text", "<p>* Not a bullet: the council rated it 5*5 on the "
         "scale.</p><p># Not a heading either, said the clerk about snake_case names.</p>"
         "<p>1. Not a list: the first item of the agenda was the harbour.</p>",
         txt=("* Not a bullet: the council rated it 5*5", "# Not a heading either",
              "1. Not a list: the first item"),
         md=("\\* Not a bullet", "\\# Not a heading either", "1\\. Not a list",
             "about snake_case names.")),
    Case("angle-brackets-and-code-entities", "<p>The rule reads: if depth &lt; 4 m and wind "
         "&gt; 20 knots, wrap the label in <code>&lt;b&gt;</code> tags and cite [1] in the "
         "log.</p>",
         txt=("if depth < 4 m and wind > 20 knots, wrap the label in <b> tags and cite [1]",),
         md=("if depth < 4 m and wind > 20 knots, wrap the label in `<b>` tags and cite [1]",)),
    Case("heading-permalink", "<h2 id=\"costs\">Costs and funding<a class=\"headerlink\" "
         "href=\"#costs\" title=\"Permalink\">\u00b6</a></h2><p>The state pays a third of "
         "the total, the rest comes from the city and the port authority.</p>",
         txt=("Costs and funding\nThe state pays a third",),
         md=("## Costs and funding\n\nThe state pays a third",), absent=("\u00b6",)),
    Case("bold-line-heading", "<p><strong>What happens next</strong></p><p>The council "
         "will publish the tender for the first construction works in the autumn.</p>",
         txt=("What happens next\nThe council will publish the tender",),
         md=("What happens next", "The council will publish the tender")),
    # ------------------------------------------------------------------ scripts
    Case("zh-inline-between-chars", "<p>代表团在北<b>京</b>和上<span>海</span>考察了"
         "<a href=\"/p\">港口</a>项目，并在<em>广州</em>召开了会议。</p>", lang="zh",
         txt=("代表团在北京和上海考察了港口项目，并在广州召开了会议。",),
         md=("代表团在北**京**和上海考察了港口项目，并在*广州*召开了会议。",)),
    Case("zh-list-table-mixed", "<p>项目预算如下：</p><table><thead><tr><th>项目</th>"
         "<th>金额（亿元）</th></tr></thead><tbody><tr><td>码头</td><td>3.5</td></tr>"
         "<tr><td>公园</td><td></td></tr></tbody></table>", lang="zh",
         txt=("项目\t金额（亿元）\n码头\t3.5\n公园",),
         md=("| 码头 | 3.5 |\n| 公园 | |",)),
    Case("ar-inline-ltr", "<p>أعلن المشغل أن تطبيق <b>Harbour App</b> الجديد سيتيح حجز "
         "تذاكر <code>A-12</code> عبر الإنترنت اعتباراً من <time>2025</time>.</p>", lang="ar",
         txt=("تطبيق Harbour App الجديد سيتيح حجز تذاكر A-12 عبر الإنترنت اعتباراً من 2025.",),
         md=("تطبيق **Harbour App** الجديد سيتيح حجز تذاكر `A-12` عبر",)),
    Case("ar-table-rtl", "<table><tr><th>الرصيف</th><th>الطول</th></tr><tr><td>الشمالي</td>"
         "<td>120 م</td></tr><tr><td>الجنوبي</td><td></td></tr></table>", lang="ar",
         txt=("الرصيف\tالطول\nالشمالي\t120 م\nالجنوبي",),
         md=("| الشمالي | 120 م |\n| الجنوبي | |",)),
    Case("he-paragraph-bold", "<p>ראש העיר אמר כי <b>הנמל</b> החדש ייפתח ב<span>2026</span>, "
         "ושהתושבים יוכלו להשתמש בו מיד.</p>", lang="ar",
         txt=("ראש העיר אמר כי הנמל החדש ייפתח ב2026, ושהתושבים",),
         md=("ראש העיר אמר כי **הנמל** החדש ייפתח ב2026,",)),
    Case("thai-inline", "<p>คณะผู้แทนเดินทางไปกรุง<b>เทพ</b>มหานครเพื่อศึกษาท่าเรือ"
         "<a href=\"/t\">แหลมฉบัง</a>ในเดือนมีนาคม</p>",
         txt=("คณะผู้แทนเดินทางไปกรุงเทพมหานครเพื่อศึกษาท่าเรือแหลมฉบังในเดือนมีนาคม",),
         md=("ไปกรุง**เทพ**มหานครเพื่อศึกษาท่าเรือแหลมฉบังในเดือนมีนาคม",)),
    Case("devanagari-zwj-zwnj", "<p>बंदरगाह परियोजना पर चर्चा के लिए मंत्री ने "
         "क्\u200dष और स्\u200cत्री जैसे शब्द लिखे, और हिं\u00adदी में <b>घोष</b>णा की।</p>",
         txt=("क्\u200dष और स्\u200cत्री जैसे शब्द लिखे, और हिंदी में घोषणा की।",),
         md=("क्\u200dष और स्\u200cत्री", "हिंदी में **घोष**णा की।")),
    Case("ru-nested-list-links", "<p>Документы совета:</p><ul><li>План<ul><li><a href=\"/a\">"
         "Основной текст</a></li><li><a href=\"/b\">Приложения</a></li></ul></li>"
         "<li>Протоколы слушаний</li></ul>", lang="ru",
         txt=("План\nОсновной текст\nПриложения\nПротоколы слушаний",),
         md=("- План\n  - Основной текст\n  - Приложения\n- Протоколы слушаний",)),
    Case("el-table-thead-rowspan", "<table><thead><tr><th>Προβλήτα</th><th>Θέση</th>"
         "<th>Μήκος</th></tr></thead><tbody><tr><td rowspan=\"2\">Βόρεια</td><td>Β1</td>"
         "<td>120 μ</td></tr><tr><td>Β2</td><td>95 μ</td></tr></tbody></table>", lang="el",
         txt=("Βόρεια\tΒ1\t120 μ",),
         md=("| Βόρεια | Β1 | 120 μ |\n| | Β2 | 95 μ |",)),
    Case("el-ordered-list-bold", "<h3>Τα επόμενα βήματα</h3><ol><li><b>Διαγωνισμός</b> για "
         "τα έργα</li><li>Έναρξη <em>εργασιών</em></li></ol>", lang="el",
         txt=("Τα επόμενα βήματα\nΔιαγωνισμός για τα έργα\nΈναρξη εργασιών",),
         md=("### Τα επόμενα βήματα\n\n1. **Διαγωνισμός** για τα έργα\n2. Έναρξη *εργασιών*",)),
)
HARD_CASES += (
    Case("table-in-figure", "<figure><table><tr><th>Pier</th><th>Depth</th></tr><tr><td>N</td>"
         "<td>4 m</td></tr><tr><td>S</td><td>6 m</td></tr></table><figcaption>Depths at low "
         "tide</figcaption></figure>",
         txt=("Pier\tDepth\nN\t4 m\nS\t6 m\nDepths at low tide",),
         md=("| Pier | Depth |\n| --- | --- |\n| N | 4 m |\n| S | 6 m |\n\nDepths at low tide",)),
    Case("table-ragged-rows", "<table><tr><th>Line</th><th>First</th><th>Last</th></tr>"
         "<tr><td>A</td><td>06:00</td></tr><tr><td>B</td><td>07:00</td><td>23:00</td></tr>"
         "</table>",
         txt=("Line\tFirst\tLast\nA\t06:00\nB\t07:00\t23:00",),
         md=("| A | 06:00 | |\n| B | 07:00 | 23:00 |",)),
    Case("code-in-list-item", "<p>To get the data:</p><ol><li>Install it:<pre><code>pip "
         "install harbour-data</code></pre></li><li>Run <code>harbour fetch</code></li></ol>",
         txt=("Install it:\npip install harbour-data\nRun harbour fetch",),
         md=("1. Install it:\n\n   ```\n   pip install harbour-data\n   ```\n\n"
             "2. Run `harbour fetch`",)),
    Case("code-in-blockquote", "<blockquote><p>The engineer typed:</p><pre>ls -la\n"
         "cd /srv/harbour</pre></blockquote>",
         txt=("The engineer typed:\nls -la\ncd /srv/harbour",),
         md=("> The engineer typed:\n>\n> ```\n> ls -la\n> cd /srv/harbour\n> ```",)),
    Case("emphasis-edge-spaces", "<p>The vote was a <b>close </b>call and <em> a bitter</em> "
         "one for all the members of the council.</p>",
         txt=("The vote was a close call and a bitter one",),
         md=("The vote was a **close** call and *a bitter* one",)),
    Case("entity-shy-zwnj-emoji", "<p>The Donau&shy;dampf&shy;schiff line, the Persian word "
         "می&zwnj;خواهم and the 👩\u200d💻 emoji were shown on the screen.</p>",
         txt=("The Donaudampfschiff line, the Persian word می\u200cخواهم and the "
              "👩\u200d💻 emoji",),
         md=("The Donaudampfschiff line, the Persian word می\u200cخواهم and the "
             "👩\u200d💻 emoji",)),
    Case("text-beside-blocks", "<div>The works start in three places<p>at the old quay,</p>"
         "and at the ferry pier.</div>",
         txt=("The works start in three places\nat the old quay,\nand at the ferry pier.",),
         md=("The works start in three places\n\nat the old quay,\n\nand at the ferry "
             "pier.",)),
    Case("ru-heading-table", "<h3>Бюджет</h3><table><tr><th>Год</th><th>Сумма</th></tr>"
         "<tr><td>2025</td><td>10 млн</td></tr><tr><td>2026</td><td>12 млн</td></tr></table>",
         lang="ru", txt=("Бюджет\nГод\tСумма\n2025\t10 млн\n2026\t12 млн",),
         md=("### Бюджет\n\n| Год | Сумма |\n| --- | --- |\n| 2025 | 10 млн |",)),
)
HARD_CASES += (
    Case("code-at-block-start", "<p>Useful commands:</p><ul><li><code>make build</code> builds "
         "the site</li><li><code>make test</code> runs the checks</li></ul><table><tr><th>"
         "Command</th><th>Effect</th></tr><tr><td><code>make deploy</code></td><td>publishes "
         "it</td></tr><tr><td><code>make clean</code></td><td>removes it</td></tr></table>",
         txt=("make build builds the site\nmake test runs the checks",
              "make deploy\tpublishes it"),
         md=("- `make build` builds the site\n- `make test` runs the checks",
             "| `make deploy` | publishes it |\n| `make clean` | removes it |")),
    Case("code-lines-by-br", "<p>Run these two commands:</p><p><code>cd /srv/harbour<br>"
         "make deploy</code></p><pre>port = 8080<br>host = harbour.local</pre>",
         txt=("cd /srv/harbour\nmake deploy", "port = 8080\nhost = harbour.local"),
         md=("```\ncd /srv/harbour\nmake deploy\n```", "```\nport = 8080\nhost = "
             "harbour.local\n```")),
    Case("nested-blockquote", "<blockquote><p>The mayor wrote:</p><blockquote><p>We will "
         "build it.</p></blockquote></blockquote>",
         txt=("The mayor wrote:\nWe will build it.",),
         md=("> The mayor wrote:\n>\n> > We will build it.",)),
    Case("ko-bold-in-word", "<h5>발표</h5><p>서울<b>시</b>는 새로운 항구 계획을 발표했으며 "
         "공사는 내년 봄에 시작될 예정이라고 밝혔다.</p>",
         txt=("발표\n서울시는 새로운 항구 계획을 발표했으며",),
         md=("##### 발표\n\n서울**시**는 새로운 항구 계획을",)),
    Case("buttons-side-by-side", "<p>The full plan and the forms for residents are on the "
         "council's w<a href=\"/web\">ebsite</a>: <a class=\"button\" href=\"/plan\">Download "
         "plan</a><a class=\"button\" href=\"/forms\">Residents forms</a> (both free of "
         "charge).</p>",
         txt=("council's website: Download plan Residents forms (both free",),
         md=("council's website: Download plan Residents forms (both free",)),
    Case("ru-buttons-side-by-side", "<p>План и формы для жителей опубликованы на сайте "
         "совета: <a class=\"button\" href=\"/plan\">Скачать план</a><a class=\"button\" "
         "href=\"/forms\">Формы</a><a class=\"button\" href=\"/help\">Помощь</a>.</p>",
         txt=("на сайте совета: Скачать план Формы Помощь.",),
         md=("на сайте совета: Скачать план Формы Помощь.",), lang="ru"),
)
#: Real-world markup: what blog engines, documentation generators, wikis, Q&A sites and CMSs
#: write (Pygments and Rouge code tables, GitHub README headings and code, MDN reference
#: lists, Wikipedia tables and infoboxes, Stack Overflow answers, Medium and WordPress
#: blocks), in several scripts.
_PY_CODE = ('<span class="kn">import</span> <span class="nn">json</span>\n<span class="n">data'
            '</span> <span class="o">=</span> <span class="n">json</span><span class="o">.</span>'
            '<span class="n">load</span><span class="p">(</span><span class="n">f</span>'
            '<span class="p">)</span>\n<span class="k">print</span><span class="p">(</span>'
            '<span class="n">data</span><span class="p">)</span>\n')
REAL_CASES: tuple[Case, ...] = (
    Case("pygments-highlighttable", "<p>The loader is short:</p><table class=\"highlighttable\">"
         "<tr><td class=\"linenos\"><div class=\"linenodiv\"><pre>1\n2\n3</pre></div></td><td "
         f"class=\"code\"><div class=\"highlight\"><pre>{_PY_CODE}</pre></div></td></tr></table>",
         txt=("The loader is short:\nimport json\ndata = json.load(f)\nprint(data)",),
         md=("```\nimport json\ndata = json.load(f)\nprint(data)\n```",),
         absent=("1\n2\n3",)),
    Case("ru-pygments-linenos-spans", "<p>Скрипт загрузки:</p><div class=\"highlight\"><table "
         "class=\"highlighttable\"><tr><td class=\"linenos\"><div class=\"linenodiv\"><pre>"
         "<span class=\"normal\">1</span>\n<span class=\"normal\">2</span>\n<span class=\"normal"
         "\">3</span></pre></div></td><td class=\"code\"><div><pre><span></span>"
         f"{_PY_CODE}</pre></div></td></tr></table></div>", lang="ru",
         txt=("Скрипт загрузки:\nimport json\ndata = json.load(f)\nprint(data)",),
         md=("```\nimport json\ndata = json.load(f)\nprint(data)\n```",),
         absent=("1\n2\n3",)),
    Case("rouge-table-in-code", "<p>In Ruby:</p><figure class=\"highlight\"><pre><code "
         "class=\"language-ruby\" data-lang=\"ruby\"><table class=\"rouge-table\"><tbody><tr>"
         "<td class=\"gutter gl\"><pre class=\"lineno\">1\n2\n</pre></td><td class=\"code\">"
         "<pre><span class=\"nb\">puts</span> <span class=\"s2\">\"ahoy\"</span>\n<span "
         "class=\"nb\">exit</span>\n</pre></td></tr></tbody></table></code></pre></figure>",
         txt=("In Ruby:\nputs \"ahoy\"\nexit",),
         md=("```ruby\nputs \"ahoy\"\nexit\n```",), absent=("1\n2",)),
    Case("flex-row-spans", "<p>Next ferry:</p><div class=\"departure\" style=\"display:flex\">"
         "<span>Departure</span><span>08:00</span><span>Pier 3</span></div>",
         txt=("Next ferry:\nDeparture\n08:00\nPier 3",), md=("Departure\n08:00\nPier 3",)),
    Case("caption-small-credit", "<div class=\"image\"><img src=\"/shipyard.jpg\" alt=\"\">"
         "<div class=\"caption\">Cranes over the old shipyard. <small>Photo: Anna Berg</small>"
         "</div></div>",
         txt=("Cranes over the old shipyard. Photo: Anna Berg",),
         md=("Cranes over the old shipyard. Photo: Anna Berg",)),
    Case("github-readme-heading-code", "<div class=\"markdown-body\"><h3><a id=\"user-content-"
         "install\" class=\"anchor\" aria-hidden=\"true\" href=\"#install\"><svg class=\"octicon "
         "octicon-link\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\"><path d=\"M0 0h16\">"
         "</path></svg></a>Install</h3><p>Fetch the tide tables with:</p><div class=\"highlight "
         "highlight-source-python notranslate position-relative overflow-auto\"><pre><span "
         "class=\"pl-k\">import</span> <span class=\"pl-s1\">harbour</span>\n<span class=\"pl-s1"
         "\">tides</span> <span class=\"pl-c1\">=</span> <span class=\"pl-s1\">harbour</span>."
         "<span class=\"pl-en\">fetch</span>(<span class=\"pl-s\">\"north\"</span>)</pre></div>"
         "</div>",
         txt=("Install\nFetch the tide tables with:\nimport harbour\ntides = harbour.fetch("
              "\"north\")",),
         md=("### Install\n\nFetch the tide tables with:\n\n```python\nimport harbour\ntides = "
             "harbour.fetch(\"north\")\n```",)),
    Case("github-markdown-heading-div", "<div class=\"markdown-heading\"><h3 class=\"heading-"
         "element\">Usage</h3><a id=\"user-content-usage\" class=\"anchor\" aria-label="
         "\"Permalink: Usage\" href=\"#usage\"><svg class=\"octicon octicon-link\" width=\"16\" "
         "height=\"16\"><path d=\"M0 0h16\"></path></svg></a></div><p>Run <code>harbour serve"
         "</code> in the project folder.</p>",
         txt=("Usage\nRun harbour serve in the project folder.",),
         md=("### Usage\n\nRun `harbour serve` in the project folder.",),
         absent=("Permalink",)),
    Case("mdn-dl-code-heading", "<h3 id=\"syntax\"><code>fetch()</code> syntax</h3><dl><dt "
         "id=\"resource\"><code>resource</code></dt><dd><p>The URL of the tide table.</p></dd>"
         "<dt id=\"options\"><code>options</code> <span class=\"badge inline optional\">"
         "Optional</span></dt><dd><p>An object with the request's settings.</p></dd></dl>",
         txt=("fetch() syntax\nresource\nThe URL of the tide table.\noptions Optional\nAn "
              "object with the request's settings.",),
         md=("### `fetch()` syntax", "`resource`\n: The URL of the tide table.",
             "`options` Optional\n: An object with the request's settings.")),
    Case("wikipedia-row-headers-refs", "<table class=\"wikitable sortable\"><caption>Busiest "
         "ports</caption><tbody><tr><th>Port</th><th>Cargo (Mt)</th></tr><tr><th scope=\"row\">"
         "Rotterdam</th><td>438.8<sup id=\"cite_ref-1\" class=\"reference\"><a href=\"#cite_note"
         "-1\">[1]</a></sup></td></tr><tr><th scope=\"row\">Antwerp</th><td>231.0</td></tr><tr>"
         "<th scope=\"row\">Hamburg</th><td>114.3<sup class=\"reference\"><a href=\"#cite_note-2"
         "\">[2]</a></sup></td></tr></tbody></table>",
         txt=("Port\tCargo (Mt)\nRotterdam\t438.8[1]\nAntwerp\t231.0\nHamburg\t114.3[2]",),
         md=("| Port | Cargo (Mt) |\n| --- | --- |\n| Rotterdam | 438.8[1] |\n| Antwerp | 231.0 "
             "|\n| Hamburg | 114.3[2] |",)),
    Case("wikipedia-infobox-beside-text", "<table class=\"infobox vcard\" style=\"float:right;"
         "width:22em\"><tbody><tr><th colspan=\"2\" class=\"infobox-above\">Port of Harbourtown"
         "</th></tr><tr><th scope=\"row\" class=\"infobox-label\">Opened</th><td class=\"infobox"
         "-data\">1871</td></tr><tr><th scope=\"row\" class=\"infobox-label\">Berths</th><td "
         "class=\"infobox-data\">12</td></tr></tbody></table><p>The <b>Port of Harbourtown</b> "
         "is a seaport<sup id=\"cite_ref-3\" class=\"reference\"><a href=\"#cite_note-3\">[3]"
         "</a></sup> on the north coast, run by the city since 1871.</p>",
         txt=("Opened\t1871\nBerths\t12", "The Port of Harbourtown is a seaport[3] on the north "
              "coast"),
         md=("| Opened | 1871 |", "The **Port of Harbourtown** is a seaport[3] on the north "
             "coast")),
    Case("zh-wikipedia-table-refs", "<table class=\"wikitable\"><tbody><tr><th>港口</th><th>"
         "吞吐量</th></tr><tr><th scope=\"row\">上海</th><td>4730万<sup class=\"reference\">"
         "<a href=\"#cite_note-1\">[1]</a></sup></td></tr><tr><th scope=\"row\">宁波</th><td>"
         "3335万</td></tr></tbody></table>", lang="zh",
         txt=("港口\t吞吐量\n上海\t4730万[1]\n宁波\t3335万",),
         md=("| 港口 | 吞吐量 |\n| --- | --- |\n| 上海 | 4730万[1] |\n| 宁波 | 3335万 |",)),
    Case("stackoverflow-answer", "<div class=\"answercell post-layout--right\"><div class=\"s-"
         "prose js-post-body\" itemprop=\"text\"><p>Use <code>sorted()</code> with a key:</p>"
         "<pre class=\"lang-py s-code-block\"><code class=\"hljs language-python\">rows = <span "
         "class=\"hljs-built_in\">sorted</span>(rows, key=<span class=\"hljs-keyword\">lambda"
         "</span> r: r[<span class=\"hljs-number\">1</span>])\n</code></pre><blockquote><p>"
         "Sorting is <em>stable</em> in Python.</p></blockquote></div></div>",
         txt=("Use sorted() with a key:\nrows = sorted(rows, key=lambda r: r[1])\nSorting is "
              "stable in Python.",),
         md=("Use `sorted()` with a key:\n\n```python\nrows = sorted(rows, key=lambda r: r[1])"
             "\n```\n\n> Sorting is *stable* in Python.",)),
    Case("el-stackoverflow-answer", "<div class=\"s-prose js-post-body\"><p>Δοκιμάστε "
         "<code>git stash</code> πρώτα:</p><pre><code>git stash\ngit pull --rebase\n</code></pre>"
         "</div>", lang="el",
         txt=("Δοκιμάστε git stash πρώτα:\ngit stash\ngit pull --rebase",),
         md=("Δοκιμάστε `git stash` πρώτα:\n\n```\ngit stash\ngit pull --rebase\n```",)),
    Case("medium-figure", "<figure class=\"paragraph-image\"><div role=\"button\" tabindex="
         "\"0\"><picture><source srcset=\"/h.webp 700w\" type=\"image/webp\"><img alt=\"Harbour"
         "\" src=\"/h.jpg\" width=\"700\" height=\"467\" loading=\"lazy\"></picture></div>"
         "<figcaption class=\"mw\">The harbour at dawn (photo by <a href=\"/@anna\">Anna Berg"
         "</a>)</figcaption></figure>",
         txt=("The harbour at dawn (photo by Anna Berg)",),
         md=("The harbour at dawn (photo by Anna Berg)",)),
    Case("wp-block-table", "<figure class=\"wp-block-table is-style-stripes\"><table class="
         "\"has-fixed-layout\"><thead><tr><th>Ferry</th><th>Departs</th></tr></thead><tbody>"
         "<tr><td>A</td><td>08:00</td></tr><tr><td>B</td><td></td></tr></tbody></table>"
         "<figcaption class=\"wp-element-caption\">Winter timetable</figcaption></figure>",
         txt=("Ferry\tDeparts\nA\t08:00\nB", "Winter timetable"),
         md=("| Ferry | Departs |\n| --- | --- |\n| A | 08:00 |\n| B | |", "Winter timetable")),
    Case("wp-block-code", "<p>The server block:</p><pre class=\"wp-block-code\"><code>server {"
         "\n    listen 80;\n    root /srv/harbour;\n}</code></pre>",
         txt=("server {\n    listen 80;\n    root /srv/harbour;\n}",),
         md=("```\nserver {\n    listen 80;\n    root /srv/harbour;\n}\n```",)),
    Case("wp-block-quote-cite", "<blockquote class=\"wp-block-quote\"><p>A harbour is a promise"
         " to the sea.</p><cite>Anna Berg, harbour master</cite></blockquote>",
         txt=("A harbour is a promise to the sea.\nAnna Berg, harbour master",),
         md=("> A harbour is a promise to the sea.", "> Anna Berg, harbour master")),
    Case("ar-wp-block-quote-cite", "<blockquote class=\"wp-block-quote\"><p>الميناء وعدٌ "
         "للبحر.</p><cite>آنا بيرغ، مديرة الميناء</cite></blockquote>", lang="ar",
         txt=("الميناء وعدٌ للبحر.\nآنا بيرغ، مديرة الميناء",),
         md=("> الميناء وعدٌ للبحر.", "> آنا بيرغ، مديرة الميناء")),
    Case("ar-figure-figcaption", "<figure class=\"wp-block-image\"><img src=\"/port.jpg\" "
         "alt=\"\"><figcaption>الرافعات فوق حوض بناء السفن القديم <small>تصوير: آنا بيرغ"
         "</small></figcaption></figure>", lang="ar",
         txt=("الرافعات فوق حوض بناء السفن القديم تصوير: آنا بيرغ",),
         md=("الرافعات فوق حوض بناء السفن القديم تصوير: آنا بيرغ",)),
    Case("ru-mdn-dl", "<h3>Параметры</h3><dl><dt><code>url</code></dt><dd>Адрес таблицы "
         "приливов.</dd><dt><code>timeout</code> <span class=\"badge\">Необязательный</span>"
         "</dt><dd>Время ожидания в секундах.</dd></dl>", lang="ru",
         txt=("Параметры\nurl\nАдрес таблицы приливов.\ntimeout Необязательный\nВремя "
              "ожидания в секундах.",),
         md=("### Параметры", "`url`\n: Адрес таблицы приливов.",
             "`timeout` Необязательный\n: Время ожидания в секундах.")),
    Case("zh-github-code-comment", "<div class=\"markdown-body\"><h3>安装</h3><p>运行以下命令："
         "</p><div class=\"highlight highlight-source-shell\"><pre>pip install harbour <span "
         "class=\"pl-c\"><span class=\"pl-c\">#</span> 安装港口工具</span>\nharbour init</pre>"
         "</div></div>", lang="zh",
         txt=("安装\n运行以下命令：\npip install harbour # 安装港口工具\nharbour init",),
         md=("### 安装\n\n运行以下命令：\n\n```shell\npip install harbour # 安装港口工具\n"
             "harbour init\n```",)),
    Case("hugo-chroma-lntable", "<p>The handler:</p><div class=\"highlight\"><div class=\"chroma"
         "\"><table class=\"lntable\"><tr><td class=\"lntd\"><pre tabindex=\"0\" class=\"chroma"
         "\"><code><span class=\"lnt\">1\n</span><span class=\"lnt\">2\n</span></code></pre></td>"
         "<td class=\"lntd\"><pre tabindex=\"0\" class=\"chroma\"><code class=\"language-go\" "
         "data-lang=\"go\"><span class=\"line\"><span class=\"cl\"><span class=\"kn\">package"
         "</span> <span class=\"nx\">main</span>\n</span></span><span class=\"line\"><span class="
         "\"cl\"><span class=\"kd\">func</span> <span class=\"nf\">serve</span><span class=\"p\">"
         "()</span> <span class=\"p\">{}</span>\n</span></span></code></pre></td></tr></table>"
         "</div></div>",
         txt=("The handler:\npackage main\nfunc serve() {}",),
         md=("```go\npackage main\nfunc serve() {}\n```",), absent=("1\n2",)),
    Case("sphinx-highlight-wrapper", "<p>In the shell:</p><div class=\"highlight-console "
         "notranslate\"><div class=\"highlight\"><pre><span></span><span class=\"gp\">$ </span>"
         "harbour<span class=\"w\"> </span>--version\n</pre></div></div>",
         txt=("In the shell:\n$ harbour --version",),
         md=("```console\n$ harbour --version\n```",)),
)
# ---------------------------------------------------------------------- what else a reader checks
# Variations the cases above leave out: sectioned and captioned tables in other scripts, tables
# without header rows or with header columns, lists numbered by ``value``, quotes with a
# footer, code whose own text holds fences or pipes, phrasing elements (kbd, samp, var, ruby,
# bdi, bdo), hidden and template content inside the article, headings with breaks and links
# around them, emphasis split over adjacent tags, scripts without spaces between elements.
_LAYOUT_PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} | Harbour '
    'Times</title></head><body><table width="100%" border="0" cellpadding="0"><tr>'
    '<td colspan="2"><a href="/">Harbour Times</a> <a href="/0">Home</a> <a href="/1">News</a> '
    '<a href="/2">Sport</a> <a href="/3">Culture</a></td></tr><tr><td valign="top" '
    'width="75%"><h1>{title}</h1><p class="byline">2024-03-12</p>{paras}\n{fragment}\n{tail}'
    '</td><td valign="top" width="25%"><h3>Most read</h3><p><a href="/a">Storm closes bridge'
    '</a></p><p><a href="/b">Library reopens</a></p></td></tr><tr><td colspan="2"><p>'
    'Copyright 2024 Harbour Times</p><a href="/privacy">Privacy</a></td></tr></table></body>'
    '</html>')


def layout_table_page(fragment: str, lang: str = "en") -> str:
    """An old-style page whose columns are a layout table: the article is one of its cells."""
    title, before, after = ARTICLES[lang]
    return _LAYOUT_PAGE.format(title=title, fragment=fragment,
                               paras="".join(f"<p>{p}</p>" for p in before),
                               tail="".join(f"<p>{p}</p>" for p in after))


_JA = ("<p>東京都は新しい港湾計画を発表し、旧造船所の跡地に住宅と公園を整備する方針を示した。"
       "工事は来年の春に始まる予定である。</p>")
EDGE_CASES: tuple[Case, ...] = (
    # ------------------------------------------------------------------ tables
    Case("table-no-header-row", "<p>Ferry prices this summer:</p><table><tr><td>Adult</td>"
         "<td>4.50</td></tr><tr><td>Child</td><td>2.20</td></tr><tr><td>Bicycle</td>"
         "<td>1.00</td></tr></table>",
         txt=("Adult\t4.50\nChild\t2.20\nBicycle\t1.00",),
         md=("| Adult | 4.50 |", "| Child | 2.20 |\n| Bicycle | 1.00 |")),
    Case("table-header-column-only", "<table><tr><th>Opens</th><td>08:00</td></tr><tr><th>"
         "Closes</th><td>17:00</td></tr><tr><th>Tickets</th><td>at the pier</td></tr></table>",
         txt=("Opens\t08:00\nCloses\t17:00\nTickets\tat the pier",),
         md=("| Opens | 08:00 |", "| Closes | 17:00 |\n| Tickets | at the pier |")),
    Case("table-two-rows", "<p>The new basin, measured in May:</p><table><tr><th>Depth</th>"
         "<th>Width</th><th>Length</th></tr><tr><td>4 m</td><td>30 m</td><td>210 m</td></tr>"
         "</table>",
         txt=("Depth\tWidth\tLength\n4 m\t30 m\t210 m",),
         md=("| Depth | Width | Length |\n| --- | --- | --- |\n| 4 m | 30 m | 210 m |",)),
    Case("table-empty", "<p>The table of objections is still empty.</p><table><tr><td></td>"
         "<td></td></tr><tr><td> </td><td>&nbsp;</td></tr></table><p>Objections can be "
         "sent to the council until the end of the month.</p>",
         txt=("The table of objections is still empty.\nObjections can be sent",),
         md=("The table of objections is still empty.\n\nObjections can be sent",),
         absent=("| --- |", "|  |")),
    Case("table-caption-thead-md", "<table><caption>Ferry lines in 2025</caption><thead><tr>"
         "<th>Line</th><th>From</th><th>To</th></tr></thead><tbody><tr><td>A</td><td>Quay"
         "</td><td>Island</td></tr><tr><td>B</td><td>Quay</td><td>Airport</td></tr></tbody>"
         "</table>",
         txt=("Ferry lines in 2025\nLine\tFrom\tTo\nA\tQuay\tIsland\nB\tQuay\tAirport",),
         md=("Ferry lines in 2025\n\n| Line | From | To |\n| --- | --- | --- |\n"
             "| A | Quay | Island |",)),
    Case("table-two-tbodies-section-rows", "<table><thead><tr><th>Line</th><th>Departs</th>"
         "</tr></thead><tbody><tr><th colspan=\"2\">Weekdays</th></tr><tr><td>A</td><td>08:00"
         "</td></tr></tbody><tbody><tr><th colspan=\"2\">Sundays</th></tr><tr><td>A</td>"
         "<td>10:00</td></tr></tbody></table>",
         txt=("Line\tDeparts\nWeekdays\nA\t08:00\nSundays\nA\t10:00",),
         md=("| Line | Departs |\n| --- | --- |\n| Weekdays | |\n| A | 08:00 |\n| Sundays | |\n"
             "| A | 10:00 |",)),
    Case("table-cell-paragraphs-marks", "<table><tr><th>Item</th><th>Cost</th></tr><tr><td>"
         "<p>Dredging</p></td><td><p>120</p></td></tr><tr><td><p><strong>Total</strong></p>"
         "</td><td><p><a href=\"/budget\">200</a></p></td></tr></table>",
         txt=("Item\tCost\nDredging\t120\nTotal\t200",),
         md=("| Dredging | 120 |\n| **Total** | 200 |",)),
    Case("table-colgroup-code-pipe", "<table><colgroup><col><col span=\"2\"></colgroup><tr>"
         "<th>Option</th><th>Meaning</th><th>Default</th></tr><tr><td><code>--tide</code></td>"
         "<td>low|high</td><td><code>a|b</code></td></tr></table>",
         txt=("Option\tMeaning\tDefault\n--tide\tlow|high\ta|b",),
         md=("| Option | Meaning | Default |\n| --- | --- | --- |\n"
             "| `--tide` | low\\|high | `a\\|b` |",)),
    Case("el-table-header-column", "<table><tr><th>Αναχώρηση</th><td>08:00</td><td>12:00</td>"
         "</tr><tr><th>Άφιξη</th><td>09:30</td><td>13:30</td></tr></table>", lang="el",
         txt=("Αναχώρηση\t08:00\t12:00\nΆφιξη\t09:30\t13:30",),
         md=("| Αναχώρηση | 08:00 | 12:00 |", "| Άφιξη | 09:30 | 13:30 |")),
    Case("zh-table-caption-tfoot", "<table><caption>预算（亿元）</caption><thead><tr><th>项目"
         "</th><th>金额</th></tr></thead><tbody><tr><td>码头</td><td>3.5</td></tr><tr><td>公园"
         "</td><td>1.2</td></tr></tbody><tfoot><tr><td>合计</td><td>4.7</td></tr></tfoot>"
         "</table>", lang="zh",
         txt=("预算（亿元）\n项目\t金额\n码头\t3.5\n公园\t1.2\n合计\t4.7",),
         md=("| 项目 | 金额 |\n| --- | --- |\n| 码头 | 3.5 |\n| 公园 | 1.2 |\n| 合计 | 4.7 |",)),
    # ------------------------------------------------------------------ lists
    Case("ordered-list-value", "<p>The agenda, as amended:</p><ol><li>Opening</li>"
         "<li value=\"5\">Harbour plan</li><li>Any other business</li></ol>",
         txt=("Opening\nHarbour plan\nAny other business",),
         md=("1. Opening\n5. Harbour plan\n6. Any other business",)),
    Case("link-only-list-introduced", "<p>The council published three documents with the "
         "decision:</p><ul><li><a href=\"/d/plan.pdf\">Final harbour plan (PDF, 2 MB)</a></li>"
         "<li><a href=\"/d/traffic.pdf\">Traffic study of the access roads (PDF)</a></li>"
         "<li><a href=\"/d/minutes.pdf\">Minutes of the public hearings (PDF)</a></li></ul>",
         txt=("Final harbour plan (PDF, 2 MB)\nTraffic study of the access roads (PDF)\n"
              "Minutes of the public hearings (PDF)",),
         md=("- Final harbour plan (PDF, 2 MB)\n- Traffic study",)),
    Case("list-item-heading-dd-list", "<dl><dt>Phase one</dt><dd><ul><li>Dredging</li><li>"
         "New quay walls</li></ul></dd><dt>Phase two</dt><dd><p>Housing.</p><p>The park."
         "</p></dd></dl>",
         txt=("Phase one\nDredging\nNew quay walls\nPhase two\nHousing.\nThe park.",),
         md=("Phase one", "Dredging", "New quay walls", "Phase two", "Housing.")),
    Case("dl-two-terms-one-definition", "<p>Words you will hear at the pier:</p><dl>"
         "<dt>Quay</dt><dt>Wharf</dt><dd>A platform where ships load and unload.</dd></dl>",
         txt=("Quay\nWharf\nA platform where ships load and unload.",),
         md=("Quay\nWharf\n: A platform where ships load and unload.",)),
    Case("ru-list-links-and-text", "<p>Что вошло в план:</p><ul><li><a href=\"/h\">Жильё</a> "
         "на месте верфи</li><li><a href=\"/p\">Парк</a> у воды</li><li>Паромный терминал</li>"
         "</ul>", lang="ru",
         txt=("Жильё на месте верфи\nПарк у воды\nПаромный терминал",),
         md=("- Жильё на месте верфи\n- Парк у воды\n- Паромный терминал",)),
    # ------------------------------------------------------------------ quotes
    Case("blockquote-footer-cite", "<blockquote><p>A harbour without ships is only a view."
         "</p><footer>\u2014 Anna Berg, <cite>Harbour Review</cite></footer></blockquote>",
         txt=("A harbour without ships is only a view.\n\u2014 Anna Berg, Harbour Review",),
         md=("> A harbour without ships is only a view.", "> \u2014 Anna Berg, Harbour")),
    # ------------------------------------------------------------------ code
    Case("pre-trailing-spaces-tabs", "<p>The raw tide file:</p><pre>TIME\tLEVEL  \n"
         "06:00\t1.2    \n12:00\t3.4</pre>",
         txt=("TIME\tLEVEL  \n06:00\t1.2    \n12:00\t3.4",),
         md=("```\nTIME\tLEVEL  \n06:00\t1.2    \n12:00\t3.4\n```",)),
    Case("pre-holding-fences", "<p>The README of the data set starts like this:</p><pre>"
         "# Harbour data\n```python\nimport harbour\n```</pre>",
         txt=("# Harbour data\n```python\nimport harbour\n```",),
         md=("````\n# Harbour data\n```python\nimport harbour\n```\n````",)),
    Case("inline-code-leading-backtick", "<p>In Markdown, write <code>`code`</code> for "
         "code and <code>**bold**</code> for bold.</p>",
         txt=("write `code` for code and **bold** for bold.",),
         md=("write `` `code` `` for code and `**bold**` for bold.",)),
    Case("kbd-samp-var", "<p>Type <kbd>harbour --help</kbd> and the program prints "
         "<samp>usage: harbour [options]</samp>; then set <var>depth</var> to 4.</p>",
         txt=("Type harbour --help and the program prints usage: harbour [options]; then "
              "set depth to 4.",),
         md=("harbour --help", "usage: harbour [options]", "to 4.")),
    # ------------------------------------------------------------------ inline elements
    Case("adjacent-bold-runs", "<p>The <b>Har</b><b>bour</b> Festival and the <i>new</i>"
         "<i>est</i> ferry drew crowds to the quay all weekend.</p>",
         txt=("The Harbour Festival and the newest ferry",),
         md=("The **Harbour** Festival and the *newest* ferry",)),
    Case("nested-emphasis-link", "<p>This is <b>very <i>important</i> news</b> for "
         "<b><a href=\"/p/anna\">Anna Berg</a></b> and her crew at the pier.</p>",
         txt=("This is very important news for Anna Berg and her crew",),
         md=("This is **very *important* news** for **Anna Berg** and her crew",)),
    Case("link-inside-word-with-bold", "<p>The plan was called un<a href=\"/r\"><b>believ"
         "</b>able</a> by the opposition, and brilliant by the mayor.</p>",
         txt=("The plan was called unbelievable by the opposition",),
         md=("called un**believ**able by the opposition",)),
    Case("nbsp-units-and-numbers", "<p>The basin is 4&nbsp;m deep and 1&nbsp;200&nbsp;m "
         "long, said Dr.&nbsp;Berg on 12&nbsp;March.</p>",
         txt=("The basin is 4 m deep and 1 200 m long, said Dr. Berg on 12 March.",),
         md=("The basin is 4 m deep and 1 200 m long, said Dr. Berg on 12 March.",)),
    Case("long-url-word", "<p>The full data set is at https://data.harbour.example/open/"
         "tides/2024/north-basin/hourly-levels-and-temperatures.csv for anyone to use.</p>",
         txt=("https://data.harbour.example/open/tides/2024/north-basin/hourly-levels-and-"
              "temperatures.csv for anyone",),
         md=("https://data.harbour.example/open/tides/2024/north-basin/hourly-levels-and-"
             "temperatures.csv for anyone",)),
    Case("math-mathml-and-sup", "<p>The wave energy grows as <math><msup><mi>H</mi><mn>2"
         "</mn></msup></math> with the wave height H, and the basin holds 3&times;10<sup>6"
         "</sup> m<sup>3</sup> of water.</p>",
         txt=("with the wave height H, and the basin holds 3\u00d7106 m3 of water.",),
         md=("the basin holds 3\u00d710\u2076 m\u00b3 of water.",)),
    Case("hidden-inside-article", "<p>The new ferry<span style=\"display:none\"> SECRETAD"
         "</span> will carry 300 passengers<span hidden> HIDDENNOTE</span> and 40 cars.</p>"
         "<div hidden><p>Subscribe to our newsletter HIDDENBOX</p></div>"
         "<template><p>TEMPLATETEXT</p></template>"
         "<noscript><p>Please enable JavaScript NOSCRIPTTEXT</p></noscript>"
         "<script>var ad = 'ADVARIABLE';</script><style>.x{color:red}</style>",
         txt=("The new ferry will carry 300 passengers and 40 cars.",),
         md=("The new ferry will carry 300 passengers and 40 cars.",),
         absent=("SECRETAD", "HIDDENNOTE", "HIDDENBOX", "TEMPLATETEXT", "NOSCRIPTTEXT",
                 "ADVARIABLE", "color:red")),
    # ------------------------------------------------------------------ headings
    Case("heading-soft-hyphen-br", "<h2>Donau\u00addampf\u00adschiff\u00adfahrt<br>returns to "
         "the harbour</h2><p>The old paddle steamer will moor at the north quay for the "
         "whole summer season.</p>",
         txt=("Donaudampfschifffahrt", "The old paddle steamer will moor"),
         md=("## Donaudampfschifffahrt returns to the harbour\n\nThe old paddle",)),
    Case("heading-inside-link", "<a href=\"/story/ferry\"><h2>The first ferry sails</h2></a>"
         "<p>At six in the morning the first ferry left the new terminal with ninety "
         "passengers on board.</p>",
         txt=("The first ferry sails\nAt six in the morning",),
         md=("## The first ferry sails\n\nAt six in the morning",)),
    Case("heading-inline-code", "<h3>The <code>load()</code> function</h3><p>It reads the "
         "tide table of one pier and returns the levels by hour.</p>",
         txt=("The load() function\nIt reads the tide table",),
         md=("### The `load()` function\n\nIt reads the tide table",)),
    Case("br-runs-and-trailing-br", "<p>First line of the notice.<br><br><br>Second line of "
         "the notice.<br></p><p>The notice hangs at the harbour office until May.</p>",
         txt=("First line of the notice.\nSecond line of the notice.\nThe notice hangs",),
         md=("Second line of the notice.\n\nThe notice hangs",)),
    # ------------------------------------------------------------------ scripts
    Case("zh-adjacent-elements", "<p>来自<b>北京</b><em>大学</em>和<span>清华</span><span>大学"
         "</span>的专家，在“<a href=\"/p\">港口</a>”项目（<i>一期</i>）中提出了建议。</p>",
         lang="zh",
         txt=("来自北京大学和清华大学的专家，在“港口”项目（一期）中提出了建议。",),
         md=("来自**北京**", "和清华大学的专家",)),
    Case("ja-ruby-furigana", _JA + "<p>新しい<ruby>港<rp>(</rp><rt>みなと</rt><rp>)</rp>"
         "</ruby>の計画は<ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>で発表された。</p>",
         lang="en",
         txt=("新しい港", "東京で発表された。"), md=("新しい港", "東京で発表された。"),
         absent=("東 京", "港 (")),
    Case("ja-bold-kana", _JA + "<p>港湾局の<b>担当</b>者は、<a href=\"/x\">計画</a>の詳細を"
         "<strong>来月</strong>にも公表すると述べた。</p>",
         txt=("港湾局の担当者は、計画の詳細を来月にも公表すると述べた。",),
         md=("港湾局の**担当**者は、計画の詳細を**来月**にも公表すると述べた。",)),
    Case("ar-numbers-bdi", "<p>قال <bdi>John Smith</bdi> إن المشروع سيكلف <span dir=\"ltr\">"
         "450</span> مليون دولار حتى عام 2030، وإن الرصيف رقم <b>3</b> سيفتح أولاً.</p>",
         lang="ar",
         txt=("قال John Smith إن المشروع سيكلف 450 مليون دولار حتى عام 2030، وإن الرصيف رقم 3 "
              "سيفتح أولاً.",),
         md=("قال John Smith إن المشروع سيكلف 450 مليون دولار",)),
    Case("he-bdo-numbers", "<p>מספר הטלפון של משרד הנמל הוא <bdo dir=\"ltr\">03-555-1234</bdo>"
         " והוא פתוח בין 8:00 ל-16:00 בימי חול.</p>", lang="ar",
         txt=("מספר הטלפון של משרד הנמל הוא 03-555-1234 והוא פתוח בין 8:00 ל-16:00",),
         md=("הוא 03-555-1234 והוא פתוח",)),
    Case("thai-table-list", "<p>ตารางเดินเรือ:</p><table><tr><th>เส้นทาง</th><th>เวลา</th></tr>"
         "<tr><td>ท่าเรือ<b>กลาง</b></td><td>08:00</td></tr></table><ul><li>ท่าเรือ<a "
         "href=\"/n\">เหนือ</a>เปิดทุกวัน</li><li>ท่าเรือใต้ปิดวันจันทร์</li></ul>",
         txt=("เส้นทาง\tเวลา\nท่าเรือกลาง\t08:00", "ท่าเรือเหนือเปิดทุกวัน\nท่าเรือใต้ปิดวันจันทร์"),
         md=("| ท่าเรือ**กลาง** | 08:00 |", "- ท่าเรือเหนือเปิดทุกวัน\n- ท่าเรือใต้ปิดวันจันทร์")),
    Case("emoji-zwj-flags-in-marks", "<p>Families <b>👨\u200d👩\u200d👧</b> and sailors "
         "<i>🧑\u200d✈\ufe0f</i> cheered; flags 🇳🇴🇬🇷 and 👍🏽 filled the chat.</p>",
         txt=("Families 👨\u200d👩\u200d👧 and sailors 🧑\u200d✈\ufe0f cheered; flags 🇳🇴🇬🇷 and "
              "👍🏽 filled",),
         md=("Families **👨\u200d👩\u200d👧** and sailors *🧑\u200d✈\ufe0f* cheered",)),
    Case("el-bold-inside-word-final-sigma", "<p>Η <b>Αθήν</b>α και ο Πειραι<b>άς</b> "
         "υπέγραψαν συμφωνία για τη νέα γραμμή του πλοίου.</p>", lang="el",
         txt=("Η Αθήνα και ο Πειραιάς υπέγραψαν συμφωνία",),
         md=("Η **Αθήν**α και ο Πειραι**άς** υπέγραψαν",)),
)
EDGE_CASES += (
    Case("svg-title-in-link", "<p>Read the <a href=\"/report\">full report<svg "
         "aria-hidden=\"true\" width=\"12\" height=\"12\"><title>opens in a new window</title>"
         "<path d=\"M0 0h12\"></path></svg></a> before the hearing on Friday.</p>",
         txt=("Read the full report before the hearing on Friday.",),
         md=("Read the full report before the hearing on Friday.",),
         absent=("opens in a new window",)),
    Case("copy-button-beside-code", "<p>Install the client:</p><div class=\"code-block\">"
         "<button class=\"copy\" type=\"button\">Copy</button><pre><code>pip install "
         "harbour-client</code></pre></div><p>Then log in with your council account.</p>",
         txt=("Install the client:\npip install harbour-client\nThen log in",),
         md=("Install the client:\n\n```\npip install harbour-client\n```\n\nThen log in",),
         absent=("Copy\n", "Copy ")),
    Case("code-nbsp-indent", "<p>The check, as the council's site prints it:</p><p><code>"
         "def deep(level):<br>&nbsp;&nbsp;&nbsp;&nbsp;return level &gt; 4</code></p>",
         txt=("def deep(level):\n    return level > 4",),
         md=("```\ndef deep(level):\n    return level > 4\n```",)),
    Case("empty-and-nbsp-paragraphs", "<p>The ferry timetable changes on Monday.</p><p></p>"
         "<p>&nbsp;</p><p> </p><p><br></p><p>Night crossings stop at midnight from then on."
         "</p>",
         txt=("The ferry timetable changes on Monday.\nNight crossings stop",),
         md=("The ferry timetable changes on Monday.\n\nNight crossings stop",),
         absent=("&nbsp;", "\u00a0\n")),
    Case("text-with-br-no-paragraphs", "<div class=\"story\">The ferry returned to the "
         "harbour at noon.<br><br>Its captain said the sea had been calm all the way from "
         "the island.<br><br><b>Next sailing:</b> Thursday at 08:00.</div>",
         txt=("The ferry returned to the harbour at noon.\nIts captain said the sea had been "
              "calm", "Next sailing: Thursday at 08:00."),
         md=("The ferry returned to the harbour at noon.\n\nIts captain said",
             "**Next sailing:** Thursday at 08:00.")),
    Case("superscript-ordinals", "<p>The 1<sup>st</sup> and 2<sup>nd</sup> phases end "
         "before the 21<sup>st</sup> of June, said M<sup>me</sup> Berg.</p>",
         txt=("The 1st and 2nd phases end before the 21st of June, said Mme Berg.",),
         md=("The 1st and 2nd phases end before the 21st of June, said Mme Berg.",)),
    Case("table-in-list-item", "<p>The two options on the table:</p><ol><li>Option A<table>"
         "<tr><th>Cost</th><th>Years</th></tr><tr><td>450</td><td>6</td></tr></table></li>"
         "<li>Option B<table><tr><th>Cost</th><th>Years</th></tr><tr><td>380</td><td>8</td>"
         "</tr></table></li></ol>",
         txt=("Option A\nCost\tYears\n450\t6\nOption B\nCost\tYears\n380\t8",),
         md=("1. Option A\n\n   | Cost | Years |\n   | --- | --- |\n   | 450 | 6 |",
             "2. Option B\n\n   | Cost | Years |")),
    Case("footnotes-section", "<p>The harbour was founded in 1620<sup id=\"r1\"><a "
         "href=\"#f1\">1</a></sup> and rebuilt in 1890.</p><section class=\"footnotes\"><ol>"
         "<li id=\"f1\">City archive, box 12, letter of the harbour master. <a href=\"#r1\">"
         "\u21a9</a></li></ol></section>",
         txt=("founded in 16201 and rebuilt", "City archive, box 12, letter of the harbour "
              "master."),
         md=("founded in 1620\u00b9 and rebuilt", "1. City archive, box 12, letter of the "
             "harbour master.")),
    Case("old-markup-center-font", "<center><font size=\"4\"><b>Public notice</b></font>"
         "</center><p><font face=\"Arial\">The harbour office will be closed on</font> "
         "<font color=\"red\">Friday</font><font face=\"Arial\">, the day of the opening "
         "ceremony.</font></p>",
         txt=("Public notice\nThe harbour office will be closed on Friday, the day of the "
              "opening ceremony.",),
         md=("The harbour office will be closed on Friday, the day of the opening",)),
    Case("ko-table-list", "<table><tr><th>노선</th><th>출발</th></tr><tr><td>A선</td>"
         "<td>08:00</td></tr><tr><td>B선</td><td>09:30</td></tr></table><ul><li>부산<b>항</b>"
         "에서 출발</li><li>인천항 도착</li></ul>",
         txt=("노선\t출발\nA선\t08:00\nB선\t09:30", "부산항에서 출발\n인천항 도착"),
         md=("| A선 | 08:00 |", "- 부산**항**에서 출발\n- 인천항 도착")),
    Case("pl-bold-in-word-list", "<p>Rada miasta zatwierdziła plan dla <b>Gdańsk</b>a i "
         "Gdyni, a mieszkańcy otrzymają:</p><ul><li>nowe mieszkania</li><li>park nad wodą"
         "</li><li>terminal promowy</li></ul>",
         txt=("plan dla Gdańska i Gdyni, a mieszkańcy otrzymają:\nnowe mieszkania\npark nad "
              "wodą\nterminal promowy",),
         md=("plan dla **Gdańsk**a i Gdyni", "- nowe mieszkania\n- park nad wodą")),
    Case("adjacent-code-spans", "<p>The German letter is stored as <code>U+00DF</code><code>"
         "0xC39F</code> in the harbour's database, and <code>ss</code> in its search index."
         "</p>",
         txt=("The German letter is stored as U+00DF", "0xC39F in the harbour's database",),
         md=("0xC39F` in the harbour's database, and `ss` in its search index.",),
         absent=("``0xC39F",)),
    Case("he-list-numbers", "<p>שלבי העבודה בנמל:</p><ol><li>חפירה של <b>3</b> מטרים</li>"
         "<li>בניית רציף באורך 120 מ׳</li><li>פתיחה בשנת 2026</li></ol>", lang="ar",
         txt=("חפירה של 3 מטרים\nבניית רציף באורך 120 מ׳\nפתיחה בשנת 2026",),
         md=("1. חפירה של **3** מטרים\n2. בניית רציף באורך 120 מ׳\n3. פתיחה בשנת 2026",)),
)
#: The layout-table page (:func:`layout_table_page`) around fragments of its own.
LAYOUT_PAGE_CASES: frozenset[str] = frozenset({"layout-table-article"})
EDGE_CASES += (
    Case("layout-table-article", "<h2>Costs</h2><p>The total cost is estimated at 450 million,"
         " of which the city pays about a fifth.</p><table><tr><th>Year</th><th>Million</th>"
         "</tr><tr><td>2025</td><td>12.5</td></tr><tr><td>2026</td><td>30.1</td></tr></table>",
         txt=("Costs\nThe total cost is estimated", "Year\tMillion\n2025\t12.5\n2026\t30.1"),
         md=("## Costs\n\nThe total cost is estimated at 450 million",
             "| Year | Million |\n| --- | --- |\n| 2025 | 12.5 |"),
         absent=("| The city council voted",)),
)


#: Cases whose fragment ends the article (after its last paragraph, before the page's
#: sidebar and footer): no kept text after it closes the gap.
END_PAGE_CASES: frozenset[str] = frozenset({
    "end-table", "end-nested-list", "end-announced-code", "end-announced-links",
    "end-el-table-list", "end-zh-list"})
EDGE_CASES += (
    Case("end-table", "<table><tr><th>City</th><th>Population</th></tr><tr><td>Oslo</td>"
         "<td>700,000</td></tr><tr><td>Bergen</td><td>320,000</td></tr></table>",
         txt=("City\tPopulation\nOslo\t700,000\nBergen\t320,000",),
         md=("| City | Population |\n| --- | --- |\n| Oslo | 700,000 |\n| Bergen | 320,000 |",)),
    Case("end-nested-list", "<p>The new market will open in May, with stalls for fruit and "
         "vegetables from the farms around the town.</p><ul><li>Fruit<ul><li>Apple</li><li>"
         "Pear</li></ul></li>"
         "<li>Vegetables<ul><li>Leek</li><li>Kale</li></ul></li></ul>",
         txt=("Fruit\nApple\nPear\nVegetables\nLeek\nKale",),
         md=("- Fruit\n  - Apple\n  - Pear\n- Vegetables\n  - Leek\n  - Kale",)),
    Case("end-announced-code", "<p>The map widget is embedded like this:</p><pre><code "
         "class=\"language-js\">map.show(&quot;harbour&quot;, {zoom: 12});</code></pre>",
         txt=("The map widget is embedded like this:\nmap.show(\"harbour\", {zoom: 12});",),
         md=("```js\nmap.show(\"harbour\", {zoom: 12});\n```",)),
    Case("end-announced-links", "<p>The council published three documents with the decision:"
         "</p><ul><li><a href=\"/d/plan.pdf\">Final harbour plan (PDF, 2 MB)</a></li><li><a "
         "href=\"/d/traffic.pdf\">Traffic study of the access roads (PDF)</a></li></ul>",
         txt=("Final harbour plan (PDF, 2 MB)\nTraffic study of the access roads (PDF)",),
         md=("- Final harbour plan (PDF, 2 MB)\n- Traffic study of the access roads (PDF)",)),
    Case("end-el-table-list", "<table><tr><th>Γραμμή</th><th>Ώρα</th></tr><tr><td>Α</td>"
         "<td>08:00</td></tr><tr><td>Β</td><td>09:30</td></tr></table><ul><li>Πειραιάς</li>"
         "<li>Αίγινα</li></ul>", lang="el",
         txt=("Γραμμή\tΏρα\nΑ\t08:00\nΒ\t09:30\nΠειραιάς\nΑίγινα",),
         md=("| Α | 08:00 |", "- Πειραιάς\n- Αίγινα")),
    Case("end-zh-list", "<ol><li>拆除旧仓库</li><li>建设住宅</li><li>开放公园</li></ol>",
         lang="zh", txt=("拆除旧仓库\n建设住宅\n开放公园",),
         md=("1. 拆除旧仓库\n2. 建设住宅\n3. 开放公园",)),
)


def page_html(case: Case) -> str:
    """The page of a case: its fragment in an article page (after its third paragraph, or
    its last one), or in a layout-table page."""
    if case.name in LAYOUT_PAGE_CASES:
        return layout_table_page(case.fragment, case.lang)
    return article(case.fragment, case.lang, at_end=case.name in END_PAGE_CASES)


CASES = CASES + HARD_CASES + REAL_CASES + EDGE_CASES
