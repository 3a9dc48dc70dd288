"""Plain-text output: the kept text leaves as a browser shows them, one line per block.

Leaves are joined in document order as ``innerText`` joins them (:mod:`webseg.clean.layout`):
by nothing where the source has no whitespace between them (``W<b>orld</b>``), by a space
where it has, or an ``inline-block`` box intervenes, by a tab between table cells (one per
cell, so an empty cell keeps its column), and by a line break where a block starts or ends,
a table row changes, a ``<br>`` intervenes, or (PageLevel) the segment changes. Code blocks
(``pre``, multi-line ``code``) keep their whitespace verbatim. Soft hyphens, zero-width spaces
and BOMs are removed. This is what ``webseg clean`` prints by default and what the harness
scores.
"""

from __future__ import annotations

import numpy as np

from webseg.clean.layout import (
    BLOCK,
    CELL,
    INLINE,
    NONE,
    ROW,
    cell_columns,
    clean_chars,
    collapse_lines,
    joints,
    pre_line,
    pre_roots,
    ruby_annotations,
)
from webseg.page import Page, normalize_text

__all__ = ["BLOCK_TAGS", "block_owner", "join_inline", "reading_keep", "to_text"]

#: Elements after which extracted text starts a new line.
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "dialog",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hr", "legend", "li", "main", "nav", "ol", "p", "pre",
    "section", "summary", "table", "td", "th", "tr", "ul",
})

_NO_SPACE_BEFORE = frozenset(".,;:!?)]}\u00bb\u201d\u2019%")
_NO_SPACE_AFTER = frozenset("([{\u00ab\u201c\u2018")


def block_owner(page: Page) -> np.ndarray:
    """A line key per node: text leaves with the same key belong on one line.

    The key combines the nearest block-level ancestor-or-self (``p``, ``div``, ``li``...) with
    the number of ``<br>`` elements between it and the node, so a ``<br>`` starts a new line
    within its block. Vectorised: the owner by pointer jumping over the parent array
    (log(depth) steps), the breaks by a cumulative count in document order.
    """
    n = page.n
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    tags = page.tag
    is_block = np.fromiter((t in BLOCK_TAGS for t in tags), dtype=bool, count=n)
    is_block[0] = True
    idx = np.arange(n)
    par = np.where(page.parent < 0, 0, page.parent)
    owner = np.where(is_block, idx, par)
    while True:
        nxt = np.where(is_block[owner], owner, owner[owner])
        if np.array_equal(nxt, owner):
            break
        owner = nxt
    brs = np.cumsum(np.fromiter((t == "br" for t in tags), dtype=np.int64, count=n))
    return owner.astype(np.int64) * (n + 1) + (brs - brs[owner])


def join_inline(parts: list[tuple[str, str]]) -> str:
    """Join (raw, normalised) text pieces of one line when the source's whitespace is not
    known (pages of schema version 1): a space between pieces, except where the raw text has
    none at the boundary and the next piece starts with closing punctuation
    (``word<b>,</b>``) or the previous one ends with an opening bracket or quote."""
    out: list[str] = []
    prev_raw = ""
    for raw, norm in parts:
        if not norm:
            continue
        if norm == "\n":  # a line break (<br> in Markdown)
            if out and out[-1] != "\n":
                out.append("\n")
            prev_raw = "\n"
            continue
        if out and out[-1] != "\n":
            glued = not prev_raw[-1:].isspace() and not raw[:1].isspace() and (
                norm[0] in _NO_SPACE_BEFORE or out[-1][-1] in _NO_SPACE_AFTER)
            if not glued:
                out.append(" ")
        out.append(norm)
        prev_raw = raw
    return "".join(out)


def without_gutters(page: Page, leaf_keep: np.ndarray) -> np.ndarray:
    """``leaf_keep`` without the line numbers of code listings: a table cell holding only
    consecutive numbers (``1 2 3``) beside a cell of the same row holding a ``pre`` (the
    gutter of Pygments' ``highlighttable``, Rouge's ``rouge-table``). A reader copies the
    code, not its numbering; a new array when a gutter is found."""
    keep = np.asarray(leaf_keep, dtype=bool)
    tags = page.tag
    if "pre" not in tags or "td" not in tags:
        return keep
    leaves, end, par = page.text_leaves, page.subtree_end, page.parent
    out = keep
    for i, t in enumerate(tags):
        if t not in ("td", "th") or par[i] < 0:
            continue
        row = int(par[i])
        if not any(tags[j] == "pre" for j in range(row + 1, int(end[row]))
                   if not i <= j < end[i]):
            continue
        a, b = np.searchsorted(leaves, [i, end[i]])
        if b <= a or not keep[a:b].any():
            continue
        words = " ".join(page.leaf_text(int(j)) for j in leaves[a:b]).split()
        if not all(w.isdigit() and w.isascii() for w in words):
            continue
        nums = [int(w) for w in words]
        if nums != list(range(nums[0], nums[0] + len(nums))):
            continue
        if out is keep:
            out = keep.copy()
        out[a:b] = False
    return out


def reading_keep(page: Page, leaf_keep: np.ndarray) -> np.ndarray:
    """The kept leaves a reader reads: without a code listing's line numbers
    (:func:`without_gutters`) and ruby readings (:func:`~webseg.clean.layout.ruby_annotations`)."""
    keep = without_gutters(page, leaf_keep)
    annotated = ruby_annotations(page)
    if not annotated.any():
        return keep
    return keep & ~annotated[page.text_leaves]


def to_text(page: Page, leaf_keep: np.ndarray, groups: np.ndarray | None = None) -> str:
    """The kept leaves as text lines (see the module docstring).

    ``leaf_keep`` is a bool per ``page.text_leaves`` entry; ``groups`` (optional, same length)
    a segment label per leaf: a change of label starts a new line too.
    """
    keep = reading_keep(page, leaf_keep)
    kept = page.text_leaves[keep]
    if not len(kept):
        return ""
    sep, ws, _ = joints(page, kept)
    col, ncell, cell = cell_columns(page, kept, blocks=True)
    # the cells of a layout table (a page's columns) are blocks, not columns
    sep[1:][(sep[1:] == CELL) & ((col[1:] < 0) | (col[:-1] < 0))] = BLOCK
    par = page.parent
    for k in np.flatnonzero((cell[1:] >= 0) & (cell[:-1] >= 0) & (cell[1:] != cell[:-1])
                            & (sep[1:] == BLOCK)).tolist():
        if par[cell[k + 1]] == par[cell[k]]:  # next cell of one row: <td><p>a</p><td><p>b
            sep[k + 1] = CELL
    if groups is not None:
        g = np.asarray(groups)[keep]
        sep[1:][g[1:] != g[:-1]] = BLOCK
    pre = pre_roots(page)[kept].tolist()
    # plain lists for the loop below (a numpy scalar per read costs several list reads)
    seps, cols, ncells = sep.tolist(), col.tolist(), ncell.tolist()
    text = page.text
    lines: list[str] = []
    cur: list[str] = []
    block: list[str] = []  # the code block being collected (verbatim)
    cur_pre = -1
    pending = BLOCK
    last = -1  # the previous kept leaf in ``cur`` (for the empty cells that end its row)

    def end_line() -> None:
        if cur and last >= 0 and cols[last] >= 0:  # empty cells at the end of the row
            cur.append("\t" * (ncells[last] - 1 - cols[last]))
        line = "".join(cur).strip(" ")
        if line.strip():
            lines.append(line)
        cur.clear()

    def end_block() -> None:
        # no-break spaces indent code on some sites: a reader copies spaces
        body = "".join(block).strip("\n").rstrip().replace("\xa0", " ")
        if pre_line(page, cur_pre):
            body = collapse_lines(body)
        if body.strip():
            lines.append(body)
        block.clear()

    for k, j in enumerate(kept.tolist()):
        s = seps[k]
        pending = max(pending, s) if k else BLOCK
        raw = clean_chars(text[j])
        p = pre[k]
        if p >= 0 and p == cur_pre:  # inside the same code block: the source's whitespace
            joint = ws[k]
            if pending >= ROW and "\n" not in joint + block[-1][-1:] + raw[:1]:
                joint += "\n"
            block.append(joint + raw)
            pending = NONE
            continue
        if cur_pre >= 0:
            end_block()
            cur_pre = -1
            pending = BLOCK
        if p >= 0:
            end_line()
            cur_pre = p
            block.append(raw)
            pending = NONE
            continue
        piece = normalize_text(raw)
        if not piece:
            continue
        if pending >= ROW or not cur:
            end_line()
            if cols[k] > 0:  # empty cells at the start of the row
                cur.append("\t" * cols[k])
        elif pending == CELL:
            same_row = last >= 0 and cols[last] >= 0 and cols[k] > cols[last]
            cur.append("\t" * (cols[k] - cols[last] if same_row else 1))
        elif pending >= INLINE:
            cur.append(" ")
        cur.append(piece)
        last = k
        pending = NONE
    if cur_pre >= 0:
        end_block()
    end_line()
    return "\n".join(lines)
