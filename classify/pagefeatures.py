"""Every cheap view of a page that tells its functional type, from one pass over the DOM.

The paper's method (:mod:`classify.views`, WPS positions) sees only visible text at a few
places; page types are decided as much by *markup* (a cart button, a ``product-card`` grid,
``itemtype=.../Product``, ``og:type=article``, a thread of ``comment`` blocks, ``<pre>`` code) and
the URL (``/p/``, ``/forum/``, ``/docs/``, ``/2025/09/04/``). :func:`page_views` turns a
:class:`~webseg.page.Page` (rendered or parsed: nothing here needs geometry, so the same
features come out of ``webseg.parse`` and of the browser) into

* ``text``: visible text (first :data:`MAX_TEXT` characters);
* ``title``: the ``<title>`` and the ``h1``-``h3`` headings;
* ``url``: tokens of the URL path and query keys (digits mapped to ``0`` so dates and ids
  become shapes: ``2025/09/04`` -> ``0000 00 00``), plus ``d=<depth>``;
* ``dom``: markup vocabulary: ``t:<tag>``, class / id / role / input-type / itemprop words
  (split on ``-_`` and camelCase, so ``productCard`` gives ``product card``);
* ``head``: structured metadata (:func:`head_tokens`): Open Graph ``og:type``, JSON-LD
  ``@type``, microdata ``itemtype``, ``<meta>`` names / properties and ``<link rel>`` kinds,
  read from the page's HTML source (the Page model keeps neither ``<meta content>`` nor
  ``<script>`` text); empty when the source is not at hand;
* ``struct``: counts and ratios (forms, inputs, buttons, prices, repeated sibling groups,
  comment/reply structures, code/pre, tables, headings, images, link-to-word ratio...), as
  ``name -> float``.

No stop lists and no language-specific rules (pages are multilingual): the only word lists are
markup vocabulary (class-name stems such as ``comment``, ``price``, ``cart``), which is
English-leaning in practice on every site, and currency symbols / codes.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import repeat
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np

from webseg import _native as native
from webseg.lang import has_unspaced_letter
from webseg.page import Page

__all__ = ["MAX_TEXT", "STRUCT_NAMES", "count_words", "head_tokens", "page_views", "split_words"]

MAX_TEXT = 20_000
_MAX_HEAD = 400_000  # characters of the HTML source searched for metadata (all <head>s fit)

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_]{2,25}")
_ASCII_LETTERS = re.compile(r"[a-z]{2,25}")  # _WORD on lower-cased ASCII text
_DIGITS = re.compile(r"\d")
_PRICE = re.compile(
    r"(?:[$€£¥₹₽₩₺₴]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|PLN|SEK|NOK|DKK|CZK|INR|BRL|RUB|zł|kr|Kč|"
    r"Ft|lei|руб)\b)\s?\d[\d.,\s]{0,12}\d?|\d[\d.,]{0,12}\s?(?:[$€£¥₹₽₩₺₴]|\b(?:USD|EUR|GBP|"
    r"CHF|PLN|SEK|NOK|DKK|CZK|zł|kr|Kč|Ft|lei|руб|грн)\b)")
#: numeric dates; digit boundaries, not word boundaries (``\b`` finds none between a Chinese
#: character and a digit: ``日期2012-01-04``), and the CJK form ``2012年1月4日``. Both patterns
#: start with their first digit and test what precedes it after it (``\d(?<![\d.]\d)``, the
#: same matches as a leading ``(?<![\d.])``): a pattern that starts with a character class lets
#: the regular expression engine skip to the next digit, five times faster over a page's text.
_DATE = re.compile(r"\d(?<![\d.]\d)(?:\d{3}[-/.]\d{1,2}[-/.]\d{1,2}|\d?[-/.]\d{1,2}[-/.]\d{2,4}"
                   r"|\d{3}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?日)?)(?![\d.])")
_CLOCK = re.compile(r"\d(?<![\d:]\d)\d?:\d{2}(?![\d:])")
#: class/id stems counted as structure (markup vocabulary, not natural language)
_STEMS = {
    "comment": ("comment", "reply", "replies", "respond"),
    "forum": ("thread", "topic", "forum", "post", "message", "bbcode", "quote"),
    "user": ("author", "avatar", "user", "member", "profile", "byline"),
    "product": ("product", "sku", "price", "cart", "basket", "checkout", "add-to", "buy",
                "stock", "variant", "qty", "quantity", "rating", "review"),
    "listing": ("card", "item", "tile", "grid", "result", "listing", "teaser", "pagination",
                "pager", "filter", "facet", "sort", "collection", "catalog", "category"),
    "doc": ("doc", "toc", "sidebar", "breadcrumb", "highlight", "syntax", "api", "version",
            "edit-page", "prev-next", "admonition"),
    "article": ("article", "entry", "content", "story", "published", "date", "share", "tag"),
    "service": ("contact", "service", "cta", "pricing", "plan", "testimonial", "feature",
                "hero", "appointment", "booking", "quote-form"),
}
#: key -> the stems it belongs to ("quote" is a forum key, "quote-form" a service one)
_KEY_STEMS = {k: {s for s, keys in _STEMS.items() if k in keys}
              for keys in _STEMS.values() for k in keys}


_STEM_NAMES = tuple(_STEMS)
_KEYS = tuple(_KEY_STEMS)
#: per key of :data:`_KEYS`, the bit set of its stems (bit = index in :data:`_STEM_NAMES`)
_KEY_MASKS = tuple(sum(1 << _STEM_NAMES.index(s) for s in stems)
                   for stems in _KEY_STEMS.values())


def stem_counts(values: dict[str, int]) -> Counter[str]:
    """``stem -> sum of the counts of the attribute values that contain one of its keys``
    (as substrings, case-insensitively: ``productCard`` counts for ``product``).

    Why not a regular expression per value: one ``str.find`` per key over all of a page's
    values joined by newlines (no key holds one) is ~10x faster than an alternation of 70
    keys tried at every character, and gives the same sets."""
    out: Counter[str] = Counter()
    if not values:
        return out
    fast = native.load("markupwalk")
    if fast is not None and type(values) is dict:
        # compiled: each value's characters scanned once against the keys starting with
        # that character (the same sets, no Python step per key and match)
        sums, hit = fast.stems(values, _KEYS, _KEY_MASKS, len(_STEM_NAMES))
        for k, (stem, c) in enumerate(zip(_STEM_NAMES, sums, strict=True)):
            if hit >> k & 1:
                out[stem] = c
        return out
    items = list(values.items())
    low = [v.lower() for v, _ in items]
    starts, pos = [], 0
    for w in low:
        starts.append(pos)
        pos += len(w) + 1
    joined = "\n".join(low)
    found: dict[int, set[str]] = {}
    for key, stems in _KEY_STEMS.items():
        at = joined.find(key)
        while at >= 0:
            j = bisect_right(starts, at) - 1
            found.setdefault(j, set()).update(stems)
            at = joined.find(key, at + 1)
    for j, stems in found.items():
        for st in stems:
            out[st] += items[j][1]
    return out
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_COUNTED_TAGS = ("form", "input", "button", "select", "textarea", "label", "table", "tr", "td",
                 "pre", "code", "img", "picture", "svg", "video", "iframe", "ul", "ol", "li",
                 "dl", "p", "a", "article", "section", "nav", "aside", "header", "footer",
                 "main", "time", "blockquote", "figure", "strong", "em", "span", "div", "br",
                 "hr", "address", "cite", "kbd", "samp", "var", "details", "summary", "abbr",
                 "sup", "option", "fieldset", "noscript", "canvas")
_INPUT_TYPES = ("search", "password", "email", "number", "submit", "hidden", "checkbox",
                "radio", "tel", "text", "date", "file")

STRUCT_NAMES: tuple[str, ...] = (
    ("nodes", "elements", "text_leaves", "words", "chars", "link_words", "link_ratio",
     "max_leaf_chars", "mean_leaf_chars", "long_leaves", "p_chars_share", "pre_code_share",
     "table_cell_share", "list_item_share", "heading_count", "price_count", "price_per_kword",
     "date_count", "clock_count", "rep_groups5", "rep_groups10", "rep_max", "rep_share",
     "rep_img_groups", "rep_link_groups", "url_depth", "url_len", "url_query", "url_digits",
     "url_html", "url_date", "url_slug_words", "url_root", "title_words", "img_per_kword",
     "forms_with_password", "forms_with_search", "h1_count", "depth_max", "depth_mean",
     "ld_count", "og_present", "itemscope")
    + tuple(f"tag_{t}" for t in _COUNTED_TAGS + _HEADINGS)
    + tuple(f"input_{t}" for t in _INPUT_TYPES)
    + tuple(f"stem_{s}" for s in _STEMS)
)


def count_words(text: str) -> int:
    """Number of words of ``text`` in any script: white-space separated words, where each
    character of an unspaced script (Chinese, Japanese kana, Thai ...) counts as one word, as
    the multilingual content evaluation counts them. ``len(text.split())`` would make a Chinese
    page a few dozen "words" long and every per-word ratio meaningless."""
    if not has_unspaced_letter(text):
        scan = native.load("textscan")  # compiled: the same count without the list
        return scan.count_split(text) if scan is not None else len(text.split())
    import regex

    n = len(regex.findall(_UNSPACED_LETTER, text))
    return n + len(regex.sub(_UNSPACED_LETTER, " ", text).split())


_UNSPACED_LETTER = r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]"


def split_words(value: str) -> list[str]:
    """Words of an attribute value: ``"productCard main-nav__item"`` -> product, card, main,
    nav, item (lower-cased, 2-25 letters; digits dropped).

    Two shortcuts with the same words, for speed (a page has ~300 distinct values): a value
    with no upper-case letter (``str.islower``) has no camelCase boundary and nothing to
    lower-case; in ASCII text a letter (``_WORD``) is ``[a-z]`` once lower-cased, which
    the regular expression engine matches twice as fast as the Unicode class."""
    if not value.islower():
        value = _CAMEL.sub(" ", value).lower()
    return (_ASCII_LETTERS if value.isascii() else _WORD).findall(value)


def _url_tokens(url: str | None) -> tuple[list[str], dict[str, float]]:
    s = {"url_depth": 0.0, "url_len": 0.0, "url_query": 0.0, "url_digits": 0.0,
         "url_html": 0.0, "url_date": 0.0, "url_slug_words": 0.0, "url_root": 0.0}
    if not url:
        return ["nourl"], s
    try:
        u = urlsplit(url)
    except ValueError:
        return ["badurl"], s
    # percent-encoded non-ASCII paths (``/%E6%96%B0%E9%97%BB/``) as the words they spell,
    # not as hex shapes that only say "this path is not ASCII"
    path = unquote(u.path or "/", errors="replace")
    segs = [p for p in path.split("/") if p]
    toks = [f"d={min(len(segs), 8)}"]
    for k, seg in enumerate(segs):
        shape = _DIGITS.sub("0", seg.lower())
        parts = [p for p in re.split(r"[^0-9a-z\u00c0-\uffff]+", shape) if p]
        toks += parts
        if k == len(segs) - 1:
            toks += [f"last:{p}" for p in parts[:3]]
        elif k == 0:
            toks += [f"first:{p}" for p in parts[:3]]
    for key, _ in parse_qsl(u.query, keep_blank_values=True):
        toks.append(f"q:{key.lower()[:20]}")
    last = segs[-1] if segs else ""
    s.update(url_depth=float(len(segs)), url_len=float(len(path)),
             url_query=float(bool(u.query)), url_digits=float(sum(c.isdigit() for c in path)),
             url_html=float(last.lower().endswith((".html", ".htm", ".php", ".aspx"))),
             url_date=float(bool(re.search(r"/(?:19|20)\d\d/\d\d?(?:/|$)", path))),
             url_slug_words=float(max((len(re.split(r"[-_]", x)) for x in segs), default=0)),
             url_root=float(not segs))
    return toks, s


_META_TAG = re.compile(r"<meta\b[^>]*>", re.I)
_LINK_TAG = re.compile(r"<link\b[^>]*>", re.I)
_ATTR = re.compile(r"""([a-zA-Z:_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ITEMTYPE_B = re.compile(rb"""\bitemtype\s*=\s*["']?([^"'\s>]+)""", re.I)
#: :data:`_ITEMTYPE_B` on text: ASCII classes and case (what the bytes pattern matches)
_ITEMTYPE_S = re.compile(r"""\bitemtype\s*=\s*["']?([^"'\s>]+)""", re.I | re.A)
_LD_TYPE = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')


def _attrs(tag: str) -> dict[str, str]:
    return {m.group(1).lower(): (m.group(2) or m.group(3) or m.group(4) or "")
            for m in _ATTR.finditer(tag)}


def _ld_types(obj: Any, out: list[str], depth: int = 0) -> None:
    if depth > 6 or len(out) > 50:
        return
    if isinstance(obj, dict):
        t = obj.get("@type")
        for v in (t if isinstance(t, list) else [t]):
            if isinstance(v, str):
                out.append(v)
        for v in obj.values():
            if isinstance(v, dict | list):
                _ld_types(v, out, depth + 1)
    elif isinstance(obj, list):
        for v in obj[:100]:
            _ld_types(v, out, depth + 1)


def _type_name(v: str) -> str:
    """``https://schema.org/NewsArticle`` -> ``newsarticle``."""
    return re.split(r"[/#:]", v.strip().rstrip("/"))[-1].lower()[:40]


def head_tokens(html: str | None) -> list[str]:
    """Structured-metadata tokens of an HTML source (regular expressions, no parse).

    ``og:<og:type>``, ``ld:<JSON-LD @type>`` (all nested types), ``it:<itemtype>``,
    ``mp:<meta name or property>`` (e.g. ``mp:article:published_time``, ``mp:product:price``),
    ``tc:<twitter:card>``, ``rel:<link rel>`` and ``lt:<link type>`` (e.g. rss feeds).
    Anything malformed is skipped: a page never fails here.
    """
    if not html:
        return []
    scan = native.load("textscan")
    marks = scan.markers(html) if scan is not None else None
    if marks is not None:
        # compiled: every marker's offset in one pass over the text itself
        end = marks[0]
    else:
        # markers are ASCII: search an ASCII-lower-cased UTF-8 copy (bytes.lower is ~4x
        # faster than str.lower on non-ASCII pages); offsets found there always fall on
        # ASCII characters, so the slices between them decode cleanly
        raw = html.encode("utf-8", "surrogatepass")
        low = raw.lower()
        end = low.find(b"</head>")
        if end > 0:
            end = len(raw[:end].decode("utf-8", "surrogatepass"))
    src = html[:end if 0 < end < _MAX_HEAD else _MAX_HEAD]
    toks: list[str] = []
    for m in _META_TAG.finditer(src):
        a = _attrs(m.group(0))
        key = (a.get("property") or a.get("name") or a.get("itemprop") or "").lower().strip()
        if not key or len(key) > 40:
            continue
        toks.append(f"mp:{key}")
        content = a.get("content", "").strip().lower()
        if key == "og:type" and content:
            toks.append(f"og:{content[:30]}")
        elif key == "twitter:card" and content:
            toks.append(f"tc:{content[:30]}")
    for m in _LINK_TAG.finditer(src):
        a = _attrs(m.group(0))
        for r in a.get("rel", "").lower().split():
            toks.append(f"rel:{r[:30]}")
        if a.get("type"):
            toks.append(f"lt:{a['type'].lower()[:40]}")
    if marks is not None:
        _ld_and_itemtypes(html, *marks[1:], toks)
        return toks
    pos = low.find(b"ld+json")
    while pos >= 0 and len(toks) < 2000:
        start = low.find(b">", pos) + 1
        stop = low.find(b"</script", start)
        if start <= 0 or stop < 0:
            break
        body = raw[start:stop].decode("utf-8", "surrogatepass")
        toks += [f"ld:{_type_name(t)}" for t in _ld_json_types(body)]
        pos = low.find(b"ld+json", stop)
    pos = low.find(b"itemtype")
    n_it = 0
    while pos >= 0 and n_it < 200:
        m = _ITEMTYPE_B.match(raw, pos)
        if m:
            toks.append(f"it:{_type_name(m.group(1).decode('utf-8', 'replace'))}")
            n_it += 1
        pos = low.find(b"itemtype", pos + 8)
    return toks


def _ld_json_types(body: str) -> list[str]:
    """The JSON-LD ``@type`` names of one script body (the literal ones of broken JSON)."""
    types: list[str] = []
    try:
        _ld_types(json.loads(body.strip()), types)
    except (ValueError, RecursionError):
        for t in _LD_TYPE.findall(body):  # broken JSON: take the types literally
            types += re.findall(r'"([^"]+)"', t)
    return types


def _ld_and_itemtypes(html: str, lds: list[int], its: list[int], scripts: list[int],
                      toks: list[str]) -> None:
    """The ``ld:`` and ``it:`` tokens of :func:`head_tokens` from the markers' offsets in
    ``html`` (``webseg._native.textscan.markers``): the same steps as its search of the
    lower-cased UTF-8 copy, on the text itself (a slice of the text is what the copy's slice
    decodes to; the ``itemtype`` pattern, ASCII-only, matches the same characters)."""
    k = 0
    pos = lds[0] if lds else -1
    while pos >= 0 and len(toks) < 2000:
        start = html.find(">", pos) + 1
        k = bisect_left(scripts, start)
        stop = scripts[k] if k < len(scripts) else -1
        if start <= 0 or stop < 0:
            break
        toks += [f"ld:{_type_name(t)}" for t in _ld_json_types(html[start:stop])]
        k = bisect_left(lds, stop)
        pos = lds[k] if k < len(lds) else -1
    n_it, k = 0, 0
    while k < len(its) and n_it < 200:
        pos = its[k]
        m = _ITEMTYPE_S.match(html, pos)
        if m:
            v = m.group(1)
            if not v.isascii():  # as the UTF-8 bytes' decoding with "replace" gives it
                v = v.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
            toks.append(f"it:{_type_name(v)}")
            n_it += 1
        k = bisect_left(its, pos + 8, k)


def _mark_groups(node: int, depth: int, parent: Any, sig: list[str],
                 into: set[tuple[int, str]]) -> None:
    """Add the sibling group (parent, signature) of ``node`` and of up to ``depth - 1`` of its
    ancestors to ``into``: an image or link inside any of them marks the group."""
    for _ in range(depth):
        if node < 0:
            break
        if sig[node]:
            into.add((parent[node], sig[node]))
        node = parent[node]


_SKIPPED = ("script", "style", "template", "svg", "head")
_SKIPPED_SET = frozenset(_SKIPPED)


def _dom(page: Page) -> tuple[list[str], Counter[str], dict[str, float]]:
    """Markup tokens, tag/input/stem counts and sibling-repetition statistics.

    The walk over the elements runs compiled when ``webseg._native.markupwalk`` is built (the
    same steps in the same order as :func:`_dom_walk`, the Python fallback and reference),
    about ten times faster; what follows it is the same code either way."""
    walk = native.load("markupwalk")
    if walk is None or type(page.tag) is not list or type(page.attrs) is not list:
        toks, tag_counts, inputs, values, groups, has_img, has_link = _dom_walk(page)
    else:
        toks, tag_counts, inputs, values, groups, has_img, has_link = walk.walk(
            np.flatnonzero(page.is_element), page.tag, page.attrs,
            np.ascontiguousarray(page.parent, dtype=np.int64),
            np.ascontiguousarray(page.subtree_end, dtype=np.int64), _SKIPPED_SET,
            split_words)
    counts: Counter[str] = Counter(inputs)
    for t, c in tag_counts.items():
        counts[f"tag_{t}"] += c
    for stem, c in stem_counts(values).items():
        counts[f"stem_{stem}"] += c
    rep: dict[str, float] = {"rep_groups5": 0.0, "rep_groups10": 0.0, "rep_max": 0.0,
                             "rep_img_groups": 0.0, "rep_link_groups": 0.0, "itemscope": 0.0}
    big = {g: c for g, c in groups.items() if c >= 5 and not g[1].startswith(("option.",
                                                                              "br.", "tr."))}
    rep["rep_groups5"] = float(len(big))
    rep["rep_groups10"] = float(sum(c >= 10 for c in big.values()))
    rep["rep_max"] = float(max(big.values(), default=0))
    rep["rep_img_groups"] = float(sum(g in has_img for g in big))
    rep["rep_link_groups"] = float(sum(g in has_link for g in big))
    return toks, counts, rep


def _dom_walk(page: Page) -> tuple[list[str], dict[str, int], dict[str, int], dict[str, int],
                                   dict[tuple[int, str], int], set[tuple[int, str]],
                                   set[tuple[int, str]]]:
    """The walk of :func:`_dom` in Python: (markup tokens, tag counts, ``input_<type>``
    counts, attribute values' counts, sibling groups' sizes, groups with an image card,
    groups with a link card)."""
    toks: list[str] = []
    inputs: dict[str, int] = {}
    tags, attrs = page.tag, page.attrs
    parent = page.parent.tolist()
    groups: dict[tuple[int, str], int] = {}
    has_img: set[tuple[int, str]] = set()
    has_link: set[tuple[int, str]] = set()
    img_from: set[int] = set()  # parents whose image / link groups are marked
    link_from: set[int] = set()
    sig = [""] * page.n
    memo: dict[str, list[str]] = {}
    values: dict[str, int] = {}  # attribute values, for the stem counts
    tag_counts: dict[str, int] = {}
    skip_until = -1
    end = page.subtree_end
    skipped = _SKIPPED
    # strings built once per distinct tag / (tag, class) of the page, not once per element
    tag_tok: dict[str, str] = {}
    sigs: dict[tuple[str, str], str] = {}
    for i in np.flatnonzero(page.is_element).tolist():
        if i < skip_until:
            continue
        t = tags[i]
        tag_counts[t] = tag_counts.get(t, 0) + 1
        if t in skipped:
            skip_until = int(end[i])  # their insides are not page structure
            continue
        tt = tag_tok.get(t)
        if tt is None:
            tt = tag_tok[t] = f"t:{t}"
        toks.append(tt)
        a = attrs[i]
        cls = ""
        if a:
            cls = a.get("class", "")
            if cls:
                ws = memo.get(cls)
                if ws is None:
                    ws = memo[cls] = split_words(cls)[:12]
                values[cls] = values.get(cls, 0) + 1
                toks += ws
            if len(a) > 1 or not cls:  # half of all elements have a class and nothing else
                for key in ("id", "role", "name"):
                    v = a.get(key)
                    if v:
                        ws = memo.get(v)
                        if ws is None:
                            ws = memo[v] = split_words(v)[:12]
                        values[v] = values.get(v, 0) + 1
                        toks += ws
            if t == "input":
                it = (a.get("type") or "text").lower()
                k = f"input_{it}"
                inputs[k] = inputs.get(k, 0) + 1
                toks.append(f"in:{it[:12]}")
            if "role" in a:
                toks.append(f"role:{a['role'].lower()[:20]}")
        p = parent[i]
        if p >= 0:
            s = sigs.get((t, cls))
            if s is None:
                first = cls.split(None, 1)
                s = sigs[t, cls] = f"{t}.{first[0]}" if first else f"{t}."
            sig[i] = s
            g = (p, s)
            groups[g] = groups.get(g, 0) + 1
            # first image / link inside a sibling marks the group as image or link cards;
            # what is marked depends on the parent alone (its ancestors' signatures are set
            # before it), so a parent's second link or image marks nothing new
            if t == "img" or t == "picture":
                if p not in img_from:
                    img_from.add(p)
                    _mark_groups(p, 4, parent, sig, has_img)
            elif t == "a" and p not in link_from:
                link_from.add(p)
                _mark_groups(p, 3, parent, sig, has_link)
    return toks, tag_counts, inputs, values, groups, has_img, has_link


#: element kinds whose text shares :func:`_text_stats` measures, as bits of one code per tag
_HOLDER_BITS = {"a": 1, "p": 2, "pre": 4, "code": 4, "td": 8, "th": 8, "li": 16, "h1": 32,
                "h2": 32, "h3": 32}
_HOLDER_DEPTH = 6  # ancestors looked at: the text's own element and a few wrappers
#: every price match holds one of these (a cheap test before the regular expression)
_CURRENCY_MARKS = ("$", "€", "£", "¥", "₹", "₽", "₩", "₺", "₴", "USD", "EUR", "GBP", "CHF",
                   "JPY", "CAD", "AUD", "PLN", "SEK", "NOK", "DKK", "CZK", "INR", "BRL", "RUB",
                   "zł", "kr", "Kč", "Ft", "lei", "руб", "грн")


#: how far from a currency mark a :data:`_PRICE` match reaches, or its engine looks (a mark
#: of at most 3 characters, a space, 14 digits and separators, one character of look-ahead)
_PRICE_REACH = 24


def _price_count(text: str) -> int:
    """Number of :data:`_PRICE` matches (:func:`_prices`)."""
    return len(_prices(text))


def _prices(text: str) -> list[str]:
    """The :data:`_PRICE` matches of ``text``, found only near the currency marks.

    Every match holds a currency mark and lies within :data:`_PRICE_REACH` characters of it,
    so the matches of the whole text are those of the windows around the marks (merged where
    they overlap), searched with ``findall(text, start, end)``, which sees the characters
    before ``start`` for ``\b``: a third of the time of a search of a whole 20,000-character
    text, and none when no mark occurs."""
    scan = native.load("textscan")
    if scan is not None:  # compiled: one pass over the text for all marks, the same offsets
        spans = scan.marks(text, _CURRENCY_MARKS)
    else:
        spans = []
        for m in _CURRENCY_MARKS:
            at = text.find(m)
            while at >= 0:
                spans.append(at)
                at = text.find(m, at + 1)
        spans.sort()
    if not spans:
        return []
    out: list[str] = []
    lo, hi = spans[0] - _PRICE_REACH, spans[0] + _PRICE_REACH
    for at in spans[1:]:
        if at - _PRICE_REACH > hi:
            out += _PRICE.findall(text, max(0, lo), hi)
            lo = at - _PRICE_REACH
        hi = at + _PRICE_REACH
    return out + _PRICE.findall(text, max(0, lo), hi)


#: how far a :data:`_CLOCK` match and its look-arounds reach from its colon: two digits and
#: a character before it, two digits and a character after it
_CLOCK_BEFORE, _CLOCK_AFTER = 2, 4


def _clock_count(text: str) -> int:
    """Number of :data:`_CLOCK` matches of ``text``, searched only near its colons.

    Why: every match holds one colon and lies within two characters before it and three
    after it, so the matches of the whole text are those of the windows around the colons
    (merged where they overlap; ``findall(text, start, end)`` sees the characters before
    ``start`` for the look-behind, and each window ends after the look-ahead's character),
    as :func:`_prices` does for currency marks: the regular expression tried at every digit
    of a 20,000-character text cost a tenth of a millisecond a page."""
    if ":" not in text:
        return 0
    scan = native.load("textscan")
    if scan is not None:
        colons = scan.marks(text, (":",))
    else:
        colons, at = [], text.find(":")
        while at >= 0:
            colons.append(at)
            at = text.find(":", at + 1)
    n = 0
    lo, hi = colons[0] - _CLOCK_BEFORE, colons[0] + _CLOCK_AFTER
    for at in colons[1:]:
        if at - _CLOCK_BEFORE > hi:
            n += len(_CLOCK.findall(text, max(0, lo), hi))
            lo = at - _CLOCK_BEFORE
        hi = at + _CLOCK_AFTER
    return n + len(_CLOCK.findall(text, max(0, lo), hi))


def _holder_bits(page: Page, leaves: np.ndarray) -> np.ndarray:
    """Per text leaf, the :data:`_HOLDER_BITS` of its nearest :data:`_HOLDER_DEPTH`
    ancestors OR-ed together (compiled when ``webseg._native.markupwalk`` is built: a walk
    up from each leaf with each ancestor's code looked up once; the same bits)."""
    parent = np.ascontiguousarray(page.parent, dtype=np.int64)
    walk = native.load("markupwalk")
    if walk is not None and type(page.tag) is list:
        bits = np.empty(len(leaves), dtype=np.int64)
        walk.holder_bits(np.ascontiguousarray(leaves, dtype=np.int64), parent, page.tag,
                         _HOLDER_BITS, _HOLDER_DEPTH, bits)
        return bits
    code = np.fromiter(map(_HOLDER_BITS.get, page.tag, repeat(0)), dtype=np.int64,
                       count=len(page.tag))
    bits = np.zeros(len(leaves), dtype=np.int64)
    anc = parent[leaves] if len(leaves) else np.zeros(0, np.int64)
    for _ in range(_HOLDER_DEPTH):
        ok = anc >= 0
        if not ok.any():
            break
        a = np.where(ok, anc, 0)
        bits |= np.where(ok, code[a], 0)
        anc = np.where(ok, parent[a], -1)
    return bits


def _text_stats(page: Page) -> tuple[str, str, dict[str, float]]:
    """Visible text, title + headings, and text-based structure statistics.

    Which kinds of element hold a text leaf (a link, a paragraph, code, a table cell, a list
    item, a heading) is read from its nearest :data:`_HOLDER_DEPTH` ancestors, for all leaves
    at once with numpy (one step per ancestor level, not a Python walk per leaf)."""
    leaves = page.text_leaves
    texts = page.leaf_texts
    lens = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    bits = _holder_bits(page, leaves)
    # the text keeps whole leaves while fewer than MAX_TEXT characters precede them
    before = np.cumsum(lens + 1) - (lens + 1)
    parts = [t for t, b in zip(texts, (before < MAX_TEXT).tolist(), strict=True) if b]
    heads = [page.title or ""] + [texts[k] for k in np.flatnonzero(bits & 32)[:59].tolist()]

    def chars(bit: int) -> int:
        return int(lens[(bits & bit) > 0].sum())

    n_chars = int(lens.sum())
    link_chars = chars(1)
    text = " ".join(parts)[:MAX_TEXT]
    words = max(1, count_words(text))
    prices = _price_count(text)
    c = max(1, n_chars)
    st = {"text_leaves": float(len(leaves)), "chars": float(n_chars), "words": float(words),
          "link_words": float(link_chars), "link_ratio": link_chars / c,
          "max_leaf_chars": float(lens.max()) if len(lens) else 0.0,
          "mean_leaf_chars": n_chars / max(1, len(leaves)),
          "long_leaves": float(np.count_nonzero(lens >= 200)),
          "p_chars_share": chars(2) / c, "pre_code_share": chars(4) / c,
          "table_cell_share": chars(8) / c, "list_item_share": chars(16) / c,
          "price_count": float(prices), "price_per_kword": 1000.0 * prices / words,
          "date_count": float(len(_DATE.findall(text))),
          "clock_count": float(_clock_count(text)),
          "title_words": float(count_words(page.title or ""))}
    return text, " ".join(heads), st


def page_views(page: Page, html: str | None = None, url: str | None = None) -> dict[str, Any]:
    """All views of a page (see the module docstring); ``html``: its source, for ``head``;
    ``url``: overrides ``page.url``."""
    url = url or page.url
    text, title, st = _text_stats(page)
    dom, counts, rep = _dom(page)
    url_toks, url_st = _url_tokens(url)
    head = head_tokens(html)
    depth = page.depth[page.is_element] if page.n else np.zeros(1)
    words = max(1.0, st["words"])
    struct: dict[str, float] = {name: 0.0 for name in STRUCT_NAMES}
    struct.update(st)
    struct.update(rep)
    struct.update(url_st)
    for k, v in counts.items():
        if k in struct:
            struct[k] = float(v)
    struct.update(
        nodes=float(page.n), elements=float(page.is_element.sum()),
        heading_count=float(sum(counts.get(f"tag_{h}", 0) for h in _HEADINGS)),
        h1_count=float(counts.get("tag_h1", 0)),
        img_per_kword=1000.0 * counts.get("tag_img", 0) / words,
        rep_share=struct["rep_max"] / max(1.0, float(page.is_element.sum())),
        forms_with_password=float(counts.get("input_password", 0) > 0),
        forms_with_search=float(counts.get("input_search", 0) > 0),
        depth_max=float(depth.max()) if len(depth) else 0.0,
        depth_mean=float(depth.mean()) if len(depth) else 0.0,
        ld_count=float(sum(t.startswith("ld:") for t in head)),
        og_present=float(any(t.startswith("og:") for t in head)),
        itemscope=float(sum(t.startswith("it:") for t in head)))
    # counts are heavy-tailed: log1p keeps trees and linear models on one scale
    struct = {k: (math.log1p(v) if not k.endswith(("_ratio", "_share")) else v)
              for k, v in struct.items()}
    return {"text": text, "title": title, "url": " ".join(url_toks),
            "dom": " ".join(dom), "head": " ".join(head), "struct": struct}

