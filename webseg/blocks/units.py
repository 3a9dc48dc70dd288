"""Structure units of the decoder: tables, rows, lists, code, figures and quotes kept whole.

The block model decides leaf by leaf, so a short leaf inside kept content can be dropped while
its neighbours are kept: a table keeps ``City`` and ``320,000`` and loses the rest, a nested
list keeps ``Fruit`` and drops ``Apple``, ``Visit <a>John</a> today.`` loses ``John``. A reader
never sees such holes in a page. So after any decoder (:data:`webseg.blocks.model.DECODERS`)
the leaf decision is made consistent over the DOM tree, with the model's leaf scores left as
they are (only the keep mask changes):

* **Units** are elements whose text a reader takes as one thing: data tables and their rows,
  lists (``ul``/``ol``/``menu``) and list items, definition lists, ``pre``, ``figure``,
  ``blockquote``, ``details``, and paragraphs (``p``); a ``figure`` may hold a table, the
  others data tables (a list item with its figures). A
  table of short cells holding a small table in a cell is no data table, but its other
  rows are units. A container that holds page structure (a nested
  table in a list, ``article``/``section``/``nav``/``aside``/``header``/``footer``/``main``/
  ``form``, ``h1``/``h2``) or more than :data:`MAX_UNIT_CHARS` characters is layout, not a
  unit; a ``footer``/``header`` inside a quote or a figure is its attribution
  (``<blockquote>...<footer>— Name</footer>``), not layout. A data table: at least two
  rows, no nested table and no layout element, no cell longer than :data:`MAX_CELL_CHARS`
  characters.
* Units are decided outermost first; a decided unit decides everything inside it. A unit the
  decoder kept entirely stays kept.
* A **mixed** unit (some of its leaves kept, some not) is **kept whole** when its kept leaves
  hold at least half of its characters (the character-weighted share of the leaves the
  decoder kept, i.e. the leaves' scores against the page's decision), or when it lies inside
  kept content - the nearest leaves before and after it (outside it) are both kept - and the
  character-weighted mean of its leaves' scores reaches half the page's decision threshold.
  Otherwise a unit with units inside (a list's items, a data table's rows, a quote's
  paragraphs) leaves the decision to them (so a table is decided by rows at most), and an
  innermost unit is **dropped whole**. A unit that is mostly link text (a menu, a table of
  contents, "related" links) gets no help from the context: only its share decides, unless
  what the decoder kept of it is plain text (a list of documents with one plain item).
* A table, list, code block, figure or quote the decoder dropped entirely, whose leaf
  before it is kept and that **ends the kept content of its container** (the nearest
  ancestor holding other leaves, not ``body``: no kept leaf after the unit in it, most of its
  text before the unit kept, at least :data:`MAX_HOLE_CHARS` characters: an article, not a
  title's cell) is a hole too: a table or a list after an article's last
  paragraph has no kept text after it to close the gap. Never a paragraph (a last line the
  model dropped is usually a promotion or a source note); its own scores must reach half
  the threshold, except for a table, list or code block without links (tiny cells hide
  them from the leaf features, and teasers after an article have links). Of the units the
  decoder kept in part, a paragraph whose kept part is plain text (``Visit <a>John</a>
  today.``; not a promotion line whose link the model kept), a data table, and a list
  without links are completed there; not a list with links (a teaser list after the
  article, some of whose items the model kept).
* A unit the decoder **dropped entirely** is kept whole only on the same condition, and only
  when it is short (at most :data:`MAX_HOLE_CHARS` characters): a hole between kept
  paragraphs (a caption, a short list), where the context is evidence the model's leaf
  features do not see; a long block the model judged on its own evidence stays dropped.
* A **code listing laid out as a table** (all its text inside ``pre``: Pygments'
  ``highlighttable``, Rouge's ``rouge-table``, a column of line numbers beside the code) is a
  unit; dropped entirely between kept text, it is kept whole whatever its length and scores:
  its tiny table cells hide from the leaf features that it is code.
* A list, code block or data table dropped entirely right after a kept sentence that
  **announces** it (ends with a
  colon, at least :data:`MIN_ANNOUNCE_WORDS` words, no link: ``The council published three
  documents:``, ``The file looks like this:``) and before kept text, or at the end of the
  kept text of its container (below), is kept whole, links or not: the sentence says it is
  part of the text. A short label (``Related:``, ``Read also:``) announces nothing.
* A **run** of dropped leaves between two kept ones, made only of units and headings and at
  most :data:`MAX_HOLE_CHARS` long, is one hole when it is one unit, starts with a heading,
  is the rest of a table whose first rows were kept, or holds a code block (a section the
  model dropped under its heading, the line introducing a code block and the code); a data
  table in it needs no score test (tiny cells again); a
  ``button`` in it (``Copy`` over a code block) neither closes it nor is kept. A run of
  short boxes without them (a forum post's user box, share buttons) stays dropped.
* A **flex or grid container** of phrasing items (``span``...; computed ``display`` when
  rendered, the inline style when parsed) of at most :data:`MAX_HOLE_CHARS` characters is a
  unit, a row like a table row (``Departure | 08:00 | Pier 3``).
* A **one-line** ``div`` (no block element inside) between kept text is decided by its kept
  share alone: kept whole from half its characters, else left to its leaves, never taken
  back when dropped entirely (such boxes are also buttons, price boxes and bylines). A
  caption line keeps the ``<small>`` photo credit the model dropped.
* A **heading** (``h1``-``h6``, or a paragraph that is one short bold run) of at most
  :data:`MAX_HEADING_CHARS` characters that is immediately followed by a kept leaf is kept;
  its permalink mark (a link to ``#anchor`` whose text is a symbol: ``¶``, ``#``) is not.

* The label of a button beside a code block (``Copy``) is dropped: a control, not text.
* The text of ``noscript`` is dropped when more text is kept outside it: pages are walked
  with JavaScript off, where browsers show it, but a reader's browser runs scripts and never
  does ("Please enable JavaScript"); a forum serving its posts there keeps them.

Why the share and not a learned rule: the leaf model already weighs the leaf's evidence, and
a unit is a reading decision that must not depend on which of its leaves happen to be short;
the share keeps the model's verdict on the unit's bulk and extends it to the rest.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from webseg.blocks.align import words
from webseg.clean.layout import DEFAULT_BLOCK
from webseg.page import Page

__all__ = ["MAX_CELL_CHARS", "MAX_HEADING_CHARS", "MAX_HOLE_CHARS", "MAX_UNIT_CHARS",
           "MIN_ANNOUNCE_WORDS", "MIN_PLAIN_CHARS", "apply_units"]

#: A unit longer than this is a layout container (a list holding the whole page), not a unit.
MAX_UNIT_CHARS = 5000
#: A table with a longer cell holds page columns or paragraphs: a layout table.
MAX_CELL_CHARS = 400
#: A unit the decoder dropped entirely is taken back by its context only up to this size: a
#: hole (a caption, a short list) between kept paragraphs, not a block the model judged on
#: its own evidence (a long code listing, a product grid).
MAX_HOLE_CHARS = 200
#: A sentence ending with a colon announces the list after it (kept whole, links or not)
#: from this many words: ``Related:`` or ``Read also:`` announce nothing a reader misses.
MIN_ANNOUNCE_WORDS = 5
#: The units a sentence may announce: lists, code blocks and data tables.
_ANNOUNCED = frozenset({"ul", "ol", "dl", "pre", "table"})
#: Units that may end an article's kept content (:func:`apply_units`, ``_ends_kept``): the
#: structures a reader expects whole. Not a paragraph: a last line the model dropped is
#: usually a promotion ("Like us on Facebook") or a source note; not a definition list: at
#: the end of a forum post's box it is the poster's details (``Joined``, ``Points``).
_ENDS_CONTENT = frozenset({"ul", "ol", "pre", "table", "figure", "blockquote", "details"})
#: A link list whose kept part is plain text of at least this many characters gets help
#: from its context (a list of documents with a plain item), not a "Read more →" line.
MIN_PLAIN_CHARS = 10
#: A longer "heading" is text, not a heading.
MAX_HEADING_CHARS = 200

_UNIT_TAGS = frozenset({"ul", "ol", "menu", "li", "dl", "pre", "figure", "blockquote", "p",
                        "details"})
_LAYOUT_TAGS = frozenset({"article", "section", "nav", "aside", "header", "footer", "main",
                          "form", "h1", "h2", "body", "html", "iframe", "frameset"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Layout tags that inside a quote or a figure hold its attribution
#: (``<blockquote><p>...</p><footer>— Name, <cite>Work</cite></footer>``), not page furniture.
_ATTRIBUTION = frozenset({"footer", "header"})
_BOLD = frozenset({"b", "strong"})
_FLEX = "<flex>"  # the unit kind of a flex or grid container
_LINE = "<line>"  # the unit kind of a div without block elements inside: a line of text
#: Units decided by their kept share alone, never taken back as a hole: one-line boxes are
#: also buttons, price boxes and bylines.
_SHARE_ONLY = frozenset({_LINE})
_PHRASING = frozenset({"span", "b", "strong", "em", "i", "small", "time", "code", "abbr",
                       "mark", "data", "sub", "sup", "s", "u", "kbd", "q", "cite", "label",
                       "bdi", "bdo", "var", "samp", "dfn"})
_FLEX_DISPLAYS = frozenset({"flex", "grid", "inline-flex", "inline-grid", "block flex",
                            "block grid", "inline flex", "inline grid"})


class _Tags:
    """The page's tags as codes (one per distinct tag, in first-seen order), so that a flag
    per node ("is a table", "is a layout element") is a look-up over the few distinct tags
    and one gather, not a Python test per node."""

    def __init__(self, tags: list[str]) -> None:
        self.codes = {t: k for k, t in enumerate(dict.fromkeys(tags))}
        self.inv = np.fromiter(map(self.codes.__getitem__, tags), dtype=np.intp,
                               count=len(tags))

    def mask(self, test: Callable[[str], bool]) -> np.ndarray:
        """Per node, ``test(tag)`` (a new, writable array)."""
        per_tag = np.fromiter(map(test, self.codes), dtype=bool, count=len(self.codes))
        return per_tag[self.inv]

    def ids(self, test: Callable[[str], bool]) -> list[int]:
        """The nodes whose tag passes ``test``, in document order."""
        return np.flatnonzero(self.mask(test)).tolist()


def _is_candidate_tag(t: str) -> bool:
    """Tags that may make a unit or a heading line (besides flex rows and lines)."""
    return t in _UNIT_TAGS or t == "table" or t == "tr" or t in _HEADINGS or t in _BOLD


try:  # numpy's compiled count itself: np.count_nonzero is a Python wrapper around it
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # another numpy layout: the public function, the same counts
    _count_nonzero = np.count_nonzero


def _all(flags: np.ndarray) -> bool:
    """``flags.all()`` of a short bool array: the unit loop asks it for every unit, and
    ``count_nonzero`` costs a fraction of a reduction's call overhead."""
    return _count_nonzero(flags) == len(flags)


def _any(flags: np.ndarray) -> bool:
    """``flags.any()`` of a bool array (see :func:`_all`)."""
    return _count_nonzero(flags) > 0


def _covered(lo: np.ndarray, hi: np.ndarray, m: int) -> np.ndarray:
    """Per position ``0..m-1``, whether some interval ``[lo[k], hi[k])`` covers it (counts of
    starts minus ends, summed: what ``np.add.at`` on a difference array gives)."""
    d = np.bincount(lo, minlength=m + 1)[:m + 1] - np.bincount(hi, minlength=m + 1)[:m + 1]
    return np.cumsum(d)[:m] > 0


def _prefix(flags: np.ndarray) -> np.ndarray:
    out = np.zeros(len(flags) + 1, dtype=np.int64)
    np.cumsum(flags, out=out[1:])
    return out


def apply_units(page: Page, leaves: np.ndarray, chars: np.ndarray, keep: np.ndarray,
                scores: np.ndarray | None = None, threshold: float | None = None,
                held: np.ndarray | None = None) -> np.ndarray:
    """The leaf keep mask (one bool per entry of ``leaves``, the page's text leaves) with the
    structure units and headings of the module docstring applied; ``chars`` are the leaves'
    characters, ``scores`` their P(main) and ``threshold`` the decoder's threshold for the
    page (without them, units the decoder dropped entirely stay dropped); ``held`` (optional,
    bool per leaf) the leaves the decoder's own later steps dropped on purpose (a print copy
    of the article, a comment thread the model is unsure of), which no unit keeps. A new
    array; ``keep`` is not changed."""
    keep = _apply_units(page, leaves, chars, keep, scores, threshold)
    if held is not None:
        keep &= ~np.asarray(held, dtype=bool)
    return keep


def _apply_units(page: Page, leaves: np.ndarray, chars: np.ndarray, keep: np.ndarray,
                 scores: np.ndarray | None, threshold: float | None) -> np.ndarray:
    keep = np.asarray(keep, dtype=bool).copy()
    if scores is not None:
        scores = np.asarray(scores, dtype=np.float64)
    m = len(leaves)
    if m < 2 or not keep.any():
        return keep
    tag_codes = _Tags(page.tag)
    if keep.all():
        _drop_permalinks(page, np.asarray(leaves, dtype=np.int64), keep, tag_codes)
        _drop_noscript(page, np.asarray(leaves, dtype=np.int64), keep)
        return keep
    leaves = np.asarray(leaves, dtype=np.int64)
    tags = page.tag
    end = page.subtree_end
    is_table = tag_codes.mask("table".__eq__)
    is_layout = tag_codes.mask(_LAYOUT_TAGS.__contains__)
    for i in np.flatnonzero(is_layout).tolist():
        if tags[i] in _ATTRIBUTION and _in_quote(page, i):
            is_layout[i] = False  # a quote's source line, not the page's footer
    flex = _flex_rows(page)
    cblk = _prefix(tag_codes.mask(DEFAULT_BLOCK.__contains__))
    # a div without block elements inside
    is_line = tag_codes.mask("div".__eq__) & (cblk[end] == cblk[1:])
    line = set(np.flatnonzero(is_line).tolist())
    is_cand = tag_codes.mask(_is_candidate_tag) | is_line
    is_cand[list(flex)] = True
    cand = np.flatnonzero(is_cand).tolist()
    if not cand:
        return keep
    nodes = np.asarray(cand, dtype=np.int64)
    lo = np.searchsorted(leaves, nodes)
    hi = np.searchsorted(leaves, end[nodes])
    w = np.asarray(chars, dtype=np.float64) + 1.0
    cw = np.concatenate([[0.0], np.cumsum(w)])
    ctab, clay = _prefix(is_table), _prefix(is_layout)
    total = cw[hi] - cw[lo]
    # the same values as Python numbers, for the loops over the candidates
    lo_l, hi_l, total_l = lo.tolist(), hi.tolist(), total.tolist()
    tables_inside = ctab[end[nodes]] - ctab[nodes + 1]
    layout_inside = clay[end[nodes]] - clay[nodes + 1]
    ntags = [_FLEX if i in flex else _LINE if i in line else tags[i] for i in cand]
    row_of: dict[int, list[int]] = {}  # data table -> positions of its rows in ``cand``
    table_stack: list[int] = []
    # tables and rows only: tables nest, so the ones a candidate closes are on top of the
    # stack whenever the next table or row comes
    for k in [k for k, t in enumerate(ntags) if t == "table" or t == "tr"]:
        i = cand[k]
        while table_stack and end[cand[table_stack[-1]]] <= i:
            table_stack.pop()
        if ntags[k] == "table":
            table_stack.append(k)
            row_of[k] = []
        elif table_stack:
            row_of[table_stack[-1]].append(k)
    data_table = {k for k, rows in row_of.items()
                  if len(rows) >= 2 and tables_inside[k] == 0 and layout_inside[k] == 0
                  and total[k] <= MAX_UNIT_CHARS * 4 and _cells_short(page, cand[k], leaves,
                                                                      cw)}
    code_table = {k for k in row_of if k not in data_table and layout_inside[k] == 0
                  and total[k] <= MAX_UNIT_CHARS and _code_listing(page, cand[k], leaves)}
    # data tables inside each candidate: a list item holding a small data table (an option
    # and its figures) is still a unit, one holding a layout table is not
    is_data = np.zeros(page.n, dtype=bool)
    is_data[[cand[k] for k in data_table]] = True
    cdata = _prefix(is_data)
    only_data = (cdata[end[nodes]] - cdata[nodes + 1]) == tables_inside
    unit = np.zeros(len(cand), dtype=bool)
    # Python numbers for the loop (the same values and comparisons)
    tin_l, lin_l, only_l = tables_inside.tolist(), layout_inside.tolist(), only_data.tolist()
    for k, t in enumerate(ntags):
        if hi_l[k] <= lo_l[k]:
            continue
        if t == "table":
            unit[k] = k in data_table or k in code_table
        elif t == _FLEX:  # a row of short items side by side, read as one line
            unit[k] = (tin_l[k] == 0 and lin_l[k] == 0 and total_l[k] <= MAX_HOLE_CHARS)
        elif t == _LINE:
            unit[k] = lin_l[k] == 0 and total_l[k] <= MAX_UNIT_CHARS
        elif t == "tr":  # rows of data tables, and short rows of other tables (below)
            unit[k] = True
        elif t in _UNIT_TAGS:  # a figure may hold a table (a table with its caption)
            unit[k] = ((only_l[k] or t == "figure") and lin_l[k] == 0
                       and total_l[k] <= MAX_UNIT_CHARS)
    rows_ok = np.zeros(len(cand), dtype=bool)
    for k in data_table:
        rows_ok[row_of[k]] = True
    # a table that is no data table only because a cell holds a small table (a timetable
    # beside its line): its other rows of short cells are still rows (``Ferry B | every
    # hour``); a layout table (a long cell, a layout element) keeps none
    for k, rows in row_of.items():
        if k in data_table or tables_inside[k] == 0 or layout_inside[k] or len(rows) < 2 \
                or total[k] > MAX_UNIT_CHARS * 4 or not _cells_short(page, cand[k], leaves, cw):
            continue
        for r in rows:
            if tables_inside[r] == 0:
                rows_ok[r] = True
    unit &= (np.asarray([t != "tr" for t in ntags]) | rows_ok)
    # leaves inside a link (``a`` with ``href``): a unit that is mostly link text is a menu
    # or a table of contents, and the context is no evidence for it
    links = [i for i in tag_codes.ids("a".__eq__) if "href" in page.attrs[i]]
    linked = np.zeros(m, dtype=bool)
    if links:
        la = np.asarray(links, dtype=np.int64)
        linked = _covered(np.searchsorted(leaves, la), np.searchsorted(leaves, end[la]), m)

    def _plain_kept(a: int, b: int) -> bool:
        """The decoder kept some of ``[a, b)``, and what it kept is mostly plain text, not
        link text: a list of documents with one plain item, not a menu."""
        kk = keep[a:b]
        if not _any(kk):
            return False
        wk = w[a:b][kk]
        plain = wk[~linked[a:b][kk]]
        # at least a few words of plain text (a lone arrow beside "Read more" is no text)
        return float(plain.sum()) >= 0.5 * float(wk.sum()) and \
            float((plain - 1.0).sum()) >= MIN_PLAIN_CHARS

    def _half(a: int, b: int, scored: bool = True) -> bool:
        """The context may decide for ``[a, b)``: less than half of its characters are link
        text and its character-weighted mean score reaches half the page's threshold (no
        scores given, or ``scored`` false: the context alone decides)."""
        ww = w[a:b]
        if float(ww[linked[a:b]].sum()) >= 0.5 * float(ww.sum()) and not _plain_kept(a, b):
            return False
        if not scored:
            return True
        if scores is None or threshold is None:
            return scores is None
        return float(np.dot(ww, scores[a:b]) / ww.sum()) >= threshold / 2

    # the kinds of the candidates as codes, so that a flag per candidate is one test per
    # distinct kind and a gather
    kinds = {t: k for k, t in enumerate(dict.fromkeys(ntags))}
    kind_inv = np.fromiter(map(kinds.__getitem__, ntags), dtype=np.intp, count=len(ntags))

    def kind_is(test: Callable[[str], bool]) -> np.ndarray:
        return np.fromiter(map(test, kinds), dtype=bool, count=len(kinds))[kind_inv]

    shared_only = kind_is(_SHARE_ONLY.__contains__)
    is_heading = kind_is(_HEADINGS.__contains__)
    # units with other units inside them
    uk = np.flatnonzero(unit & ~shared_only)
    has_inner = np.zeros(len(cand), dtype=bool)
    if len(uk):
        nxt = np.append(uk[1:], -1)
        has_inner[uk] = (nxt >= 0) & (nodes[np.maximum(nxt, 0)] < end[nodes[uk]])
    # leaves inside a unit or a heading: a run of dropped leaves made only of them is
    # structure the reader sees as one gap in the article (a heading, its paragraph and code)
    inner = np.flatnonzero(unit & ~shared_only | is_heading)
    structured = _covered(lo[inner], hi[inner], m)
    # leaves of headings and code blocks: a run of several units is a gap the reader sees as
    # one only around them (a section under its heading, the line that introduces a code
    # block); a run of short boxes without them is page furniture (a forum post's user box,
    # share buttons, a gallery's captions)
    def _leaf_flags(sel: np.ndarray) -> np.ndarray:
        return _covered(lo[sel], hi[sel], m)

    in_heading = _leaf_flags(np.flatnonzero(is_heading))
    # leaves of buttons: controls beside a unit ("Copy" over a code block), no text of a
    # hole, and no reason to leave the hole open
    buttons = np.asarray(tag_codes.ids("button".__eq__), dtype=np.int64)
    in_button = np.zeros(m, dtype=bool)
    if len(buttons):
        in_button = _covered(np.searchsorted(leaves, buttons),
                             np.searchsorted(leaves, end[buttons]), m)
    is_code = kind_is("pre".__eq__)
    is_code[list(code_table)] = True
    in_code = _leaf_flags(np.flatnonzero(is_code))
    spans = {(lo_l[k], hi_l[k]) for k in np.flatnonzero(unit).tolist()}
    table_spans = [(lo_l[k], hi_l[k]) for k in row_of]

    cwl = cw.tolist()  # the same float64 values, read without a numpy scalar each

    def _hole(a: int, b: int) -> tuple[int, int] | None:
        """The run of dropped leaves around ``[a, b)``, when kept leaves close it on both
        sides, it holds at most :data:`MAX_HOLE_CHARS` characters, every leaf of it lies
        in a unit or a heading, and, when it is more than one unit (a figure with its table
        and caption is one), it starts with a heading or holds a code block."""
        # the run's ends: after the last kept leaf before ``a`` and at the first kept one
        # from ``b`` (two byte searches over the mask, not a numpy scalar per leaf). Walking
        # out leaf by leaf and stopping once the run passes the limit gives the same answer:
        # ``cwl`` never decreases, so the run is over the limit exactly when its full
        # extent is.
        kb = keep.tobytes()
        i = kb.rfind(b"\x01", 0, a) + 1
        j = kb.find(b"\x01", b)
        if j < 0:
            j = m
        if i == 0 or j == m or cwl[j] - cwl[i] > MAX_HOLE_CHARS \
                or not _all(structured[i:j] | in_button[i:j]):
            return None
        if (i, j) not in spans and not in_heading[i] and not _any(in_code[i:j]) \
                and not any(tlo < i and j <= thi for tlo, thi in table_spans):
            return None  # (the rest of a table whose first rows were kept is one hole)
        return i, j

    def _ends_kept(k: int, a: int, b: int, mixed: bool = False) -> bool:
        """The unit ``k`` (leaves ``[a, b)``) ends the kept content of its container: the
        leaf before it is kept, and in the nearest ancestor that holds other leaves (not
        ``body``), no leaf after it is kept and most of the text before it is (a table or a
        list after an article's last paragraph, where no kept text follows to close a
        hole)."""
        if not mixed and ntags[k] not in _ENDS_CONTENT or a == 0 or not keep[a - 1]:
            return False
        p = int(page.parent[cand[k]])
        while p >= 0 and tags[p] not in ("body", "html"):
            pa, pb = (int(x) for x in np.searchsorted(leaves, [p, end[p]]))
            if pa < a or pb > b:
                break
            p = int(page.parent[p])
        if p < 0 or tags[p] in ("body", "html") or _any(keep[b:pb]):
            return False
        before = w[pa:a]
        kept = float(before[keep[pa:a]].sum())  # an article's text, not a title cell's
        return kept >= 0.5 * float(before.sum()) and kept >= MAX_HOLE_CHARS

    def _completes_end(k: int, a: int, b: int) -> bool:
        """The unit ``k``, which the decoder kept in part, ends its container's kept content
        (``_ends_kept``) and is a paragraph whose kept part is plain text, a data table, or
        a list without links (not a teaser list after an article, nor a promotion line whose
        link the model kept)."""
        t = ntags[k]
        if t == "p":
            ok = _plain_kept(a, b)
        elif t == "table":
            ok = k in data_table
        else:
            ok = t in ("ul", "ol") and not _any(linked[a:b])
        return ok and _ends_kept(k, a, b, mixed=True)

    # how many times ``keep`` was written so far: a unit ``_fill`` left dropped is decided
    # the same way again while no write came between (``_fill`` reads nothing else that
    # changes), so its retry below is skipped then
    writes = [0]

    def _fill(k: int, a: int, b: int) -> int:
        """Keep the unit ``k`` (leaves ``[a, b)``, all dropped) whole when it is a hole in
        kept content (module docstring); its end when kept, else -1."""
        # a code listing or a data table hides what it is from the leaf features (tiny
        # cells of a table): between kept text, the context alone decides (a listing of
        # any length, a table in a short gap)
        listing = k in code_table
        run = (a, b) if listing and _inside_kept(keep, a, b) else _hole(a, b)
        at_end = run is None and (listing or cwl[b] - cwl[a] <= MAX_HOLE_CHARS) \
            and _ends_kept(k, a, b)
        if at_end:  # no kept text after it: its own scores must speak for it (below)
            run = (a, b)
        if run == (a, b) and ntags[k] in _ANNOUNCED and _announces(page, leaves, keep, a):
            keep[a:b] = True  # the sentence before it says what follows
            writes[0] += 1
            return b
        # tiny cells and items hide what a table, a list or code is from the leaf features:
        # between kept text the context alone decides; at the end of it only when the unit
        # has no link (teasers and tag lists after an article have links)
        tiny = listing or k in data_table or ntags[k] in ("ul", "ol", "pre")
        free = tiny and (not at_end or not _any(linked[a:b]))
        if run is not None and _half(*run, scored=not free if at_end else not (
                listing or k in data_table)):
            keep[run[0]:run[1]] = True
            keep[run[0]:run[1]] &= ~in_button[run[0]:run[1]]  # a "Copy" button stays out
            writes[0] += 1
            return b  # units the run reaches into after it are still decided as wholes
        return -1

    # decide, outermost first (pre-order): a decided unit covers [lo, hi)
    covered = 0
    # holes whose neighbours were still undecided, with the write count when ``_fill`` left
    # them dropped (-1: not asked yet)
    retry: list[tuple[int, int]] = []
    for k in np.flatnonzero(unit).tolist():
        a, b = lo_l[k], hi_l[k]
        if a < covered:
            continue
        part = keep[a:b]
        if _all(part):
            continue
        if ntags[k] in _SHARE_ONLY:  # its own bulk, between kept text: whole, else left
            if _any(part) and _share(keep, w, a, b) >= 0.5 and _inside_kept(keep, a, b):
                keep[a:b] = True
                writes[0] += 1
                covered = b
            continue
        if not _any(part):
            if scores is None:
                continue
            got = _fill(k, a, b)
            if got < 0:
                retry.append((k, writes[0]))
            covered = max(covered, got)
            continue
        said = ntags[k] in _ANNOUNCED and _announces(page, leaves, keep, a)
        if _share(keep, w, a, b) >= 0.5 \
                or (_inside_kept(keep, a, b) or _completes_end(k, a, b)) and (_half(a, b) or said) \
                or said and _ends_kept(k, a, b, mixed=True):
            keep[a:b] = True
            writes[0] += 1
            covered = b
        elif not has_inner[k]:  # a unit with units inside (a list's items, a table's
            keep[a:b] = False  # rows) leaves the decision to them
            writes[0] += 1
            covered = b
            if scores is not None:
                retry.append((k, -1))  # dropped whole: a hole once its neighbours are decided
    # a dropped unit before a unit decided after it (a table before a list whose items were
    # kept whole): a hole once its neighbours are decided
    for k, seen in retry:
        if seen == writes[0]:
            continue  # nothing changed since _fill left it dropped
        a, b = lo_l[k], hi_l[k]
        if not _any(keep[a:b]):
            _fill(k, a, b)
    # headings immediately followed by kept content (only headings and bold lines can be)
    for k in [k for k, t in enumerate(ntags) if t in _HEADINGS or t in _BOLD]:
        t = ntags[k]
        a, b = lo_l[k], hi_l[k]
        if b <= a or b >= m or not keep[b] or _all(keep[a:b]) or total_l[k] > MAX_HEADING_CHARS:
            continue
        if t in _HEADINGS or t in _BOLD and _bold_line(page, cand[k], leaves, a, b):
            keep[a:b] = True
    _drop_permalinks(page, leaves, keep, tag_codes)
    _drop_noscript(page, leaves, keep)
    _drop_code_buttons(page, leaves, keep)
    return keep


def _drop_permalinks(page: Page, leaves: np.ndarray, keep: np.ndarray,
                     tag_codes: _Tags | None = None) -> None:
    """Drop a heading's permalink mark: a link to an anchor of the page (``href="#..."``)
    whose text is a symbol, no letter or digit (``¶``, ``#``, ``§``, ``🔗``). Documentation
    and blog generators put one in every heading; a reader never reads it as text."""
    tags, attrs, end = page.tag, page.attrs, page.subtree_end
    for h in (tag_codes or _Tags(tags)).ids(_HEADINGS.__contains__):
        for i in range(h + 1, int(end[h])):
            a = attrs[i]
            if tags[i] != "a" or not a or not (a.get("href") or "").startswith("#"):
                continue
            a0, b0 = np.searchsorted(leaves, [i, end[i]])
            txt = "".join(page.leaf_text(int(j)) for j in leaves[a0:b0])
            if txt.strip() and not any(ch.isalnum() for ch in txt):
                keep[a0:b0] = False


def _announces(page: Page, leaves: np.ndarray, keep: np.ndarray, a: int) -> bool:
    """The kept leaf before leaf ``a`` is a sentence that announces what follows: it ends
    with a colon (``The council published three documents:``), is no link, and has at least
    :data:`MIN_ANNOUNCE_WORDS` words (one per letter in unspaced scripts), so a short label
    (``Related:``, ``Tags:``, ``Read also:``) announces nothing a reader misses."""
    if a == 0 or not keep[a - 1]:
        return False
    j = int(leaves[a - 1])
    text = page.leaf_text(j).rstrip()
    if not text.endswith((":", "\uff1a")):
        return False
    p = int(page.parent[j])
    for _ in range(4):
        if p < 0:
            break
        if page.tag[p] == "a" and "href" in (page.attrs[p] or {}):
            return False
        p = int(page.parent[p])
    # the sentence may start in an earlier leaf of its paragraph (``The <b>council</b> ...:``)
    start = a - 1
    block = int(page.parent[j])
    while start > 0 and keep[start - 1] and page.is_ancestor(block, int(leaves[start - 1])):
        start -= 1
    sentence = " ".join(page.leaf_text(int(x)) for x in leaves[start:a])
    return len(words(sentence)) >= MIN_ANNOUNCE_WORDS


#: A code block's wrapper holds at most this much text besides its code (a toolbar: the
#: language, "Copy", "Run"); a container with more is an article with code somewhere in it.
_TOOLBAR_CHARS = 40


def _drop_code_buttons(page: Page, leaves: np.ndarray, keep: np.ndarray) -> None:
    """Drop the label of a button beside a code block (``Copy``, ``Run`` in the toolbar that
    documentation sites and GitHub put over a ``pre``): a control, not text of the page.
    Buttons elsewhere keep the model's decision (an FAQ's question is often a button)."""
    tags, end, par = page.tag, page.subtree_end, page.parent
    if "button" not in tags or "pre" not in tags:
        return
    length = page.text_length
    for i in (i for i, t in enumerate(tags) if t == "button"):
        box = int(par[i])
        for _ in range(2):  # the toolbar, then the wrapper holding the toolbar and the code
            if box < 0:
                break
            pres = [x for x in range(box + 1, int(end[box])) if tags[x] == "pre"]
            if pres:  # a code block's wrapper: little text besides the code
                if int(length[box]) - sum(int(length[x]) for x in pres) <= _TOOLBAR_CHARS:
                    a, b = np.searchsorted(leaves, [i, end[i]])
                    keep[a:b] = False
                break
            box = int(par[box])


def _drop_noscript(page: Page, leaves: np.ndarray, keep: np.ndarray) -> None:
    """Drop the text of ``noscript`` elements when other text is kept. Pages are walked with
    JavaScript off, where a browser shows ``noscript``; a reader's browser runs scripts and
    never shows it ("Please enable JavaScript", a tracking notice, a second copy of a menu).
    A page whose kept text is mostly there (a forum that serves its posts to browsers without
    JavaScript in a ``noscript``, as Flarum does) keeps it."""
    tags, end = page.tag, page.subtree_end
    if "noscript" not in tags:
        return
    inside = np.zeros(len(keep), dtype=bool)
    for i in (i for i, t in enumerate(tags) if t == "noscript"):
        a, b = np.searchsorted(leaves, [i, end[i]])
        inside[a:b] = True
    if np.array_equal(leaves, page.text_leaves):  # their texts are kept by the page
        chars = np.fromiter(map(len, page.leaf_texts), dtype=np.int64, count=len(leaves))
    else:
        chars = np.fromiter((len(page.leaf_text(int(j))) for j in leaves), dtype=np.int64,
                            count=len(leaves))
    if int(chars[keep & ~inside].sum()) > int(chars[keep & inside].sum()):
        keep[inside] = False


#: above this many flex containers, :func:`_flex_rows` lists every node's children at once
_FLEX_SCAN = 32


def _flex_rows(page: Page) -> set[int]:
    """Elements laid out as a flex or grid container (computed ``display`` on a rendered
    page, an inline style's on a parsed one) whose items are all phrasing elements (``span``,
    ``b``, ``time``...): short items side by side, a row like a table's. Containers of
    ``div``, ``p`` or links are cards, buttons and menus (measured on rendered WCXB pages:
    taking them whole kept calls to action, price boxes and bylines)."""
    if page.has_layout and len(page.displays):
        codes = [c for c, d in enumerate(page.displays) if d in _FLEX_DISPLAYS]
        if not codes:
            return set()
        flex = np.flatnonzero(np.isin(page.display, codes)).tolist()
    else:
        attrs = page.attrs
        flex = [i for i in [i for i, a in enumerate(attrs) if a and "display" in a]
                if attrs[i]["display"].strip() in _FLEX_DISPLAYS]
    if not flex:
        return set()
    tags = page.tag
    if len(flex) > _FLEX_SCAN:  # many containers: every node's children in one pass
        kids: dict[int, list[str]] = {}
        for i, par in enumerate(page.parent.tolist()):
            if par >= 0 and tags[i] != "#text":
                kids.setdefault(par, []).append(tags[i])
        return {i for i in flex if kids.get(i) and all(t in _PHRASING for t in kids[i])}
    # a few containers: each one's children, found in its subtree (a contiguous id range)
    parent, end = page.parent, page.subtree_end
    out = set()
    for i in flex:
        below = np.flatnonzero(parent[i + 1:int(end[i])] == i) + (i + 1)
        kt = [tags[j] for j in below.tolist() if tags[j] != "#text"]
        if kt and all(t in _PHRASING for t in kt):
            out.add(i)
    return out


def _code_listing(page: Page, table: int, leaves: np.ndarray) -> bool:
    """All the text of ``table`` is inside code blocks (``pre``): a code listing laid out as
    a row of line numbers beside the code (Pygments' ``highlighttable``, Rouge's
    ``rouge-table``), not data."""
    end = page.subtree_end
    a, b = np.searchsorted(leaves, [table, end[table]])
    if b <= a:
        return False
    inside = np.zeros(int(b - a), dtype=bool)
    for j in range(table + 1, int(end[table])):
        if page.tag[j] == "pre":
            pa, pb = np.searchsorted(leaves, [j, end[j]])
            inside[pa - a:pb - a] = True
    return bool(inside.all())


def _in_quote(page: Page, node: int, up: int = 3) -> bool:
    """``node`` lies at most ``up`` levels inside a ``blockquote`` or ``figure``."""
    p = int(page.parent[node])
    for _ in range(up):
        if p < 0:
            return False
        if page.tag[p] in ("blockquote", "figure"):
            return True
        p = int(page.parent[p])
    return False


def _share(keep: np.ndarray, w: np.ndarray, a: int, b: int) -> float:
    ww = w[a:b]
    return float(ww[keep[a:b]].sum() / ww.sum())


def _inside_kept(keep: np.ndarray, a: int, b: int) -> bool:
    """The nearest leaves before and after ``[a, b)`` are both kept."""
    return a > 0 and b < len(keep) and bool(keep[a - 1]) and bool(keep[b])


def _cells_short(page: Page, table: int, leaves: np.ndarray, cw: np.ndarray) -> bool:
    """No cell of ``table`` holds more than :data:`MAX_CELL_CHARS` characters."""
    end = page.subtree_end
    for j in range(table + 1, int(end[table])):
        if page.tag[j] in ("td", "th"):
            a, b = np.searchsorted(leaves, [j, end[j]])
            if cw[b] - cw[a] - (b - a) > MAX_CELL_CHARS:
                return False
    return True


def _bold_line(page: Page, node: int, leaves: np.ndarray, a: int, b: int) -> bool:
    """``node`` (a ``b``/``strong``) is all the text of its parent block (``p``/``div``): a
    short bold line in heading position."""
    par = int(page.parent[node])
    if par < 0 or page.tag[par] not in ("p", "div"):
        return False
    pa, pb = np.searchsorted(leaves, [par, page.subtree_end[par]])
    return bool(pa == a and pb == b)
