"""The page's title as a reader sees it: the visible headline (the first ``<h1>``) when it is
the page's headline, else the declared title (JSON-LD ``headline``, ``og:title``..., else the
``<title>``), without the site's name.

Why the headline: declared titles are written for search engines and social cards ("Top 11
SEO Strategies for 2025 | LuccaAM", "Using Machine Learning To Personalize Shopping
Experiences") and often differ from the headline the page shows ("How Machine Learning
Personalizes Ecommerce Shopping Experiences"). But the first ``<h1>`` is not always the
headline: it is the site's name in a banner ("The Rust Programming Language", "Cory
Dransfeldt"), a section ("Our BLOG"), a search box's label; or it holds the headline among a
label, a date, a comment count or a breadcrumb. So, in order:

1. the ``<h1>`` is the leading part of the declared title (``Headline | Site``, ``Headline -
   Section - Site``, ``Headline (Forum)``), or a run of its inner parts holding most of its
   words (``Site - Headline - Section``): that part of the declared title, in its own
   spelling;
2. the ``<h1>`` is the site's name (``og:site_name``, a domain) or the name part of a
   declared title (``Headline - Site Name``): the declared title;
3. one text node of the ``<h1>`` is a run of the declared title's parts and holds most of the
   heading's words, the rest being child elements (``<span>Sponsored by</span> Headline``,
   ``Site 〉 Section 〉 Headline``): that run of the declared title;
4. the ``<h1>`` is the leading part of the ``<title>`` (``Headline - Site``) where the
   structured title is another ("POLECAM: Headline", a social card's wording): the ``<h1>``;
5. the ``<h1>`` is the declared title in other punctuation (``'``/``’``), or a part of it
   ("Arrival T-Shirt" of "Gymshark Arrival T-Shirt - Black"): the declared title;
6. the ``<h1>`` shares at least half of its words with a declared title and that title at
   least half of its words with the ``<h1>``: the ``<h1>``;
7. else the declared title, without the site's name when that ends it
   (:func:`without_site_name`).

A page without an ``<h1>`` often shows its headline in another heading (an ``<h2>``, an
``<h3>``) or in an element named for it (``class="story_title"``, ``id="title"``): when such an
element's text is a run of the declared title's parts holding at least half of its words or
more words than any part outside it (``Headline | Section | Site``; a section's short name is
not it), that run is the headline (:func:`body_headline`): the title's other parts are the
site's and section's names, which the page shows elsewhere. An element holding a link to the
home page is the site's name in a banner (``<h2 class="logo"><a href="/">Site Name</a></h2>``),
not a headline.

Words are ``\\w+`` runs, case-folded; in scripts written without spaces (Chinese, Japanese,
Thai, Lao, Khmer, Myanmar) every character counts as a word, and a dash or underscore
touching a CJK character separates a title's parts (``标题-新闻频道-和讯网``).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from itertools import islice
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import lxml.etree
import lxml.html
import numpy as np

__all__ = ["Heading", "body_headline", "first_h1", "headline_title", "loose", "page_h1",
           "undo_double_utf8", "without_site_name"]

#: Start tags whose attribute values may hold ``>`` (quoted values skipped whole).
_H1_START = re.compile(r"<h1\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.IGNORECASE)
_H1_END = re.compile(r"</h1\s*>", re.IGNORECASE)
#: Elements inside a heading whose text is not the heading's: scripts, styles, icons, the
#: buttons some sites put there ("Copy item path").
_NOT_TEXT = frozenset({"script", "style", "svg", "button", "template", "noscript", "select"})
#: Elements that separate words where they stand (a line break, a block inside the heading).
_BREAKS = frozenset({"br", "div", "p", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6",
                     "section", "header", "table", "tr", "td", "th", "dd", "dt", "dl",
                     "blockquote", "figure", "figcaption"})
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_PARSER = lxml.html.HTMLParser(remove_comments=True, remove_pis=True)
#: How much source after ``<h1>`` is read for its text (a heading full of markup is long).
_H1_SPAN = 3000
#: How many ``<h1>`` elements holding only an image (a site's logo) are passed over.
_H1_TRIES = 4
_IMAGE = re.compile(r"<(?:img|svg|picture)\b", re.IGNORECASE)
_IMAGE_TAGS = frozenset({"img", "svg", "picture"})

#: Where a ``<title>`` joins its parts: a bar anywhere (``a|b``, full-width ``｜``, ``〉``);
#: a dash, bullet, slash, guillemet, tilde or ``::`` after a space (``Headline - Site``; not
#: the hyphen inside ``T-Shirt`` nor the colon of ``Topic: subtitle``, which belongs to the
#: headline); two colons or more before a space (``Site::: Headline``, not ``tokio::runtime``); a
#: bracket after a space (``Headline (Forum name)``); a dash or underscore
#: touching a CJK character (``标题-新闻频道-和讯网``, ``标题_新闻中心``), where titles put
#: no spaces.
_SEPARATOR = re.compile(r"\s*[|｜〉]\s*|\s+(?:[-–—·•/»«~⋆›>]|::)\s*|:{2,}\s+|\s+(?=[(\[])"
                        r"|(?<=[\u3000-\u9fff\uff00-\uffef])[-_－–—]+"
                        r"|[-_－–—]+(?=[\u3000-\u9fff\uff00-\uffef])")
#: Scripts written without spaces between words: every character is a word.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
                       r"\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"\w+")
_PUNCT_MAP = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})
_DOMAIN = re.compile(r"(?:[\w-]+\.)+[a-z]{2,}")
#: The least share of words a headline and a declared title must have in common, both ways.
MIN_SHARED = 0.5


class Heading(NamedTuple):
    """A heading's text as a reader sees it, and its text nodes one by one (the headline
    apart from a label, a date or a breadcrumb in child elements)."""

    text: str
    pieces: tuple[str, ...]


def first_h1(html: str, start: int = 0, starts: list[int] | None = None) -> Heading | None:
    """The first ``<h1>`` from ``start`` (the body's start; one holding only an image, the
    site's logo, is passed over) as a reader sees it: not spaced at
    inline markup (``W<b>orld</b>``), spaced at line breaks and blocks; scripts, styles,
    icons, buttons and hidden elements (``aria-hidden``, ``hidden``, ``display: none``: an
    animation's copy of the words) left out; private-use characters (icon fonts) and a
    trailing pilcrow (a documentation page's anchor link, ``Title¶``) dropped. None without
    an ``<h1>`` or when it holds no text. Only the heading's few thousand characters are
    parsed (``lxml``), not the page. ``starts``: ascending positions that include every
    place an ``<h1`` start tag can begin (:mod:`webseg._native.htmlscan`), which saves the
    search through the page."""
    for _ in range(_H1_TRIES):
        m = _h1_start(html, start, starts)
        if not m:
            return None
        end = _H1_END.search(html, m.end(), m.end() + _H1_SPAN)
        if not end:
            return None
        source = html[m.start():end.end()]
        heading = _h1_text(source)
        if heading is not None or not _IMAGE.search(source):
            return heading
        start = end.end()  # a logo (an image alone in an <h1>): the next <h1>
    return None


def _h1_start(html: str, start: int, starts: list[int] | None) -> re.Match[str] | None:
    """``_H1_START.search(html, start)``, tried only at ``starts`` when given (a superset of
    where it can match: the same first match)."""
    if starts is None:
        return _H1_START.search(html, start)
    for p in starts[bisect.bisect_left(starts, start):]:
        m = _H1_START.match(html, p)
        if m is not None:
            return m
    return None


def _h1_text(source: str) -> Heading | None:
    """The text of one ``<h1>`` element's source (:func:`first_h1`), None when it holds none."""
    try:
        # in a wrapper: the parser closes the h1 at a block inside it (<h1><p>Auth</p></h1>)
        root = lxml.html.fragment_fromstring(source, create_parent="div",
                                             parser=_PARSER)
    except (ValueError, lxml.etree.ParserError):
        return None
    for el in [e for e in root.iterdescendants() if isinstance(e.tag, str) and (
            e.tag.lower() in _NOT_TEXT or e.get("aria-hidden") == "true"
            or e.get("hidden") is not None or _HIDDEN_STYLE.search(e.get("style") or ""))]:
        el.drop_tree()  # its tail (the text after it) stays
    pieces: list[str] = []
    for el in root.iterdescendants():
        if not isinstance(el.tag, str):
            continue
        pieces += [t for t in (el.text, el.tail) if t and t.strip()]
        if el.tag.lower() in _BREAKS:
            el.text = " " + (el.text or "")
            el.tail = " " + (el.tail or "")
    text = _display(root.text_content())
    return Heading(text, tuple(p for p in map(_display, pieces) if p)) if text else None


def page_h1(page: Any) -> Heading | None:
    """The first visible ``<h1>`` of a :class:`~webseg.page.Page` (a rendered URL, a saved
    page JSON: no source at hand; one holding only a logo image passed over), its leaves
    joined as the text writers join them (:func:`webseg.clean.layout.joints`: no space where
    the source has none, a space at whitespace and blocks). None without one."""
    from webseg.clean.layout import NONE, joints

    leaves = page.text_leaves
    h1s = (i for i in range(page.body, page.n) if page.tag[i] == "h1")
    for h1 in islice(h1s, _H1_TRIES):  # the first one, unless it holds only a logo image
        end = int(page.subtree_end[h1])
        lo, hi = np.searchsorted(leaves, [h1, end])
        kept = leaves[lo:hi]
        if len(kept):
            break
        if not any(page.tag[i] in _IMAGE_TAGS for i in range(h1 + 1, end)):
            return None
    else:
        return None
    sep, _, _ = joints(page, kept)
    parts: list[str] = []
    for k, j in enumerate(kept):
        parts += [" "] if k and sep[k] != NONE else []
        parts.append(page.text[j].strip())
    text = _display("".join(parts))
    pieces = tuple(p for p in (_display(page.text[j]) for j in kept) if p)
    return Heading(text, pieces) if text else None


def _display(text: str) -> str:
    """Heading text for display: double-encoded UTF-8 read again, private-use characters
    dropped, whitespace collapsed, a trailing pilcrow dropped, at most 500 characters."""
    text = undo_double_utf8(text)
    text = "".join(c for c in text if unicodedata.category(c) != "Co")
    return " ".join(text.split()).rstrip("¶ ")[:500]


#: C1 control characters: never in text, always in UTF-8 read as Latin-1 (``’`` as
#: ``â\x80\x99``).
_C1 = re.compile(r"[\u0080-\u009f]")
#: A UTF-8 sequence's bytes read as Latin-1 characters: a lead byte and continuation bytes.
_LATIN1_UTF8 = re.compile(r"[\u00c2-\u00f4][\u0080-\u00bf]{1,3}")


def undo_double_utf8(s: str) -> str:
    """``s`` with UTF-8 that was read as Latin-1 read again (``Investorâ\x80\x99s`` ->
    ``Investor’s``), when ``s`` holds a C1 control character, the sure sign of it (pages saved
    twice encoded show these in their title and headline); else ``s`` unchanged. Each
    sequence that does not decode is left as it is."""
    if not _C1.search(s):
        return s

    def one(m: re.Match[str]) -> str:
        try:
            return m.group(0).encode("latin-1").decode("utf-8")
        except UnicodeError:
            return m.group(0)

    return _LATIN1_UTF8.sub(one, s)


def loose(s: str) -> str:
    """``s`` case-folded, with its words only (punctuation and quotes' shapes do not count):
    what two spellings of one title share."""
    return " ".join(_words(s))


def _words(s: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(s.translate(_PUNCT_MAP).casefold()):
        if _UNSPACED.search(w):
            out.extend(w)
        else:
            out.append(w)
    return out


def _shared(a: str, b: str) -> float:
    """The share of ``a``'s words that are also ``b``'s."""
    wa, wb = _words(a), set(_words(b))
    return sum(w in wb for w in wa) / len(wa) if wa else 0.0


def _cuts(title: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every separator in ``title``."""
    return [(m.start(), m.end()) for m in _SEPARATOR.finditer(title) if m.start() > 0]


def _names_site(text: str, site_names: list[str]) -> bool:
    """Whether ``text`` is the site's name: one of ``site_names`` or a domain
    (``davidbau.com``)."""
    lt = loose(text)
    return any(lt == loose(s) for s in site_names if s) \
        or bool(_DOMAIN.fullmatch(text.strip().casefold()))


def _banner(h1: str, title: str) -> bool:
    """Whether ``h1`` is the name part of ``title`` (``Headline - Site Name``): its words are
    all after the title's first separator and fewer than half are in the part before it (the
    site's name in the page's banner: "The Rust Programming Language", "Onet.pl Ciekawostki
    naukowe" for "... - Ciekawostki naukowe w Onet.pl")."""
    cuts = _cuts(title)
    if not cuts:
        return False
    head, tail = title[:cuts[0][0]], title[cuts[0][1]:]
    return _shared(h1, tail) == 1.0 and _shared(h1, head) < MIN_SHARED


def headline_title(title: str, h1: Heading | str | None, tag_title: str | None = None,
                   site_names: list[str] | None = None, others: list[str] | None = None
                   ) -> str | None:
    """The reader's title for a page whose declared title is ``title`` (structured, else the
    ``<title>``), whose first ``<h1>`` is ``h1`` and whose ``<title>`` is ``tag_title``;
    ``others`` are further declared titles (``og:title``, JSON-LD ``headline``) the ``<h1>``
    may agree with. Returns the headline (``title`` cut before the site's name, or the
    ``<h1>``), or None to keep ``title`` (module docstring)."""
    if isinstance(h1, str):
        h1 = Heading(h1, (h1,))
    if not h1:
        return None
    text = h1.text
    lh = loose(text)
    if not lh or lh == loose(title) or _names_site(text, site_names or []):
        return None
    cuts = _cuts(title)
    for start, _ in cuts:  # "Headline | Site": the title's own spelling, cut
        if loose(title[:start]) == lh:
            return title[:start].rstrip()
    run = _inner_run(title, cuts, lh)
    if run:  # "Site - Headline - Section"
        return run
    declared = [t for t in (title, tag_title, *(others or [])) if t]
    if any(_banner(text, t) for t in declared):
        return None
    part = _headline_piece(title, cuts, h1)
    if part is not None:  # the headline among labels or a breadcrumb in the h1
        return part or None
    if tag_title and tag_title != title and any(
            loose(tag_title[:start]) == lh for start, _ in _cuts(tag_title)):
        return text  # the <title>'s headline part: two sources against the structured title
    if f" {lh} " in f" {loose(title)} ":
        return None  # a part of the fuller title ("Arrival T-Shirt" in "Gymshark Arrival...")
    if any(min(_shared(text, t), _shared(t, text)) >= MIN_SHARED for t in declared):
        return text
    return None


def _inner_run(title: str, cuts: list[tuple[int, int]], lh: str) -> str | None:
    """The run of ``title``'s parts between two separators (neither its first part nor its
    last) that is the ``<h1>`` (``lh``, :func:`loose`) and holds at least half of the title's
    words (``in.gr - Headline - Health - News``: a site's name in front, sections after), in
    the title's spelling; else None. A short part in the middle is a section, not the
    headline ("Headline - Section - Site" with the section in the ``<h1>``), and a last part
    is where a site's name stands."""
    if len(cuts) < 2:
        return None
    n_words = len(_words(title))
    ends = [a for a, _ in cuts]
    for i, (_, start) in enumerate(cuts):
        for end in ends[i + 1:]:
            run = title[start:end]
            if loose(run) == lh and 2 * len(_words(run)) >= n_words:
                return run.strip()
    return None


def _headline_piece(title: str, cuts: list[tuple[int, int]], h1: Heading) -> str | None:
    """When one text node of the ``<h1>`` is the title, or a run of the title's parts between
    separators, and the ``<h1>`` holds more (a label, a date, a comment count or a breadcrumb
    in child elements: ``<h1><span>Sponsored by</span> Headline</h1>``, ``Headline <a>Comments:
    45</a>``), that run of the title ("" for the whole title: keep it); else None. The run
    must hold most of the heading's words (``Crate <a>tokio</a>`` is one name, not a label
    and a name)."""
    if len(h1.pieces) < 2:
        return None
    pieces = {loose(p) for p in h1.pieces} - {""}
    bounds = [(0, 0), *cuts, (len(title), len(title))]
    parts = {loose(title[a[1]:b[0]]) for a, b in zip(bounds, bounds[1:], strict=False)}
    # the heading's words, less those of pieces that are another part of the title (the
    # site's name at the head of a breadcrumb: "Site 〉 Section 〉 Headline")
    others = pieces & parts
    # numbers (a date, a comment count) are not the heading's words
    n_words = sum(not w.isdigit() for w in _words(h1.text))
    for i in range(len(bounds) - 1):
        for j in range(len(bounds) - 1, i, -1):
            start, end = bounds[i][1], bounds[j][0]
            run = loose(title[start:end]) if start < end else ""
            if run in pieces and 2 * len(run.split()) > n_words - sum(  # most of the heading
                    len(p.split()) for p in others if p != run):
                return "" if (start, end) == (0, len(title)) else title[start:end].strip()
    return None


def _names_domain(text: str, domain: str | None) -> bool:
    """Whether ``text`` names the site of ``domain`` ("example.org"): it holds the domain
    ("Workforce.com"), or its letters start with the domain's name ("REI Co-op" for rei.com,
    "Newegg" for newegg.com; three letters at least)."""
    if not domain:
        return False
    low = text.casefold()
    if domain in low:
        return True
    name = "".join(c for c in domain.split(".")[0] if c.isalnum())  # "the-sun" -> "thesun"
    letters = "".join(c for c in low if c.isalnum())
    return len(name) >= 3 and letters.startswith(name)


def without_site_name(title: str, site_names: list[str], domain: str | None = None) -> str:
    """``title`` without its last part when that part is the site's name (``Headline |
    Site``, ``Headline - Example.com``): one of ``site_names`` (``og:site_name``...) or a
    name of ``domain`` (:func:`_names_domain`). Only the last part: "Headline | Section |
    Site" keeps its section; a site's name in front ("Site | Headline") stays, as on a home
    page it is the page's name."""
    cuts = _cuts(title)
    if not cuts:
        return title
    start, end = cuts[-1]
    tail, head = title[end:].strip(), title[:start].rstrip()
    if not tail or not _words(head):
        return title
    named = any(loose(tail) == loose(s) for s in site_names if s) or _names_domain(tail, domain)
    return head if named else title


#: Start tags of elements that may hold a page's headline when it has no ``<h1>``: lower
#: headings, and elements whose class or id names a title or headline (``story_title``,
#: ``news_title``, ``headline``).
_HEADING_LIKE = re.compile(
    r"<(?:h[2-6]\b|[a-z][a-z0-9]*\b(?:[^>\"']|\"[^\"]*\"|'[^']*')*?\b(?:class|id)\s*=\s*"
    r"[\"']?[^\"'>]*?(?:title|headline|heading))", re.IGNORECASE)
#: How many heading-like elements are read before giving up (a page full of teasers).
_BODY_TRIES = 60


def body_headline(html: str, title: str, start: int = 0) -> str | None:
    """The headline of a page without an ``<h1>``, from ``start`` (the body's start): the first
    heading-like element (:data:`_HEADING_LIKE`) whose text is a run of ``title``'s parts,
    not the whole title, holding at least half of its words or more than any other part
    (module docstring), in the title's spelling; None when no such element. Each element is
    read as :func:`first_h1` reads a heading (its few thousand characters, not the page)."""
    cuts = _cuts(title)
    if not cuts:
        return None
    bounds = [(0, 0), *cuts, (len(title), len(title))]
    sizes = [len(_words(title[a[1]:b[0]])) for a, b in zip(bounds, bounds[1:], strict=False)]
    runs: dict[str, str] = {}
    for i in range(len(sizes)):
        for j in range(i + 1, len(sizes) + 1):
            if (i, j) == (0, len(sizes)):
                continue  # the whole title: nothing to cut
            run = title[bounds[i][1]:bounds[j][0]].strip()
            n = sum(sizes[i:j])  # at least half the title, or longer than any other part
            if 2 * n >= sum(sizes) or n > max(sizes[:i] + sizes[j:]):
                runs.setdefault(loose(run), run)
    runs.pop("", None)
    if not runs:
        return None
    for m in islice(_HEADING_LIKE.finditer(html, start), _BODY_TRIES):
        text = _element_text(html, m.start())
        if text and loose(text) in runs:
            return runs[loose(text)]
    return None


def _element_text(html: str, start: int) -> str | None:
    """The text of the element whose start tag is at ``start``, read from the next few
    thousand characters (the parser closes it where its end tag stands)."""
    try:
        root = lxml.html.fragment_fromstring(html[start:start + _H1_SPAN],
                                             create_parent="div", parser=_PARSER)
    except (ValueError, lxml.etree.ParserError):
        return None
    first = next((e for e in root if isinstance(e.tag, str)), None)
    if first is None or any(_home_link(a.get("href")) for a in first.iter("a")):
        return None  # a link to the home page: the site's name in a banner, not a headline
    for el in [e for e in first.iterdescendants() if isinstance(e.tag, str)
               and e.tag.lower() in _NOT_TEXT]:
        el.drop_tree()
    return _display(first.text_content())


def _home_link(href: str | None) -> bool:
    """Whether ``href`` leads to a site's home page (``/``, ``/index.html``,
    ``https://example.org``): what a site's logo or name links to."""
    if not href:
        return False
    parts = urlsplit(href.strip())
    if parts.query or (not parts.netloc and not parts.path):
        return False  # "?page=2", "#top": this page, not the home page
    return parts.path in ("", "/") or bool(_INDEX.fullmatch(parts.path))


_INDEX = re.compile(r"/index\.\w+", re.IGNORECASE)
