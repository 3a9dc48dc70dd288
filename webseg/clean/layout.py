"""How a browser lays kept text leaves out: what separates two consecutive leaves.

``innerText`` joins text by the elements between it: a block box (``p``, ``div``, ``li``, a
flex item, ``<br>``) starts a new line, table cells are separated by a tab and rows by a line
break, an ``inline-block`` box by a space, and inline elements by nothing at all - only the
source's own whitespace separates ``W<b>orld</b>`` (no space) from ``W <b>orld</b>``. The
writers (:mod:`webseg.clean.txt`, :mod:`webseg.clean.markdown`) use the same rules here:

* an element's display is its computed ``display`` on a rendered page and the HTML default
  display of its tag on a parsed one (:data:`DEFAULT_BLOCK`, :data:`DEFAULT_SPACED`);
* the whitespace of the source is the leaves' own leading/trailing whitespace and the
  whitespace-only text nodes recorded in :attr:`webseg.page.Page.ws_before`; on pages without
  that record (schema version 1) a space goes between inline leaves, as before;
* a dropped leaf between two kept ones counts as a space (its words are missing, the
  neighbours must not be glued into one word);
* where the source has no whitespace, a rendered page still separates two leaves that the
  eye sees apart (a gap of more than a quarter of the font size between their boxes on one
  line: CSS margins, padding, flex gaps), and two links side by side when word characters
  meet (a saved page renders offline, without the style sheets that set its buttons apart;
  no word is split between two links); a parsed page, which knows no CSS, separates two
  elements side by side (``<span>2026</span><span>1h 54m</span>``) when word characters meet,
  unless only formatting elements stand between them (``<b>Har</b><b>bour</b>``) or both
  characters belong to a script written without spaces (``<b>北京</b><em>大学</em>``), and
  glues text to an element (``W<b>orld</b>``, ``$<span>5.00</span>``).

All of it is computed with prefix maxima over the pre-order intervals of the Page
(``np.maximum.reduceat``), never a Python loop over nodes.

A page's :func:`strength`, :func:`pre_roots` and :func:`joints` (per set of kept leaves) are
computed once per Page object and remembered on it (as its ``cached_property`` values are: a
Page is not changed after it is built): the text and Markdown writers, the table-cell columns
and the search index's segment texts all ask for them, up to four times a page. Callers get
copies, so changing a result never changes the remembered one.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

import numpy as np

from webseg.lang import has_unspaced_letter
from webseg.page import PRE_STYLE_ATTR, Page

__all__ = ["BLOCK", "CELL", "INLINE", "NONE", "ROW", "SPACE", "cell_columns", "clean_chars",
           "is_data_table", "is_layout_table",
           "joints", "pre_roots", "ruby_annotations", "strength"]

#: Separator strengths, ordered: the strongest element between two leaves wins.
NONE, INLINE, SPACE, CELL, ROW, BLOCK = 0, 1, 2, 3, 4, 5

#: Tags whose HTML default display starts a line (the user agent style sheet of the HTML
#: standard, section 15.3), for pages parsed without a browser.
DEFAULT_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
    "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
    "footer", "form", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
    "hr", "html", "legend", "li", "listing", "main", "menu", "nav", "ol", "optgroup",
    "option", "p", "plaintext", "pre", "search", "section", "summary", "table", "tbody",
    "tfoot", "thead", "ul", "xmp", "textarea",
})
#: Tags whose default display is inline-level but atomic (``inline-block`` and replaced
#: elements): separated from their neighbours by a space.
DEFAULT_SPACED = frozenset({"button", "select", "input", "img", "video", "audio", "iframe",
                            "object", "embed", "canvas", "meter", "progress", "svg", "math"})
_INLINE_DISPLAYS = frozenset({"inline", "contents", "none", "#text", "ruby", "ruby-base",
                              "ruby-text", "ruby-base-container", "ruby-text-container"})
_SPACED_DISPLAYS = frozenset({"inline-block", "inline-flex", "inline-grid", "inline-table",
                              "inline flow-root", "inline flex", "inline grid"})
_FLEX_GRID = frozenset({"flex", "grid", "inline-flex", "inline-grid"})
#: Elements whose text keeps its whitespace as written (a code block).
PRE_TAGS = frozenset({"pre", "textarea", "listing", "xmp", "plaintext"})
_PRE_OR_CODE = PRE_TAGS | {"code"}
#: Characters that are not text: soft hyphens, zero-width spaces, stray byte-order marks.
#: Nothing else (ZWJ/ZWNJ spell Persian, Indic scripts and emoji).
_INVISIBLE = str.maketrans("", "", "\u00ad\u200b\ufeff")


def clean_chars(text: str) -> str:
    """``text`` without soft hyphens (U+00AD), zero-width spaces (U+200B) and BOMs (U+FEFF).

    Looked for before ``str.translate`` runs: it builds a new string at a few nanoseconds per
    character, and almost no text holds one of the three (``in`` finds out far faster)."""
    if "\u00ad" in text or "\u200b" in text or "\ufeff" in text:
        return text.translate(_INVISIBLE)
    return text


def _display_strength(d: str) -> int:
    if d in _INLINE_DISPLAYS:
        return INLINE
    if d in _SPACED_DISPLAYS:
        return SPACE
    if d == "table-cell":
        return CELL
    if d == "table-row":
        return ROW
    return BLOCK


def _tag_strength(t: str) -> int:
    if t in ("td", "th"):
        return CELL
    if t == "tr":
        return ROW
    if t in DEFAULT_BLOCK:
        return BLOCK
    if t in DEFAULT_SPACED:
        return SPACE
    return INLINE


#: Joints remembered per page (distinct sets of kept leaves: the writers' and the index's).
_JOINTS_KEPT = 4


def _memo(page: Page, key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` remembered on ``page`` under ``key`` (in the page's ``__dict__``, as a
    ``cached_property`` keeps its value: it goes when the page goes)."""
    memo = page.__dict__.setdefault("_layout_memo", {})
    got = memo.get(key)
    if got is None:
        got = memo[key] = compute()
    return got


def strength(page: Page) -> np.ndarray:
    """Separator strength of every node (int8): what its start and end put between the text
    before and after it. ``<br>`` always breaks the line; text nodes are inline."""
    return _memo(page, "strength", lambda: _strength(page)).copy()


def _strength(page: Page) -> np.ndarray:
    tags = page.tag
    if page.has_layout and len(page.displays):
        by_code = np.array([_display_strength(d) for d in page.displays], dtype=np.int8)
        s = by_code[page.display]
        s[[i for i, t in enumerate(tags) if t == "br"]] = BLOCK
        s[page.is_text] = INLINE
        return s
    # one look-up per node in a table of the page's distinct tags (a few dozen)
    by_tag = {t: _tag_strength(t) if t != "#text" else INLINE for t in set(tags)}
    out = np.fromiter(map(by_tag.__getitem__, tags), dtype=np.int8, count=page.n)
    # an inline style's display (``<span style="display:block">``), the only CSS a parsed
    # page knows (``webseg.parse`` records it)
    for i, a in enumerate(page.attrs):
        if a and "display" in a and tags[i] != "br":
            out[i] = _display_strength(a["display"])
            if a["display"].strip() in _FLEX_GRID:  # its items are blockified (CSS Flexbox
                kids = np.flatnonzero(page.parent == i)  # 4, CSS Grid 6.1)
                out[kids[~page.is_text[kids]]] = BLOCK
    return out


#: Ruby annotations: the reading of a word set above it (Japanese furigana, Chinese pinyin)
#: and the parentheses shown around it where ruby is not supported.
RUBY_ANNOTATIONS = frozenset({"rt", "rp"})


def ruby_annotations(page: Page) -> np.ndarray:
    """Per node, whether it lies in a ruby annotation (:data:`RUBY_ANNOTATIONS`). A reader
    reads ``<ruby>東<rt>とう</rt>京<rt>きょう</rt></ruby>で`` as the word 東京 with its reading
    above it; written on one line, the reading would cut the word into pieces
    (``東とう京きょうで``) and break every phrase search, so the writers leave it out and
    join the base text around it as one word."""
    return _memo(page, "ruby", lambda: _ruby(page)).copy()


def _ruby(page: Page) -> np.ndarray:
    out = np.zeros(page.n, dtype=bool)
    if "rt" not in page.tag and "rp" not in page.tag:  # no ruby (most pages): two C scans
        return out
    end = page.subtree_end
    for i, t in enumerate(page.tag):
        if t in RUBY_ANNOTATIONS:
            out[i:int(end[i])] = True
    return out


def pre_roots(page: Page) -> np.ndarray:
    """Per node, the id of the code block it lies in (-1: none): the outermost ``pre``-like
    element (:data:`PRE_TAGS`, or an element whose style keeps whitespace, marked with
    :data:`~webseg.page.PRE_STYLE_ATTR`: a timetable or a poem laid out with spaces), or a
    ``code`` element outside them whose text spans several lines, by line breaks or ``<br>``
    (highlighted code without ``pre``)."""
    return _memo(page, "pre_roots", lambda: _pre_roots(page)).copy()


def _pre_roots(page: Page) -> np.ndarray:
    root = np.full(page.n, -1, dtype=np.int64)
    tags = page.tag
    end = page.subtree_end
    ws = page.ws_before or {}
    attrs = page.attrs
    cands = [i for i, t in enumerate(tags) if t in _PRE_OR_CODE]
    styled = [i for i, a in enumerate(attrs) if a and PRE_STYLE_ATTR in a]
    if styled:
        cands = sorted({*cands, *styled})
    text = page.text
    for i in cands:
        if root[i] >= 0:
            continue
        if tags[i] == "code":
            hi = int(end[i])
            if not any("\n" in text[j].strip() or "\n" in ws.get(j, "") or tags[j] == "br"
                       for j in range(i + 1, hi)):
                continue
        root[i:int(end[i])] = i
    return root


def pre_line(page: Page, root: int) -> bool:
    """Whether the code block ``root`` (of :func:`pre_roots`) keeps only its line breaks
    (``white-space: pre-line``: a poem, an address), not its spaces."""
    a = page.attrs[root] if root >= 0 else None
    return bool(a) and a.get(PRE_STYLE_ATTR) == "pre-line"


def collapse_lines(text: str) -> str:
    """``pre-line`` text as shown: spaces collapsed and trimmed within each line, blank lines
    at the ends dropped."""
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip("\n")


def joints(page: Page, kept: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
    """What separates each kept leaf from the previous one (``kept``: sorted node ids of the
    kept text leaves). Returns ``(sep, ws, cells)``: ``sep[k]`` the strength of the joint before
    ``kept[k]`` (``NONE``: glued, ``INLINE``: whitespace, ``SPACE``, ``CELL``, ``ROW``,
    ``BLOCK``; ``sep[0]`` is ``BLOCK``), and ``ws[k]`` the source's whitespace-only text
    between the two leaves when both are in one code block (verbatim), and ``cells[k]`` the
    number of table cells that start between them (a tab each in text)."""
    kept = np.asarray(kept, dtype=np.int64)
    key = ("joints", kept.tobytes())
    memo = page.__dict__.get("_layout_memo", {})
    if key not in memo and sum(isinstance(k, tuple) for k in memo) >= _JOINTS_KEPT:
        for k in [k for k in memo if isinstance(k, tuple)]:
            del memo[k]  # a caller trying many leaf sets: keep the memory bounded
    sep, ws_text, cells = _memo(page, key, lambda: _joints(page, kept))
    return sep.copy(), list(ws_text), cells.copy()


def _joints(page: Page, kept: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
    m = len(kept)
    sep = np.full(m, BLOCK, dtype=np.int8)
    ws_text = [""] * m
    cells = np.zeros(m, dtype=np.int64)
    if m < 2:
        return sep, ws_text, cells
    n = page.n
    st = _memo(page, "strength", lambda: _strength(page))
    close, has_ws, csum, is_el, el_closed, ccum = _memo(page, "joint_arrays",
                                                        lambda: _joint_arrays(page))
    # elements opened in (a, b] and elements closed in [a, b) (an element closes at its last
    # descendant): the strongest of them separates a from b
    lo_open, hi_open = kept[:-1] + 1, kept[1:] + 1
    opened = _range_max(st, lo_open, hi_open)
    closed = _range_max(close[:n], kept[:-1], kept[1:])
    strong = np.maximum(opened, closed)
    # whitespace: recorded whitespace-only text in (a, b], the leaves' own edges, a dropped
    # visible leaf in between
    ws = page.ws_before
    pre = _memo(page, "pre_roots", lambda: _pre_roots(page))[kept]
    between_ws = _range_max(has_ws, lo_open, hi_open) > 0
    text = page.text
    ids = kept.tolist()
    # text[j][-1:].isspace() and text[j][:1].isspace(), mapped without a Python step a leaf
    end_ws = np.fromiter(map(str.isspace, map(_LAST, map(text.__getitem__, ids[:-1]))),
                         dtype=bool, count=m - 1)
    start_ws = np.fromiter(map(str.isspace, map(_FIRST, map(text.__getitem__, ids[1:]))),
                           dtype=bool, count=m - 1)
    dropped = (csum[kept[1:]] - csum[kept[:-1] + 1]) > 0
    spaced = between_ws | end_ws | start_ws | dropped
    # two elements side by side (one closes after a, one opens before b); elements with
    # content only: an empty one (``<wbr>``, an ``<a id>`` anchor) is neither of two words'
    # boxes (``Donau<wbr>dampf`` is one word)
    sib = (_range_max(is_el, lo_open, hi_open) > 0) & (
        _range_max(el_closed, kept[:-1], kept[1:]) > 0)
    if page.has_layout:  # what the eye sees: a gap between the two text boxes on one line
        gap = _gap(page, kept)
        for k in np.flatnonzero(gap & ~spaced).tolist():  # no word gap in unspaced scripts
            gap[k] = not (has_unspaced_letter(text[ids[k]].rstrip()[-1:])  # (ruby, justified
                          and has_unspaced_letter(text[ids[k + 1]][:1]))  # CJK lines)
        spaced |= gap
        # two links side by side are two words even without a gap: a saved page renders
        # offline, without the site's style sheets that set its buttons and tags apart
        # (``<a class=button>Apply</a><a class=button>Download</a>``), and one word is
        # never split between two links
        for k in np.flatnonzero(sib & ~spaced).tolist():
            spaced[k] = (_word_joint(text[ids[k]], text[ids[k + 1]])
                         and _link_between(page, ids[k], ids[k + 1]))
    else:  # no CSS known: two elements side by side, word characters on both sides
        for k in np.flatnonzero(sib & ~spaced).tolist():
            spaced[k] = (_word_joint(text[ids[k]], text[ids[k + 1]])
                         and not _formatting_only(page, ids[k], ids[k + 1]))
    if ws is None:  # no whitespace record (version 1 pages): separated, unless punctuation
        spaced |= ~np.fromiter(  # glues them (``word<b>,</b>``), as before
            (_glued(text[a], text[b]) for a, b in zip(ids[:-1], ids[1:], strict=True)),
            dtype=bool, count=m - 1)
    inline = np.where(spaced, INLINE, NONE).astype(np.int8)
    sep[1:] = np.where(strong > INLINE, strong, inline)
    if ws:  # the exact whitespace matters only inside one code block
        same_pre = (pre[1:] >= 0) & (pre[1:] == pre[:-1])
        for k in np.flatnonzero(between_ws & same_pre).tolist():
            a, b = ids[k], ids[k + 1]
            ws_text[k + 1] = "".join(ws.get(j, "") for j in range(a + 1, b + 1))
    cells[1:] = ccum[kept[1:] + 1] - ccum[kept[:-1] + 1]
    return sep, ws_text, cells


_LAST, _FIRST = itemgetter(slice(-1, None)), itemgetter(slice(None, 1))


def _joint_arrays(page: Page) -> tuple[np.ndarray, ...]:
    """The per-node arrays :func:`_joints` reads that do not depend on the kept leaves,
    made once per page (the text writers and the search index's segment texts each ask for
    joints of their own leaves): ``close`` (the strongest separator of the elements that
    close at each node), ``has_ws`` (recorded whitespace-only text before it), ``csum``
    (text leaves before each node, a ruby reading not counted), ``is_el`` / ``el_closed``
    (an element with content opens / closes there) and ``ccum`` (table cells before each
    node). Read only: the memo shares them."""
    n = page.n
    st = _memo(page, "strength", lambda: _strength(page))
    close = np.zeros(n, dtype=np.int8)
    el = np.flatnonzero(page.is_element)
    np.maximum.at(close, page.subtree_end[el] - 1, st[el])
    ws = page.ws_before
    has_ws = np.zeros(n, dtype=np.int8)
    if ws:
        has_ws[np.fromiter(ws.keys(), dtype=np.int64, count=len(ws))] = 1
    leaf = np.zeros(n + 1, dtype=np.int64)
    leaf[page.text_leaves + 1] = 1
    ruby = _memo(page, "ruby", lambda: _ruby(page))
    if ruby.any():  # a ruby reading left out is no missing word: 東<rt>とう</rt>京 is one
        leaf[1:][ruby] = 0
    csum = np.cumsum(leaf)
    full = el[page.subtree_end[el] > el + 1]  # elements with content (see _joints)
    is_el = np.zeros(n, dtype=np.int8)
    is_el[full] = 1
    el_closed = np.zeros(n, dtype=np.int8)
    el_closed[page.subtree_end[full] - 1] = 1
    is_cell = np.zeros(n + 1, dtype=np.int64)
    is_cell[1:] = st == CELL
    return close, has_ws, csum, is_el, el_closed, np.cumsum(is_cell)


#: Phrasing elements that only change how text looks (weight, slant, size, a mark): a
#: browser lays ``<b>Har</b><b>bour</b>`` out as one word, where two ``span``/``a`` boxes side
#: by side (``<span>2026</span><span>1h 54m</span>``) are usually set apart by CSS.
_FORMATTING = frozenset({"b", "strong", "i", "em", "u", "s", "strike", "del", "ins", "mark",
                         "small", "big", "sub", "sup", "font", "tt", "var", "dfn", "cite",
                         "kbd", "samp", "abbr", "bdi", "bdo", "q"})


def _formatting_only(page: Page, a: int, b: int) -> bool:
    """Every element between text leaves ``a`` and ``b`` (the ones ``a`` closes and the ones
    ``b`` opens, up to their common ancestor) is a formatting element (:data:`_FORMATTING`)."""
    par, end, tags = page.parent, page.subtree_end, page.tag
    p = int(par[a])
    while p >= 0 and end[p] <= b:  # the elements closed after ``a``
        if tags[p] not in _FORMATTING:
            return False
        p = int(par[p])
    q = int(par[b])
    while q >= 0 and q > p:  # the elements opened before ``b``, below the common ancestor
        if tags[q] not in _FORMATTING:
            return False
        q = int(par[q])
    return True


def _link_between(page: Page, a: int, b: int) -> bool:
    """Some element between text leaves ``a`` and ``b`` (closed after ``a`` or opened before
    ``b``, below their common ancestor) is a link (``<a>``)."""
    par, end, tags = page.parent, page.subtree_end, page.tag
    p = int(par[a])
    while p >= 0 and end[p] <= b:
        if tags[p] == "a":
            return True
        p = int(par[p])
    q = int(par[b])
    while q >= 0 and q > p:
        if tags[q] == "a":
            return True
        q = int(par[q])
    return False


def _word_joint(a: str, b: str) -> bool:
    """Word characters meet where ``a`` ends and ``b`` starts, and not two letters of a
    script written without spaces (``北京`` + ``大学`` stay one run)."""
    a_ch, b_ch = a.rstrip()[-1:], b[:1]
    return (_wordy(a_ch) and _wordy(b_ch)
            and not (has_unspaced_letter(a_ch) and has_unspaced_letter(b_ch)))


def _wordy(ch: str) -> bool:
    return bool(ch) and (ch.isalnum() or ch == "_")


def _gap(page: Page, kept: np.ndarray) -> np.ndarray:
    """Per pair of consecutive kept leaves: both are on one line (their boxes overlap
    vertically, each at most about one line high) and a visible gap of more than a quarter of
    the font size separates them (either direction: right-to-left text too). Inline boxes
    separated by CSS margins or padding, or by flex/grid gaps, read as two words."""
    box = page.box[kept].astype(np.float64)
    fs = np.maximum(page.font_size[kept].astype(np.float64), 1.0)
    x, y, w, h = box[:, 0], box[:, 1], box[:, 2], box[:, 3]
    a, b = slice(0, -1), slice(1, None)
    one_line = (h[a] > 0) & (h[b] > 0) & (h[a] < 2 * fs[a]) & (h[b] < 2 * fs[b])
    overlap = np.minimum(y[a] + h[a], y[b] + h[b]) - np.maximum(y[a], y[b])
    same_line = one_line & (overlap > 0.5 * np.minimum(h[a], h[b]))
    gap = np.maximum(x[b] - (x[a] + w[a]), x[a] - (x[b] + w[b]))
    return same_line & (gap > 0.25 * fs[a])


_NO_SPACE_BEFORE = frozenset(".,;:!?)]}\u00bb\u201d\u2019%")
_NO_SPACE_AFTER = frozenset("([{\u00ab\u201c\u2018")


def _glued(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    return bool(a and b) and (b[0] in _NO_SPACE_BEFORE or a[-1] in _NO_SPACE_AFTER)


#: Blocks that make a table cell a page column rather than a value: a table holding them in
#: its kept cells is a layout table (its cells are read as blocks, not columns).
CELL_BLOCKS = frozenset({"ul", "ol", "table", "pre", "blockquote", "h1", "h2", "h3", "h4",
                         "h5", "h6", "dl"})


def is_data_table(page: Page, table: int, has_kept: np.ndarray) -> bool:
    """Whether ``table`` is a table of data: its kept cells (``has_kept``: per node, whether
    it holds kept text) hold no block structure (:data:`CELL_BLOCKS`: lists, headings, code,
    quotes...); a table in a cell counts as lines of the cell when its own cells hold none,
    a table nested twice makes a layout table."""
    j, end = table + 1, int(page.subtree_end[table])
    while j < end:
        if page.tag[j] in CELL_BLOCKS and has_kept[j]:
            if page.tag[j] != "table" or not is_data_table(page, j, has_kept):
                return False
            if any(page.tag[x] == "table" for x in range(j + 1, int(page.subtree_end[j]))):
                return False  # tables nested twice: layout
            j = int(page.subtree_end[j])
            continue
        j += 1
    return True


#: A table cell longer than this holds paragraphs: a page column (as in
#: :data:`webseg.blocks.units.MAX_CELL_CHARS`).
MAX_CELL_CHARS = 400
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def is_layout_table(page: Page, table: int) -> bool:
    """Whether ``table`` lays out a page's columns rather than values: it holds a heading or a
    cell of more than :data:`MAX_CELL_CHARS` characters (an article in a cell). A list or a
    short paragraph in a cell is still a value of its row (``Kiosk | Bread, Milk``)."""
    end = int(page.subtree_end[table])
    tags = page.tag
    if any(tags[x] in _HEADING_TAGS for x in range(table + 1, end)):
        return True
    lengths = page.text_length
    return any(tags[x] in ("td", "th") and lengths[x] > MAX_CELL_CHARS
               for x in range(table + 1, end))


def cell_columns(page: Page, kept: np.ndarray, blocks: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per kept leaf: the index of its table cell among the cells of its row, the number
    of cells in that row (``-1, 0`` outside a table cell) and the cell's node (-1), so text
    can put one tab between cells and keep empty cells at the start and the end of a row.
    A paragraph or ``div`` inside a cell (``<td><p>``) is still in that cell. With
    ``blocks``, the cells of layout tables (:func:`is_layout_table`: a page's columns) are
    no cells: their text is read as blocks."""
    st = _memo(page, "strength", lambda: _strength(page))
    col = np.full(len(kept), -1, dtype=np.int64)
    ncell = np.zeros(len(kept), dtype=np.int64)
    cell = np.full(len(kept), -1, dtype=np.int64)
    memo: dict[int, tuple[int, int]] = {}
    data: dict[int, bool] = {}  # table -> is a data table
    kept_ids = np.asarray(kept).tolist()
    if not kept_ids or not (st == CELL).any():  # no table cell: nothing is in one
        return col, ncell, cell
    # plain lists: the climbs below read a few entries per leaf, where numpy's scalar
    # indexing costs several times a list's
    par = page.parent.tolist()
    stl = st.tolist()
    tags = page.tag
    for k, j in enumerate(kept_ids):
        c = par[j]
        for _ in range(12):  # the nearest cell ancestor, before any row
            if c < 0 or stl[c] == CELL or stl[c] == ROW:
                break
            c = par[c]
        if c < 0 or stl[c] != CELL:
            continue
        if blocks:
            t = par[c]
            for _ in range(4):  # tr, tbody/thead/tfoot, table
                if t < 0 or tags[t] == "table":
                    break
                t = par[t]
            if t >= 0 and tags[t] == "table":
                if t not in data:
                    data[t] = not is_layout_table(page, t)
                if not data[t]:
                    continue
        cell[k] = c
        if c not in memo:
            row = par[c]
            cells = [x for x in page.children(row).tolist() if stl[x] == CELL] if row >= 0 \
                else [c]
            for i, x in enumerate(cells):
                memo[x] = (i, len(cells))
        col[k], ncell[k] = memo.get(c, (0, 1))
    return col, ncell, cell


def _range_max(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``max(x[lo[k]:hi[k]])`` per k (0 for empty ranges), for sorted, non-overlapping
    ranges: one ``reduceat`` over the interleaved bounds."""
    if not len(lo):
        return np.zeros(0, dtype=x.dtype)
    xx = np.concatenate([x, np.zeros(1, dtype=x.dtype)])
    bounds = np.empty(2 * len(lo), dtype=np.int64)
    bounds[0::2] = lo
    bounds[1::2] = hi
    bounds = np.minimum(bounds, len(x))
    r = np.maximum.reduceat(xx, bounds)[0::2]
    return np.where(hi > lo, r, 0).astype(x.dtype)
