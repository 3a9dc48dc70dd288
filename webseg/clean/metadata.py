"""Page metadata: title, authors, dates, site name, description, canonical URL, image, tags.

Sources, in the order a field is taken from (the first that has it wins):

1. **JSON-LD** (``<script type="application/ld+json">``, schema.org ``Article``/``NewsArticle``/
   ``BlogPosting``/``WebPage``..., inside ``@graph`` too): what publishers fill for search
   engines, the most reliable source when present;
2. **Open Graph** / article tags (``og:title``, ``article:published_time``...), then
   **meta tags** (``author``, ``description``, ``keywords``, Dublin Core, Parse.ly, Sailthru,
   ``twitter:*``);
3. **microdata** (``itemprop="author|datePublished|dateModified|headline|keywords"``);
4. **the page itself**: ``<title>``, ``<time datetime>``, ``<link rel=canonical>``, a date in
   the URL path (``/2025/09/04/``), a date written out next to the ``<h1>``, and an element
   marked as the byline (``rel=author``, ``class="author|byline"``).

Why a tag scanner and not a full parser or ``extruct``: the fields live in a handful of tags
(``meta``, ``link``, ``base``, ``html``, ``time``, ``title``, JSON-LD scripts, elements with
``itemprop``) and a regular-expression scan of the source finds them in well under a
millisecond on most pages, where a second parse of the document costs several (the whole
``--no-render`` budget is 35 ms a page); ``extruct`` would add rdflib, pyRdfa and mf2py for
formats (RDFa, microformats) that the fields above do not need. Dates are normalised with
``datetime.fromisoformat`` and, for the other spellings publishers use ("September 4, 2025"),
``dateutil`` (a dependency of ``htmldate``/``trafilatura``, already installed).

:func:`extract_metadata` also works from a :class:`~webseg.page.Page` alone (a rendered URL,
a saved page JSON): then it reads the tags the Page model keeps (``<title>``, ``<base href>``,
and whatever attributes of ``meta``/``link``/``html`` the model holds); JSON-LD needs the
source.
"""

from __future__ import annotations

import bisect
import html as htmllib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from webseg import _native
from webseg.clean.titles import (
    body_headline,
    first_h1,
    headline_title,
    page_h1,
    undo_double_utf8,
    without_site_name,
)

__all__ = ["Metadata", "base_href", "base_url", "canonical_url", "declared_lang_hints",
           "extract_metadata", "normalize_date", "scan_tags"]

#: Tags whose attributes carry metadata.
_TAG_RE = re.compile(r"<(meta|link|base|html|time)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>",
                     re.IGNORECASE)
_TITLE_RE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_ATTR_RE = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
_TAG_NAME = re.compile(r"<([a-zA-Z][\w:-]*)")
#: itemprop values read from microdata.
_ITEMPROPS = frozenset({"author", "creator", "datepublished", "datecreated", "datemodified",
                        "headline", "keywords"})
#: A class/id/rel/itemprop word that marks a byline: ``author`` or ``byline`` anywhere
#: (``post-author``, ``authorName``, ``showtopicauthor``, ``writername``), except where
#: another word goes on (``authorities``, ``authorize``, ``authoring``,
#: ``reset-authorcodespan``), ``writer`` not inside a word (``typewriter``), not negated
#: (``no-byline``) nor a container's flag (``has-byline``).
_BYLINE_MARK = re.compile(r"(?<!no-)(?<!has-)(?:author(?!i[zst]|ing|code)|byline)|"
                          r"(?<![a-z])writer")
#: A marked element that is a form's field (``comment-form-author``: a label and an input),
#: part of the footer, sidebar or menus (``footer__writers``: the site's writers), or a whole
#: post whose class names its writer (``hentry post author-kgs``: the byline is inside).
_FORM_MARK = re.compile(r"(?<![a-z])(?:form|footer|menu|nav)(?![a-z])|(?<![a-z])sidebar|"
                        r"(?<![\w-])hentry(?![\w-])")
#: The class or id of the element right around a byline's text fragment that says the text
#: is something else: the article's type or category (``Guide``, a tag link), a date, the
#: writer's job title or description.
_NOT_NAME_MARK = re.compile(r"(?<![a-z])(?:type|categor(?:y|ies)|tags?|topic|label|date[a-z]*|"
                            r"time|job|title|position|desc(?:ription)?|bio|breadcrumbs?|"
                            r"sr-only|screen-reader|visually-hidden)(?![a-z])")
_DESCRIPTION_MARK = re.compile(r"(?<![a-z])(?:job|position|desc(?:ription)?|bio)(?![a-z])")
_BYLINE_CHECK = re.compile(r"(?:class|id|rel|itemprop)\s*=\s*[\"']?[^\"'>]*"
                           r"(?:author(?!i[zs]|ity)|byline|writer)", re.IGNORECASE)
_ITEMPROP_CHECK = re.compile(r"itemprop\s*=\s*[\"']?[^\"'>]*(?:author|creator|date|headline|"
                             r"keywords)", re.IGNORECASE)
#: Parts of a byline that are not the name.
_BYLINE_WORDS = re.compile(
    r"^(?:(?:written|posted|published|reviewed|edited|updated)?\s*by|author(?:s|ed by)?|"
    r"writer|posted|published|von|par|por|di|door|автор|作者|-|–|—|\||·|•)[\s:]*$", re.IGNORECASE)
_FRAGMENT = re.compile(r">([^<]+)<")
#: A fragment that leads into the name rather than being one: it ends on a preposition
#: ("Insights from", "Posted at", "via"), or is a date's label ("Updated", "Last updated",
#: "Originally published").
_LEAD_IN = re.compile(r"(?:^|\s)(?:from|by|at|via|on|in|with|of)[\s:]*$|"
                      r"^(?:[^\W\d]+\s+)?(?:updated|modified|reviewed|published|posted)\b[\s:]*$",
                      re.IGNORECASE)
#: A heading or label of the byline's box ("About the Authors", "Topic Author"): the name, if
#: any, comes after it.
_LABEL = re.compile(r"\b(?:authors?|writers?|byline|contributors?)\b", re.IGNORECASE)
#: The heading of a writer's bio box ("About Becky"): the name follows.
_ABOUT = re.compile(r"^about\s+(?=\w{3})", re.IGNORECASE)
#: A fragment that leads into a category, not a name ("Posted in", "Filed under").
_INTO_CATEGORY = re.compile(r"(?:^|\s)(?:in|under)[\s:]*$", re.IGNORECASE)
#: Degrees and titles that follow a name after a comma ("Jane Doe, Ph.D.", "MD", "Sr.").
_CREDENTIAL = re.compile(r"^(?:[A-Z][a-zA-Z]{0,3}\.){1,3}$|^[A-Z]{2,5}$|^(?i:jr|sr|phd|md|"
                         r"rn|mba|esq)\.?$")
_NOT_NAME = re.compile(r"\d|@|https?:|www\.|[{}=<>]")
_LD_RE = re.compile(r"<script\b[^>]*application/ld\+json[^>]*>(.*?)</script\s*>",
                    re.IGNORECASE | re.DOTALL)
_TAGS_IN = re.compile(r"<[^>]*>")
_URL_DATE = re.compile(r"/((?:19|20)\d\d)[/_-](\d{1,2})[/_-](\d{1,2})(?:/|[_-]|$|\.)")
_ISO_DATE = re.compile(r"((?:19|20)\d\d)-(\d\d)-(\d\d)")
_BY_PREFIX = re.compile(r"^\s*(?:(?:written|posted|published|reviewed|edited|updated)\s+)?"
                        r"(?:by|von|par|por|di|door|av|af|автор|作者)\s*[:\s]\s*",
                        re.IGNORECASE)
_SPLIT_AUTHORS = re.compile(r"\s*(?:,|;|\band\b|&|\bund\b|\bet\b|\by\b|\bi\b|\be\b)\s*",
                            re.IGNORECASE)

#: schema.org types that describe the page's main item (an author or date of a
#: ``Organization`` or a ``BreadcrumbList`` is not the article's).
_CREATIVE = ("article", "posting", "blogposting", "newsarticle", "report", "webpage",
             "creativework", "review", "recipe", "howto", "qapage", "discussionforumposting",
             "socialmediaposting", "videoobject", "product", "event", "course", "book",
             "scholarlyarticle", "techarticle", "liveblogposting", "aboutpage", "itempage",
             "collectionpage", "profilepage", "faqpage", "medicalwebpage", "opinionnewsarticle",
             "analysisnewsarticle", "reportagenewsarticle", "backgroundnewsarticle")

_META_FIELDS: dict[str, tuple[str, ...]] = {
    # field: meta name/property keys, in order of trust
    "title": ("og:title", "twitter:title", "dc.title", "dcterms.title", "parsely-title",
              "sailthru.title", "title"),
    "author": ("author", "article:author", "dc.creator", "dcterms.creator", "parsely-author",
               "sailthru.author", "byl", "citation_author", "dc.contributor", "og:article:author",
               "book:author", "twitter:creator"),
    "date_published": ("article:published_time", "og:published_time",
                       "og:article:published_time", "datepublished", "published_time",
                       "publish-date", "publish_date", "pubdate", "publishdate",
                       "parsely-pub-date", "sailthru.date", "dc.date.issued",
                       "dcterms.issued", "dc.date", "dcterms.date", "dcterms.created",
                       "citation_publication_date", "citation_date", "date", "article.published",
                       "article:published", "cxenseparse:recs:publishtime", "created"),
    "date_modified": ("article:modified_time", "og:updated_time", "og:modified_time",
                      "datemodified", "dcterms.modified", "dc.date.modified", "last-modified",
                      "modified", "article.updated", "lastmod"),
    "site_name": ("og:site_name", "application-name", "twitter:site", "publisher",
                  "dc.publisher", "apple-mobile-web-app-title"),
    "description": ("description", "og:description", "twitter:description",
                    "dc.description", "dcterms.description", "sailthru.description"),
    "image": ("og:image", "og:image:url", "og:image:secure_url", "twitter:image",
              "twitter:image:src", "thumbnail", "sailthru.image.full"),
    "tags": ("article:tag", "keywords", "news_keywords", "parsely-tags", "sailthru.tags",
             "dc.subject", "og:article:tag"),
    "canonical_url": ("og:url", "twitter:url", "parsely-link"),
}
_META_KEY = {k: f for f, keys in _META_FIELDS.items() for k in keys}
#: Pages longer than this get no ``htmldate`` search (it parses the whole page again: on a
#: 50 MB page that is seconds, for a date the structured sources did not give).
HTMLDATE_MAX_CHARS = 3_000_000

#: What :func:`extract_metadata` looks for in the whole source, found in one pass
#: (:class:`_Marks`): the words the microdata, byline, body, headline and JSON-LD tests
#: find, and the tags the regular expressions start with.
_SCAN_WORDS = ("itemprop", "ITEMPROP", "Itemprop", "author", "Author", "byline", "writer",
               "<body", "<BODY", "<h1", "<H1", "ld+json", "LD+JSON", "ld+JSON")
_SCAN_TAGS = ("meta", "link", "base", "html", "time", "script", "h1")
_FIELD_TAGS = ("meta", "link", "base", "html", "time")  # what _TAG_RE starts with


class _Marks:
    """Where the words and tag starts of :data:`_SCAN_WORDS` / :data:`_SCAN_TAGS` are in one
    page's source, found by one compiled pass (:mod:`webseg._native.htmlscan`) instead of a
    ``str.find`` loop or a regular-expression scan of the whole source each (0.1-0.3 ms
    apiece on a large page). ``words[w]``: every position of ``w`` (exact, ascending);
    ``tags[t]``: every ``<`` that may start tag ``t`` (ASCII case variants, any non-ASCII
    character allowed): a superset of where a case-insensitive expression for the tag can
    match, which :func:`_matches` checks there."""

    def __init__(self, html: str, scan: Any) -> None:
        found = scan.find(html, _SCAN_WORDS, _SCAN_TAGS)
        self.words: dict[str, list[int]] = dict(zip(_SCAN_WORDS, found, strict=False))
        self.tags: dict[str, list[int]] = dict(zip(_SCAN_TAGS, found[len(_SCAN_WORDS):],
                                                   strict=True))

    def first(self, *words: str) -> int:
        """The first position of the first of ``words`` that occurs (``str.find`` of each in
        turn), -1 when none does."""
        for w in words:
            if self.words[w]:
                return self.words[w][0]
        return -1

    def starts(self, *tags: str) -> list[int]:
        """The candidate starts of any of ``tags``, ascending."""
        if len(tags) == 1:
            return self.tags[tags[0]]
        return sorted({p for t in tags for p in self.tags[t]})


def _scan(html: str | None) -> _Marks | None:
    """The marks of ``html``, or None when the compiled scan is not built (the callers then
    scan as before: same results)."""
    mod = _native.load("htmlscan")
    return _Marks(html, mod) if html and mod is not None else None


def _matches(pattern: re.Pattern[str], html: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """``pattern.finditer(html)`` for a pattern that starts with a tag (no look-behind, no
    empty match), given ``starts``: ascending positions that include every place it can
    match. The pattern is tried at each position from the end of the last match on, as
    ``finditer`` tries every position; only a candidate can match, so the matches are the
    same."""
    last = 0
    for p in starts:
        if p < last:
            continue
        m = pattern.match(html, p)
        if m is not None:
            yield m
            last = m.end()


def _spaced(positions: list[int], width: int, start: int, limit: int) -> list[int]:
    """The positions a ``str.find`` loop from ``start`` visits (``find(w, pos + len(w))``:
    occurrences that do not overlap the previous one), at most ``limit``, from every
    occurrence's position."""
    out: list[int] = []
    nxt = start
    for p in positions[bisect.bisect_left(positions, start):]:
        if p >= nxt:
            out.append(p)
            if len(out) >= limit:
                break
            nxt = p + width
    return out


@dataclass
class Metadata:
    """What a page says about itself. Lists are empty and strings None when not found;
    ``sources`` names where each found field came from (``json-ld``, ``opengraph``, ``meta``,
    ``microdata``, ``page``, ``url``), for debugging and for the evaluation."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    date_published: str | None = None
    date_modified: str | None = None
    site_name: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    image: str | None = None
    tags: list[str] = field(default_factory=list)
    #: The page's declared language(s): ``<html lang>``, ``content-language``; hints for the
    #: language detector, not output as such.
    lang_hints: list[str] = field(default_factory=list)
    #: ``<base href>`` as written (resolve with :func:`base_url`).
    base_href: str | None = None
    sources: dict[str, str] = field(default_factory=dict)
    #: Every declared title found (JSON-LD ``headline``, ``og:title``...): the visible
    #: headline is checked against each.
    _titles: list[str] = field(default_factory=list, repr=False)
    #: Organisations JSON-LD names as the author (used when no person is found).
    _orgs: list[str] = field(default_factory=list, repr=False)
    #: The site's owner and publisher as meta tags name them (``owner``, ``publisher``): a
    #: meta ``author`` that names them is the publisher, not the writer.
    _owners: list[str] = field(default_factory=list, repr=False)

    FIELDS = ("title", "authors", "date_published", "date_modified", "site_name",
              "description", "canonical_url", "image", "tags")

    def to_dict(self) -> dict[str, Any]:
        """The output fields (the page-result schema's metadata)."""
        return {k: (list(v) if isinstance(v, list) else v)
                for k in self.FIELDS for v in [getattr(self, k)]}

    def _set(self, name: str, value: Any, source: str) -> None:
        """Set ``name`` unless it already has a value (sources are tried best first)."""
        if name == "title" and value:
            self._titles.append(value)
        if value in (None, "", []) or getattr(self, name) not in (None, "", []):
            return
        setattr(self, name, value)
        self.sources[name] = source


# ------------------------------------------------------------------ helpers
def _clean(s: Any, limit: int = 1000) -> str | None:
    """A display string: entities decoded (twice-escaped ones too: ``&amp;#8230;``), UTF-8
    read as Latin-1 read again, whitespace collapsed, None when empty."""
    if s is None:
        return None
    if not isinstance(s, str):
        s = str(s)
    if "&" in s:
        s = htmllib.unescape(s)
        if "&" in s and re.search(r"&#?\w+;", s):
            s = htmllib.unescape(s)
    s = " ".join(undo_double_utf8(s).split())[:limit]
    return s or None


def _attrs(raw: str) -> dict[str, str]:
    """Attributes of a start tag's inside (names lower-cased, entities decoded)."""
    out: dict[str, str] = {}
    for m in _ATTR_RE.finditer(raw):
        name = m.group(1).lower()
        if name not in out:
            v = m.group(2) if m.group(2) is not None else (
                m.group(3) if m.group(3) is not None else (m.group(4) or ""))
            out[name] = htmllib.unescape(v) if "&" in v else v
    return out


def scan_tags(html: str) -> Iterator[tuple[str, dict[str, str]]]:
    """``(tag, attributes)`` of every ``meta``, ``link``, ``base``, ``html`` and ``time``
    start tag of ``html``, in document order (a regular-expression scan, no parse)."""
    for m in _TAG_RE.finditer(html):
        yield m.group(1).lower(), _attrs(m.group(2))


def _field_tags(html: str, marks: _Marks | None = None
                ) -> Iterator[tuple[str, dict[str, str]]]:
    """:func:`scan_tags` less what :func:`_from_tags` does not read, left out before their
    attributes are parsed: ``link`` tags that are no canonical or image link (stylesheets,
    preloads: most of a page's links) and every ``time`` tag after the first with a
    ``datetime``. ``marks`` (of ``html``) saves the scan."""
    timed = False
    found = (_matches(_TAG_RE, html, marks.starts(*_FIELD_TAGS)) if marks is not None
             else _TAG_RE.finditer(html))
    for m in found:
        tag, raw = m.group(1).lower(), m.group(2)
        if tag == "link":
            low = raw.lower()
            if "canonical" not in low and "image_src" not in low:
                continue
        elif tag == "time" and (timed or "datetime" not in raw.lower()):
            continue
        a = _attrs(raw)
        if tag == "time":
            timed = bool(a.get("datetime"))
        yield tag, a


def _page_tags(page: Any) -> Iterator[tuple[str, dict[str, str]]]:
    """The same tuples from a Page's kept attributes (no source at hand)."""
    want = {"meta", "link", "base", "html", "time"}
    for tag, attrs in zip(page.tag, page.attrs, strict=False):
        if tag in want and attrs:
            yield tag, {k.lower(): v for k, v in attrs.items()}


def normalize_date(value: Any) -> str | None:
    """An ISO 8601 date (``2025-09-04``) or date-time (``2025-09-04T10:00:00+02:00``) from
    the spellings publishers use; None when it is not a plausible date (years 1990-2100)."""
    s = _clean(value, 100)
    if not s:
        return None
    d: date | datetime | None = None
    try:
        d = datetime.fromisoformat(s.replace("Z", "+00:00") if s.endswith("Z") else s)
    except ValueError:
        m = _ISO_DATE.match(s)
        if m:
            try:
                d = date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                d = None
        elif re.search(r"\d", s) and len(s) <= 60:
            d = _dateutil(s)
    if d is None or not 1990 <= d.year <= 2100:
        return None
    if isinstance(d, datetime):
        if d.hour == d.minute == d.second == 0 and d.tzinfo is None and "T" not in s:
            return d.date().isoformat()
        return d.isoformat()
    return d.isoformat()


def _dateutil(s: str) -> datetime | None:
    """Free-form dates ("September 4, 2025", "04.09.2025"); day first unless the month name
    or an ISO order says otherwise. None when it does not read as a full date."""
    try:
        from dateutil import parser
    except ImportError:  # pragma: no cover - dateutil comes with htmldate/trafilatura
        return None
    try:
        a = parser.parse(s, default=datetime(1, 1, 1), dayfirst=not re.match(r"\d{4}", s),
                         fuzzy=False)
        b = parser.parse(s, default=datetime(2, 2, 2), dayfirst=not re.match(r"\d{4}", s),
                         fuzzy=False)
    except (ValueError, OverflowError, TypeError):
        return None
    if a.date() != b.date():  # the string lacks the day, month or year
        return None
    return a.replace(tzinfo=None) if a.tzinfo is None else a


def _is_url(s: str) -> bool:
    return s.startswith(("http://", "https://", "//", "/"))


def _person_names(value: Any, orgs: list[str] | None = None) -> list[str]:
    """Names of a JSON-LD ``author``/``creator``: a string, a Person, or a list of them.
    An ``Organization`` as author goes to ``orgs`` instead: a publisher named as the author
    is a last resort after a person named in a byline."""
    if value is None:
        return []
    if isinstance(value, list):
        return [n for v in value for n in _person_names(v, orgs)]
    if isinstance(value, dict):
        if any("organization" in t or "corporation" in t for t in _types(value)):
            name = value.get("name")
            if orgs is not None and isinstance(name, str):
                orgs.append(name)
            return []
        name = value.get("name")
        if isinstance(name, list):
            name = name[0] if name else None
        if not name and (value.get("givenName") or value.get("familyName")):
            name = f"{value.get('givenName') or ''} {value.get('familyName') or ''}"
        return _person_names(name) if isinstance(name, str) else []
    if isinstance(value, str):
        s = _clean(value, 200)
        return [s] if s and not _is_url(s) else []
    return []


def _author_list(raw: Iterable[str]) -> list[str]:
    """Distinct author names, "By " dropped, handles and URLs left out, lists split."""
    out: list[str] = []
    for s in raw:
        s = _clean(s, 300) or ""
        s = _BY_PREFIX.sub("", s)
        if not s or _is_url(s) or s.startswith("@") or len(s) > 120:
            continue
        parts = _SPLIT_AUTHORS.split(s) if len(s) > 3 and ("," in s or " and " in s
                                                           or "&" in s or ";" in s) else [s]
        if len(parts) == 2 and s.count(",") == 1 and all(len(p.split()) == 1 for p in parts) \
                and not any(_CREDENTIAL.match(p.strip()) for p in parts):
            parts = [s]  # "Müller, Anna": one name, surname first
        for p in parts:
            p = p.strip(" |-–—·•»«")  # a byline's separators ("(UKPA) –", "Jo Lee »")
            agency = p.startswith("(") and p.endswith(")") and "(" not in p[1:-1]
            if agency:  # "(AP)": a news agency's name, not a degree like "MD"
                p = p[1:-1].strip()
            if p.endswith(".") and not _CREDENTIAL.match(p):
                p = p.rstrip(".")
            if p and p not in out and any(c.isalpha() for c in p) and len(p.split()) <= 6 \
                    and (agency or not _CREDENTIAL.match(p)):
                out.append(p)
    return out


#: Meta names that name the site's owner or publisher.
_OWNER_KEYS = frozenset({"owner", "publisher", "dc.publisher", "dcterms.publisher"})
#: Lower-case words that belong to names ("Ludwig van Beethoven", "Ibn Battuta").
_NAME_PARTICLES = frozenset({"van", "von", "der", "den", "de", "da", "das", "del", "della",
                             "di", "du", "dos", "la", "le", "bin", "ibn", "al", "el", "y", "e",
                             "zu", "ter", "and", "und", "et", "of"})
_SENTENCE_MARK = re.compile(r"[?!¿¡]")
_DOMAIN_WORD = re.compile(r"(?<![\w@.])(?:[a-z0-9-]+\.)+(?:com|org|net|info|[a-z]{2})(?![\w.@])")
_DASH_THEN_LOWER = re.compile(r"\s[-–—]\s+([^\W\d_])")


def _reads_as_name(text: str) -> bool:
    """Whether a byline's text reads as a name rather than a headline or a sentence (a link
    to another article in an authors' widget: "Minister gets a private jet – report"): no
    question or exclamation mark, no spaced dash followed by a lower-case word,
    and, among three or more words, fewer than half in lower case (particles such as "van"
    aside). Scripts without case pass the case tests."""
    if _SENTENCE_MARK.search(text):
        return False
    m = _DASH_THEN_LOWER.search(text)
    if m and m.group(1).islower():
        return False
    words = text.split(",")[0].split()  # "Jo Lee, staff writer": the name before the comma
    cased = [w for w in words if w[0].isalpha() and w[0].lower() != w[0].upper()]
    lower = [w for w in cased if w[0].islower() and w.lower() not in _NAME_PARTICLES]
    return not (len(words) >= 3 and len(lower) >= 2 and 2 * len(lower) >= len(cased))


def _site_domain(url: str | None) -> str | None:
    """The registrable part of the URL's host ("in.gr" of health.in.gr, "bbc.co.uk")."""
    host = (urlsplit(url).hostname or "") if url else ""
    labels = [x for x in host.lower().split(".") if x]
    if len(labels) < 2 or all(x.isdigit() for x in labels):
        return None
    n = 3 if len(labels) >= 3 and len(labels[-1]) == 2 and len(labels[-2]) <= 3 \
        and labels[-2] in {"co", "com", "net", "org", "gov", "ac", "edu", "ne", "or"} else 2
    return ".".join(labels[-n:])


def _names_publisher(name: str, owners: Iterable[str], domain: str | None) -> str | None:
    """How a meta ``author`` names the site rather than a writer: ``"credit"`` when it holds
    the site's domain among other words ("in.gr — Lambrakis Press SA": a publisher's credit
    line, no one's name), ``"site"`` when it is the domain ("Example.com") or is, holds or is
    held by the name the page gives its site, owner or publisher (``og:site_name``,
    ``<meta name=owner|publisher>``), else None."""
    n = " ".join(name.casefold().split()).strip(" .,")
    if domain and domain in n:
        return "site" if n in (domain, "www." + domain) else "credit"
    m = _DOMAIN_WORD.search(n)  # no URL (a local file): a domain-like word
    if m:
        return "site" if m.group(0) == n else "credit"
    for o in owners:
        o = " ".join((_clean(o, 300) or "").casefold().split()).strip(" .,")
        if len(o) >= 3 and (o == n or o in n or (len(n) >= 3 and n in o)):
            return "site"
    return None


def _weak_name(name: str) -> bool:
    """A login name rather than a person's name: one word, no capital letter."""
    return " " not in name and name == name.lower() and name.isascii()


#: What separates keywords in one string: commas and semicolons, ASCII or full-width, the
#: ideographic enumeration comma and the bar (``亿元|销售|药品``, ``a、b``).
_TAG_SEPARATORS = re.compile(r"[,;|，；、]")


def _tags_list(raw: Any) -> list[str]:
    """Keywords as a list (strings are split at :data:`_TAG_SEPARATORS`)."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for v in items:
        if not isinstance(v, str):
            continue
        for t in _TAG_SEPARATORS.split(v):
            t = _clean(t, 100)
            if t and t not in out:
                out.append(t)
    return out[:50]


# ------------------------------------------------------------------ JSON-LD
def _ld_blocks(html: str, marks: _Marks | None = None) -> Iterator[Any]:
    """Parsed JSON-LD scripts of ``html`` (unparseable ones skipped) of a page that spells
    the type ``ld+json``, ``LD+JSON`` or ``ld+JSON`` somewhere. That test comes after the
    first script is found: on a page without any, the scripts' scan (one pass) is cheaper
    than three searches for the spellings; on a page with one, the first spelling is found
    at that script. ``marks`` (of ``html``) has both already."""
    spelled = None
    found = (_matches(_LD_RE, html, marks.tags["script"]) if marks is not None
             else _LD_RE.finditer(html))
    for m in found:
        if spelled is None:
            spelled = (marks.first("ld+json", "LD+JSON", "ld+JSON") >= 0 if marks is not None
                       else "ld+json" in html or "LD+JSON" in html or "ld+JSON" in html)
        if not spelled:
            return
        yield from _ld_parse(m.group(1))


def _ld_parse(text: str) -> Iterator[Any]:
    text = text.strip()
    if text.startswith("<!--"):
        text = text[4:].rsplit("-->", 1)[0]
    try:
        yield json.loads(text, strict=False)
    except ValueError:
        return


def _ld_items(obj: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every JSON-LD object (``@graph`` members and lists flattened), top level first."""
    if depth > 4:
        return
    if isinstance(obj, list):
        for v in obj:
            yield from _ld_items(v, depth + 1)
    elif isinstance(obj, dict):
        yield obj
        if "@graph" in obj:
            yield from _ld_items(obj["@graph"], depth + 1)
        main = obj.get("mainEntity")
        if isinstance(main, dict):
            yield from _ld_items(main, depth + 1)


def _types(item: dict[str, Any]) -> list[str]:
    t = item.get("@type")
    ts = t if isinstance(t, list) else [t]
    return [x.lower() for x in ts if isinstance(x, str)]


def _from_json_ld(html: str, md: Metadata, marks: _Marks | None = None) -> None:
    items = [it for b in _ld_blocks(html, marks) for it in _ld_items(b)]
    if not items:
        return
    # the main item: an article-like type first, then any creative work
    def rank(it: dict[str, Any]) -> int:
        ts = _types(it)
        if any(("article" in t or "posting" in t) for t in ts):
            return 0
        if any(t in _CREATIVE for t in ts):
            return 1 if not any(t.endswith("page") for t in ts) else 2
        return 3
    ordered = sorted((it for it in items if rank(it) < 3), key=rank)
    src = "json-ld"
    for it in ordered:
        # the headline; a name only for articles (a product's or a page's name is not
        # the page's title: "Arrival T-Shirt" for "Gymshark Arrival T-Shirt - Black")
        md._set("title", _clean(it.get("headline") or (it.get("name") if rank(it) == 0
                                                        else None), 500), src)
        md._set("authors", _author_list(_person_names(it.get("author") or it.get("creator"),
                                                      md._orgs)), src)
        md._set("date_published", normalize_date(_first(it.get("datePublished")
                                                         or it.get("dateCreated"))), src)
        md._set("date_modified", normalize_date(_first(it.get("dateModified"))), src)
        md._set("description", _clean(_first(it.get("description"))), src)
        md._set("image", _image(it.get("image") or it.get("thumbnailUrl")), src)
        md._set("tags", _tags_list(it.get("keywords")), src)
        pub = it.get("publisher")
        if isinstance(pub, list):
            pub = pub[0] if pub else None
        if isinstance(pub, dict):
            md._set("site_name", _clean(pub.get("name"), 200), src)
        url = _first(it.get("url")) if rank(it) == 0 else None
        if isinstance(url, str) and url.startswith("http"):
            md._set("canonical_url", url.strip(), src)
    for it in items:  # a WebSite item names the site
        if "website" in _types(it):
            md._set("site_name", _clean(it.get("name"), 200), src)


def _first(v: Any) -> Any:
    return (v[0] if v else None) if isinstance(v, list) else v


def _image(v: Any) -> str | None:
    v = _first(v)
    if isinstance(v, dict):
        v = v.get("url") or v.get("contentUrl")
        v = _first(v)
    return v.strip() if isinstance(v, str) and v.strip() else None


# ------------------------------------------------------------------ tags
def _from_tags(tags: Iterable[tuple[str, dict[str, str]]], md: Metadata
               ) -> tuple[str | None, str | None]:
    """Meta, link, base and html tags -> fields; returns (first ``<time datetime>``,
    the ``<link rel=canonical>`` href)."""
    found: dict[str, list[tuple[int, str, str]]] = {}
    time_dt = canonical = None
    for tag, a in tags:
        if tag == "meta":
            key = (a.get("property") or a.get("name") or a.get("itemprop") or "").strip().lower()
            content = a.get("content")
            if key in _OWNER_KEYS and content:
                md._owners.append(content)
            if key and content is not None:
                f = _META_KEY.get(key)
                if f is not None:
                    rank = _META_FIELDS[f].index(key)
                    src = "opengraph" if key.startswith(("og:", "article:")) else "meta"
                    found.setdefault(f, []).append((rank, content, src))
            heq = (a.get("http-equiv") or "").lower()
            if heq == "content-language" and a.get("content"):
                md.lang_hints.append(a["content"].split(",")[0].strip())
        elif tag == "link":
            rel = (a.get("rel") or "").lower().split()
            if "canonical" in rel and a.get("href") and canonical is None:
                canonical = a["href"].strip()
            elif "image_src" in rel and a.get("href"):
                found.setdefault("image", []).append((99, a["href"], "meta"))
        elif tag == "base":
            if md.base_href is None and a.get("href"):
                md.base_href = a["href"].strip()
        elif tag == "html":
            lang = a.get("lang") or a.get("xml:lang")
            if lang and lang.strip():
                md.lang_hints.insert(0, lang.strip())
        elif tag == "time" and time_dt is None and a.get("datetime"):
            time_dt = a["datetime"]
    for f, vals in found.items():
        vals.sort(key=lambda x: x[0])
        if f == "author":
            md._set("authors", _author_list(v for _, v, _ in vals if not v.startswith("@")),
                    vals[0][2])
        elif f == "tags":
            md._set("tags", _tags_list([v for _, v, _ in vals]), vals[0][2])
        elif f in ("date_published", "date_modified"):
            for _, v, src in vals:
                d = normalize_date(v)
                if d:
                    md._set(f, d, src)
                    break
        else:
            for _, v, src in vals:
                c = _clean(v, 1000 if f == "description" else 500)
                if c and not (f == "site_name" and c.startswith("@") and len(vals) > 1):
                    md._set(f, c.lstrip("@") if f == "site_name" else c, src)
                    break
    return time_dt, canonical


def _marked_tags(html: str, words: tuple[str, ...], check: re.Pattern[str], limit: int = 300,
                 start: int = 0, capitalised: bool = True, marks: _Marks | None = None
                 ) -> Iterator[tuple[str, dict[str, str], int]]:
    """``(tag, attributes, end of the start tag)`` of the start tags whose attributes contain
    one of ``words`` (as written, and capitalised when ``capitalised``) and match ``check``,
    in document order.
    Found by ``str.find`` on the words and a short look back for the tag around each hit,
    which is much faster than a regular expression over every tag of the page; ``marks``
    (of ``html``) has the words' positions already."""
    hits: set[int] = set()
    for w in {v for x in words for v in ((x, x.capitalize()) if capitalised else (x,))}:
        if marks is not None and w in marks.words:
            for pos in _spaced(marks.words[w], len(w), start, limit):
                lt = html.rfind("<", max(0, pos - 400), pos)
                if lt >= 0 and html.find(">", lt, pos) < 0:
                    hits.add(lt)
            continue
        pos = html.find(w, start)
        seen = 0
        while pos >= 0 and seen < limit:
            seen += 1
            lt = html.rfind("<", max(0, pos - 400), pos)
            if lt >= 0 and html.find(">", lt, pos) < 0:
                hits.add(lt)
            pos = html.find(w, pos + len(w))
    for lt in sorted(hits):
        m = _TAG_NAME.match(html, lt)
        gt = html.find(">", lt)
        if m is None or gt < 0 or not check.search(html, m.end(), gt):
            continue
        yield m.group(1).lower(), _attrs(html[m.end():gt]), gt + 1


def _from_microdata(html: str, md: Metadata, marks: _Marks | None = None) -> None:
    """``itemprop`` fields (the value is ``content``/``datetime`` or the element's text)."""
    if (marks.first("itemprop", "ITEMPROP") < 0 if marks is not None
            else "itemprop" not in html and "ITEMPROP" not in html):
        return
    authors: list[str] = []
    for tag, a, end in _marked_tags(html, ("itemprop",), _ITEMPROP_CHECK, marks=marks):
        prop_l = [p.lower() for p in (a.get("itemprop") or "").split()]
        if not _ITEMPROPS.intersection(prop_l):
            continue
        value = a.get("content") or a.get("datetime")
        if value is None:
            value = _element_text(html, end, tag)
        if "author" in prop_l or "creator" in prop_l:
            if "itemscope" in a:  # a Person: its name is a nested itemprop
                nm = re.search(r"\bitemprop\s*=\s*[\"']?name\b[^>]*>", html[end:end + 3000])
                if nm:
                    inner = _attrs(nm.group(0)[:-1]).get("content")
                    value = inner or _element_text(html, end + nm.end(), "")
            if value:
                authors.append(value)
        elif "datepublished" in prop_l or "datecreated" in prop_l:
            md._set("date_published", normalize_date(value), "microdata")
        elif "datemodified" in prop_l:
            md._set("date_modified", normalize_date(value), "microdata")
        elif "headline" in prop_l:
            md._set("title", _clean(value, 500), "microdata")
        elif "keywords" in prop_l:
            md._set("tags", _tags_list(value), "microdata")
    md._set("authors", _author_list(authors), "microdata")


def _element_text(html: str, start: int, tag: str) -> str | None:
    """Text of an element from the end of its start tag to its end tag (tags stripped),
    bounded to 500 characters of source."""
    chunk = html[start:start + 500]
    if tag:
        end = re.search(rf"</{re.escape(tag)}\s*>", chunk, re.IGNORECASE)
        if end:
            chunk = chunk[:end.start()]
    else:
        chunk = chunk.split("<", 1)[0]
    return _clean(_TAGS_IN.sub(" ", chunk), 200)


def _byline(html: str, marks: _Marks | None = None) -> list[str]:
    """The name in the first element marked as the byline (``class="author"``,
    ``rel="author"``, ``itemprop="author"``...): the first text fragment after its start tag
    that reads as a name (2-60 characters, at most 6 words, no digits), skipping the words
    around one ("By", "Written by", dashes). Elements that hold a photo or a bio only fail
    the test and the next marked element is tried (up to 12), but not one of the same tag,
    class and id as one that failed: those are the items of one list (a column of the site's
    writers, each with a headline; the comments of other articles), whose first item showed
    they hold no byline. A recurring class alone does not rule an element out: on a forum
    every post's author has it, and the first is the page's author."""
    tried = 0
    not_bylines: set[tuple[str, str, str]] = set()
    for tag, a, end in _marked_tags(html, ("author", "Author", "byline", "writer"),
                                    _BYLINE_CHECK, start=_body_start(html, marks),
                                    capitalised=False, marks=marks):
        if tag in _NOT_BYLINE_TAGS:
            continue
        marks = " ".join(a.get(k, "") for k in ("class", "rel", "id", "itemprop")).lower()
        if not _BYLINE_MARK.search(marks) or _FORM_MARK.search(marks):
            continue
        kind = (tag, a.get("class", "").strip(), a.get("id", "").strip())
        if kind in not_bylines:
            continue
        tried += 1
        if tried > 12:
            break
        stop = _element_end(html, end, tag, end + 600)
        category = labelled = outside = False
        for f in _FRAGMENT.finditer(html, end - 1, end + 600):
            t = _clean(f.group(1), 200)
            if f.start() > stop and t:
                # past the element: only when its last text was a label or a lead-in
                # ("Topic Author", "Posted by"), and only the first text after it
                if not labelled or outside:
                    break
                outside = True
            if t and _ABOUT.match(t):  # a bio box's heading: "About Becky"
                t = _ABOUT.sub("", t)
            if t:
                labelled = bool(_LABEL.search(t) or _BYLINE_WORDS.match(t)
                                or _LEAD_IN.search(t))
            if t and category:  # the category after "Posted in"
                category = False
                continue
            if not t or _BYLINE_WORDS.match(t) or _LEAD_IN.search(t) or _LABEL.search(t) \
                    or _other_field(html, f.start(), f.start() == end - 1):
                category = bool(t) and bool(_INTO_CATEGORY.search(t))
                continue
            t = _BY_PREFIX.sub("", t)
            if 2 <= len(t) <= 60 and len(t.split()) <= 6 and not _NOT_NAME.search(t) \
                    and any(c.isalpha() for c in t) and not t.endswith(":") \
                    and _reads_as_name(t):
                return _author_list([t])
            not_bylines.add(kind)  # nor the others like it: the items of one list
            break  # the first real text is no name: this element is not a byline
    return []


_NOT_BYLINE_TAGS = frozenset({"meta", "link", "body", "html", "script", "style", "img", "input",
                              "form", "button", "svg", "section", "main", "source", "iframe",
                              "article", "nav", "label", "select", "option", "textarea"})
_TAG_AT = re.compile(r"<(/?)([a-zA-Z][\w:-]*)")


def _element_end(html: str, start: int, tag: str, limit: int) -> int:
    """Where the element whose start tag ends at ``start`` ends (its end tag, counting
    nested elements of the same name), at most ``limit``: a byline's name is inside it, and
    the text after an empty byline box is the next part of the page (a product's name)."""
    depth = 1
    for m in _TAG_AT.finditer(html, start, limit):
        if m.group(2).lower() != tag:
            continue
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.start()
    return limit


def _other_field(html: str, gt: int, own: bool = False) -> bool:
    """The text fragment after the ``>`` at ``gt`` is directly inside an element whose class
    or id names another field (:data:`_NOT_NAME_MARK`: a type, a category or tag, a date, a
    job title): ``<span class="article_type">Guide</span>`` in a byline. Directly in the
    byline element itself (``own``) only a description or a job title counts
    (``byline-date`` holds "By Jo Lee • March 12")."""
    lt = html.rfind("<", max(0, gt - 1000), gt)
    if lt < 0 or html.startswith("</", lt):
        return False
    m = _TAG_NAME.match(html, lt)
    if m is None:
        return False
    a = _attrs(html[m.end():gt])
    marks = f"{a.get('class', '')} {a.get('id', '')}".lower()
    test = _DESCRIPTION_MARK if own else _NOT_NAME_MARK
    return bool(marks.strip()) and bool(test.search(marks)) \
        and not re.search(r"name|(?<![a-z])fn(?![a-z])", marks)


def _worse_title(title: str, tag_title: str, site_name: str | None) -> bool:
    """Whether a structured title is worse than the ``<title>``: the site's name rather than
    the page's, or cut short with an ellipsis where the ``<title>`` has it whole."""
    t = title.casefold()
    if site_name and t == site_name.casefold() and tag_title.casefold() != t:
        return True
    stem = title.rstrip(".… ").casefold()
    return (title.endswith(("...", "…")) and len(stem) > 10
            and tag_title.casefold().startswith(stem) and len(tag_title) > len(stem))


def _page_title(page: Any) -> str | None:
    return _clean(getattr(page, "title", None), 500) if page is not None else None


def _htmldate(html: str, url: str | None) -> str | None:
    """``htmldate``'s date for a page without structured dates (quick mode, original date
    preferred); None when it finds none or is not installed."""
    try:
        from htmldate import find_date
    except ImportError:  # pragma: no cover - installed with trafilatura
        return None
    try:
        found = find_date(html, extensive_search=False, original_date=True, url=url)
    except Exception:  # noqa: BLE001 - htmldate fails on odd markup: no date, not an error
        return None
    return normalize_date(found) if found else None


def _url_date(url: str | None) -> str | None:
    """A full date in the URL's path (``/2025/09/04/``), None without one."""
    m = _URL_DATE.search(urlsplit(url).path) if url else None
    return normalize_date(f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}") if m else None


def _days_apart(a: str, b: str) -> int | None:
    """Days between two ISO dates' calendar days (their first 10 characters)."""
    try:
        return abs((date.fromisoformat(a[:10]) - date.fromisoformat(b[:10])).days)
    except ValueError:
        return None


_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
#: A date written out for readers: "Nov 21, 2018", "21 November 2018", "2018-11-21".
_SHOWN_DATE = re.compile(
    rf"(?<![\w/.-])(?:{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\.?\s+{_MONTHS}\.?,?\s+(?:19|20)\d\d"
    r"|(?:19|20)\d\d-\d\d-\d\d)(?![\w/.-])", re.IGNORECASE)
#: How much source around the first ``<h1>`` is searched for a shown date.
_HEADLINE_BEFORE, _HEADLINE_AFTER = 1500, 4000


def _headline_date(html: str, marks: _Marks | None = None) -> str | None:
    """The date shown next to the page's headline: the first date written out for readers in
    a short text fragment (at most 80 characters: "Last updated: November 13, 2025", not a
    sentence that mentions a date) of the source from shortly before the first ``<h1>`` to
    a few thousand characters after it. A page without structured dates that shows one under
    its title shows its publication (or update) date there; dates further down are in the
    text, comments and related links. None without an ``<h1>`` or a shown date."""
    if marks is not None:
        h1 = marks.first("<h1", "<H1")
    else:
        h1 = html.find("<h1")
        h1 = html.find("<H1") if h1 < 0 else h1
    if h1 < 0:
        return None
    chunk = html[max(0, h1 - _HEADLINE_BEFORE):h1 + _HEADLINE_AFTER]
    chunk = re.sub(r"<(script|style)\b.*?</\1\s*>", " ", chunk, flags=re.IGNORECASE | re.DOTALL)
    for frag in _FRAGMENT.finditer(chunk):
        t = _clean(frag.group(1), 200)
        if not t or len(t) > 80:
            continue
        m = _SHOWN_DATE.search(t)
        if m:
            d = normalize_date(m.group(0))
            if d:
                return d
    return None


def _body_start(html: str, marks: _Marks | None = None) -> int:
    """Where ``<body`` starts (0 without one): bylines are in the body, and the head's
    scripts and meta tags are full of the words they are found by."""
    if marks is not None:
        return max(marks.first("<body", "<BODY"), 0)
    body = html.find("<body")
    body = html.find("<BODY") if body < 0 else body
    return max(body, 0)


def _head(html: str) -> str:
    """The part of a document before ``<body>`` (where base and canonical links live)."""
    body = html.find("<body")
    body = html.find("<BODY") if body < 0 else body
    return html[:body] if body > 0 else html


def base_href(html: str | None, page: Any = None) -> str | None:
    """The document's ``<base href>`` as written (the first), from its source or, without one,
    from the Page; None when it has none. Cheaper than the whole metadata: the link writers
    need only this."""
    tags = scan_tags(_head(html)) if html else _page_tags(page) if page is not None else ()
    for tag, a in tags:
        if tag == "base" and (a.get("href") or "").strip():
            return a["href"].strip()
    return None


def canonical_url(html: str | None, page: Any = None) -> str | None:
    """The page's absolute http(s) canonical URL (``<link rel=canonical>``, else ``og:url``)
    from its source or, without one, from the Page's kept attributes; None when it names
    none (a relative canonical needs the URL it is relative to, which is what is unknown)."""
    link = og = None
    html = _head(html) if html else html  # canonical links live in the head
    for tag, a in (scan_tags(html) if html else _page_tags(page) if page is not None else ()):
        if tag == "link" and link is None and "canonical" in (a.get("rel") or "").lower().split():
            link = (a.get("href") or "").strip()
        elif tag == "meta" and og is None and (a.get("property") or a.get("name") or ""
                                               ).lower() == "og:url":
            og = (a.get("content") or "").strip()
    for v in (link, og):
        if v and urlsplit(v).scheme in ("http", "https") and urlsplit(v).netloc:
            return v
    return None


def base_url(url: str | None, base_href: str | None) -> str | None:
    """The URL relative links resolve against: ``<base href>`` resolved against the page's
    URL (``base_href`` alone when absolute), else the URL."""
    if base_href:
        b = base_href.strip()
        if urlsplit(b).scheme in ("http", "https", "file"):
            return b
        if url:
            return urljoin(url, b)
    return url


def declared_lang_hints(html: str | None = None, page: Any = None) -> list[str]:
    """The ``lang_hints`` :func:`extract_metadata` gives for the same ``html`` and ``page``
    (``<html lang>`` first, then ``content-language``), read from the tags alone: the same
    tags through the same code, without the rest of the metadata (JSON-LD, dates, titles:
    most of its cost), for a caller that needs only the page's language."""
    md = Metadata()
    if html:
        _from_tags(_field_tags(html), md)
    elif page is not None:
        _from_tags(_page_tags(page), md)
    return md.lang_hints


def extract_metadata(html: str | None = None, page: Any = None, url: str | None = None,
                     *, dates: bool = True) -> Metadata:
    """Metadata of a page from its decoded HTML source and/or its Page (module docstring).

    ``url`` (the page's address) resolves relative canonical and image URLs and is searched
    for a date (``/2025/09/04/``) when the page states none. When no tag, structured data or
    the URL gives a publication date, ``htmldate`` looks for one in the text (its quick mode:
    a few milliseconds, on the pages without structured dates only), and after it the date
    shown by the headline (:func:`_headline_date`); ``dates=False`` skips both. A structured
    date one day off the URL's date gives way to it (the same moment in another time zone)."""
    md = Metadata()
    title_tag: str | None = None
    marks = _scan(html)
    if html:
        _from_json_ld(html, md, marks)
        time_dt, canonical = _from_tags(_field_tags(html, marks), md)
        _from_microdata(html, md, marks)
        m = _TITLE_RE.search(html)
        if m:
            title_tag = _clean(_TAGS_IN.sub("", m.group(1)), 500)
    elif page is not None:
        time_dt, canonical = _from_tags(_page_tags(page), md)
    else:
        time_dt = canonical = None
    if canonical:
        md._set("canonical_url", canonical, "page")
    tag_title = title_tag or _page_title(page)
    if md.title and tag_title and _worse_title(md.title, tag_title, md.site_name):
        md.title = None
        md.sources.pop("title", None)
    declared = md.title or tag_title
    if declared and (html or page is not None):
        # the visible headline over a title written for search engines (webseg.clean.titles)
        body = _body_start(html, marks) if html else 0
        h1 = (first_h1(html, body, marks.tags["h1"] if marks is not None else None) if html
              else page_h1(page))
        if h1 is None and html:  # no <h1>: the title's part a lower heading shows
            headline = body_headline(html, declared, body)
        else:
            headline = headline_title(declared, h1, tag_title,
                                      [md.site_name] if md.site_name else [], md._titles)
        if headline:
            md.title = None
            md._set("title", headline, "page")
        else:  # no headline to cut at: the site's name, when it ends the title, goes
            site = [md.site_name] if md.site_name else []
            if md.title:
                md.title = without_site_name(md.title, site, _site_domain(url))
            elif tag_title:
                tag_title = without_site_name(tag_title, site, _site_domain(url))
    md._set("title", tag_title, "page")
    url_date = _url_date(url)
    if url_date and md.date_published and md.date_published[:10] != url_date \
            and _days_apart(md.date_published, url_date) == 1:
        # the same publication seen in two time zones: a time stamp in UTC (or the server's)
        # crosses midnight where the date the publisher put in the path is the local day the
        # readers were shown
        md.date_published = url_date
        md.sources["date_published"] = "url"
    md._set("date_published", url_date, "url")
    if md.date_published is None and time_dt:
        md._set("date_published", normalize_date(time_dt), "page")
    if md.date_published is None and html and dates and len(html) <= HTMLDATE_MAX_CHARS:
        md._set("date_published", _htmldate(html, url), "htmldate")
    if md.date_published is None and html and dates:
        md._set("date_published", _headline_date(html, marks), "page")
    org_source = "json-ld" if md._orgs else md.sources.get("authors", "meta")
    if md.authors and md.sources.get("authors") in ("meta", "opengraph"):
        # the site or its publisher as the meta author: a person in a byline comes first and
        # the site's name is the last resort (as a JSON-LD Organization author); a credit line
        # naming the domain and the company is no author at all
        domain = _site_domain(url)
        owners = [*md._owners, *([md.site_name] if md.site_name else [])]
        kinds = [_names_publisher(a, owners, domain) for a in md.authors]
        if any(kinds):
            md._orgs += [a for a, k in zip(md.authors, kinds, strict=True) if k == "site"]
            md.authors = [a for a, k in zip(md.authors, kinds, strict=True) if k is None]
            if not md.authors:
                md.sources.pop("authors", None)
    if html and (not md.authors or all(_weak_name(a) for a in md.authors)):
        found = _byline(html, marks)
        if found:  # a byline beats no author and a login name ("jdoe", "andrew.smith")
            md.authors = []
            md._set("authors", found, "page")
    md._set("authors", _author_list(md._orgs), org_source)
    base = base_url(url, md.base_href)
    for f in ("canonical_url", "image"):
        v = getattr(md, f)
        if v and base and not urlsplit(v).scheme:
            setattr(md, f, urljoin(base, v))
    return md
