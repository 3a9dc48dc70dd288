"""Plain-text output: the kept text leaves, one line per block.

Leaves are joined in document order: by a space within a block element, by a newline where
the nearest block-level ancestor (``p``, ``div``, ``li``, headings, ...) changes or a ``<br>``
intervenes, and, when the method has segments (PageLevel), where the segment changes. This is
what ``webseg clean`` prints by default and what the harness scores.
"""

from __future__ import annotations

import numpy as np

from webseg.page import Page, normalize_text

__all__ = ["BLOCK_TAGS", "block_owner", "join_inline", "to_text"]

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
    """Nearest block-level ancestor-or-self of every node, with ``<br>`` starting a new block.

    Returned as an integer key per node: text leaves with the same key belong on one line.
    """
    n = page.n
    par = page.parent.tolist()
    ol = [0] * n
    tags = page.tag
    for i in range(n):
        t = tags[i]
        if i == 0 or t in BLOCK_TAGS:
            ol[i] = i
        else:
            ol[i] = ol[par[i]]
        if t == "br" and i:
            ol[par[i]] = i  # later siblings (and their text) continue after the break
    return np.asarray(ol, dtype=np.int64)


def join_inline(parts: list[tuple[str, str]]) -> str:
    """Join (raw, normalised) text pieces of one line the way they read.

    A space goes between pieces, except where the raw text has none at the boundary and the
    next piece starts with closing punctuation (``word<b>,</b>``) or the previous one ends
    with an opening bracket or quote: no invented space before a comma.
    """
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


def to_text(page: Page, leaf_keep: np.ndarray, groups: np.ndarray | None = None) -> str:
    """The kept leaves as text lines (see the module docstring).

    ``leaf_keep`` is a bool per ``page.text_leaves`` entry; ``groups`` (optional, same length)
    a segment label per leaf: a change of label starts a new line too.
    """
    leaves = page.text_leaves.tolist()
    keep = np.asarray(leaf_keep, dtype=bool).tolist()
    labels = [0] * len(leaves) if groups is None else np.asarray(groups).tolist()
    block = block_owner(page)
    lines: list[str] = []
    cur: list[tuple[str, str]] = []
    prev_key: tuple[int, int] | None = None
    for j, lab, k in zip(leaves, labels, keep, strict=True):
        if not k:
            continue
        key = (int(lab), int(block[j]))
        if prev_key is not None and key != prev_key and cur:
            lines.append(join_inline(cur))
            cur = []
        prev_key = key
        raw = page.text[j]
        cur.append((raw, normalize_text(raw)))
    if cur:
        lines.append(join_inline(cur))
    return "\n".join(line for line in lines if line)
