"""Markdown output: headings, paragraphs, lists, tables, code blocks and (optionally) links.

Built from the Page and the kept-leaf mask alone, so it works for every method and for
rendered and parsed pages alike: the walk descends only into subtrees that hold kept text,
and every piece of markup is decided by tag names (a ``<ul>`` becomes a list even when only
some of its items are kept). Tables become GitHub tables when they hold data (cells without
block content); layout tables are unwrapped into their blocks. Text is escaped so that it
cannot turn into markup, or into raw HTML when the Markdown is rendered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin

import numpy as np

from webseg.clean.mask import kept_counts
from webseg.clean.txt import BLOCK_TAGS, join_inline
from webseg.page import TEXT, Page, normalize_text

__all__ = ["to_markdown", "safe_url"]

_HEADINGS = {f"h{k}": k for k in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "menu"})
_CELL_BLOCKS = frozenset({"ul", "ol", "table", "pre", "blockquote", "h1", "h2", "h3", "h4",
                          "h5", "h6", "dl"})
_ESCAPE = re.compile(r"([\\`*_\[\]<>|])")
_LINE_START = re.compile(r"^(\s*)([#+\-=>]|\d+[.)])(?=\s|$)")
_BAD_SCHEME = re.compile(r"^\s*(javascript|vbscript|data|file):", re.I)


def safe_url(href: str | None, base: str | None = None) -> str | None:
    """``href`` resolved against ``base``; None for script/data URLs and empty ones."""
    if not href:
        return None
    href = "".join(ch for ch in href if ch >= " ").strip()
    if not href or _BAD_SCHEME.match(href):
        return None
    if base:
        try:
            href = urljoin(base, href)
        except ValueError:
            return None
    return href


def _escape(text: str) -> str:
    return _ESCAPE.sub(r"\\\1", text)


@dataclass
class _Block:
    """A block being collected: its inline pieces and how it is prefixed."""

    kind: str  # "p", "h", "li", "pre", "cell"
    level: int = 0
    prefix: str = ""
    parts: list[tuple[str, str]] = field(default_factory=list)


class _Writer:
    """One pass over the kept subtrees, collecting Markdown blocks."""

    def __init__(self, page: Page, has_kept: np.ndarray, leaf_keep: np.ndarray,
                 links: bool) -> None:
        self.page = page
        self.has_kept = has_kept
        self.keep_leaf = np.zeros(page.n, dtype=bool)
        self.keep_leaf[page.text_leaves] = leaf_keep
        self.links = links
        self.out: list[str] = []  # finished blocks
        self.tight: list[bool] = []  # joined to the previous block by one newline
        self.prev_kind = ""
        self.lists: list[list[int | str]] = []  # stack of [tag, items so far]
        self.quote = 0
        self.cur: _Block | None = None
        self.table: list[list[str]] | None = None
        self.table_root = -1
        self.row: list[str] | None = None
        self.marks: list[tuple[int, int, _Block]] = []  # open <a>/<code>: (node, part, block)

    # ---------------------------------------------------------------- blocks
    def flush(self) -> None:
        b, self.cur = self.cur, None
        if b is None:
            return
        if b.kind == "pre":
            text = "".join(r for r, _ in b.parts).strip("\n")
        else:
            text = join_inline(b.parts).strip()
        if not text.strip():
            return
        if b.kind == "cell":
            if self.row is not None:
                self.row[-1] = (self.row[-1] + " " + text).strip()
            return
        if b.kind == "pre":
            fence = "```"
            while fence in text:
                fence += "`"
            block = f"{fence}\n{text}\n{fence}"
        elif b.kind == "h":
            block = "#" * b.level + " " + text.replace("\n", " ")
        else:
            block = _LINE_START.sub(r"\1\\\2", text) if b.kind == "p" else text
            block = b.prefix + block.replace("\n", "\n" + " " * len(b.prefix))
        self.emit(block, b.kind)

    def emit(self, block: str, kind: str = "p") -> None:
        if self.quote:
            block = "\n".join("> " * self.quote + line for line in block.split("\n"))
        self.out.append(block)
        self.tight.append(kind == "li" and self.prev_kind == "li")
        self.prev_kind = kind

    def open(self, kind: str, level: int = 0, prefix: str = "") -> None:
        self.flush()
        self.cur = _Block(kind, level, prefix)

    def inline(self, raw: str, norm: str) -> None:
        if self.cur is None:
            self.cur = _Block("p")
        self.cur.parts.append((raw, norm))

    # ---------------------------------------------------------------- walk
    def run(self, root: int) -> str:
        page = self.page
        tags = page.tag
        stack: list[tuple[int, bool]] = [(root, False)]  # (node, closing)
        pre_root = -1
        while stack:
            i, closing = stack.pop()
            if closing:
                if i == pre_root:
                    self.flush()
                    pre_root = -1
                elif pre_root < 0:
                    self.close(i, tags[i])
                continue
            if page.kind[i] == TEXT:
                if self.keep_leaf[i]:
                    raw = page.text[i]
                    if pre_root >= 0:
                        self.inline(raw, raw)
                    else:
                        self.inline(raw, _escape(normalize_text(raw)))
                continue
            if not self.has_kept[i] and tags[i] != "br":
                continue
            if pre_root < 0:
                if tags[i] == "pre":
                    self.open("pre")
                    pre_root = i
                else:
                    self.enter(i, tags[i])
            stack.append((i, True))
            stack.extend((c, False) for c in reversed(page.children(i).tolist()))
        self.flush()
        return self.render()

    def enter(self, i: int, tag: str) -> None:
        in_table = self.table is not None
        if tag in ("a", "code"):
            if self.cur is None:
                self.cur = _Block("p")
            self.marks.append((i, len(self.cur.parts), self.cur))
        elif in_table:
            if tag == "tr":
                self.flush()
                self.row = []
                self.table.append(self.row)  # type: ignore[union-attr]
            elif tag in ("td", "th"):
                self.flush()
                if self.row is None:
                    self.row = []
                    self.table.append(self.row)  # type: ignore[union-attr]
                self.row.append("")
                self.cur = _Block("cell")
            elif tag in BLOCK_TAGS and self.cur is not None:
                self.cur.parts.append((" ", ""))  # <br>, <p> in a cell: a space
        elif tag in _HEADINGS:
            self.open("h", _HEADINGS[tag])
        elif tag in _LISTS:
            self.flush()
            self.lists.append([tag, 0])
        elif tag == "li":
            bullet, indent = "- ", ""
            if self.lists:
                lst = self.lists[-1]
                lst[1] = int(lst[1]) + 1
                bullet = f"{lst[1]}. " if lst[0] == "ol" else "- "
                indent = "  " * (len(self.lists) - 1)
            self.open("li", prefix=indent + bullet)
        elif tag == "blockquote":
            self.flush()
            self.quote += 1
        elif tag == "table" and self._is_data_table(i):
            self.flush()
            self.table, self.table_root, self.row = [], i, None
        elif tag == "br":
            if self.cur is not None and self.cur.parts:
                self.cur.parts.append(("\n", "\n"))
        elif tag in BLOCK_TAGS:
            if self.cur is not None and self.cur.kind == "li" and not self.cur.parts:
                return  # <li><p>text</p></li>: the paragraph is the item's text
            self.flush()

    def close(self, i: int, tag: str) -> None:
        if self.marks and self.marks[-1][0] == i:
            self._close_mark(tag)
            return
        if self.table is not None:
            if tag == "table" and i == self.table_root:
                self.flush()
                rows, self.table, self.row = self.table, None, None
                self._emit_table(rows)
            elif tag in ("td", "th"):
                self.flush()
            return
        if tag in _LISTS:
            self.flush()
            if self.lists:
                self.lists.pop()
            if not self.lists:
                self.prev_kind = "list"  # the next list is another list: a blank line
        elif tag == "blockquote":
            self.flush()
            self.quote = max(0, self.quote - 1)
        elif tag in BLOCK_TAGS and tag != "br":
            self.flush()

    def _close_mark(self, tag: str) -> None:
        i, start, blk = self.marks.pop()
        if blk is not self.cur or len(blk.parts) <= start:
            return
        parts = blk.parts[start:]
        if tag == "code":
            inner = join_inline([(r, normalize_text(r)) for r, _ in parts])
            tick = "``" if "`" in inner else "`"
            inner = f"{tick}{inner}{tick}"
        else:
            inner = join_inline(parts)
            href = safe_url(self.page.attrs[i].get("href"), self.page.url)
            if self.links and href and inner.strip():
                href = href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
                inner = f"[{inner}]({href})"
        # keep the outer whitespace of the raw text, for joining with the neighbours
        blk.parts[start:] = [(parts[0][0][:1] + "x" + parts[-1][0][-1:], inner)]

    def _is_data_table(self, i: int) -> bool:
        """A table whose kept cells hold no block structure (lists, headings, tables...)."""
        page = self.page
        for j in range(i + 1, int(page.subtree_end[i])):
            if page.tag[j] in _CELL_BLOCKS and self.has_kept[j]:
                return False
        return True

    def _emit_table(self, rows: list[list[str]]) -> None:
        rows = [r for r in rows if any(c.strip() for c in r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        if width == 1:  # a one-column "table" reads better as paragraphs
            for r in rows:
                self.emit(r[0])
            return
        lines = []
        for k, r in enumerate(rows):
            cells = [c.replace("\n", " ") for c in r] + [""] * (width - len(r))
            lines.append("| " + " | ".join(cells) + " |")
            if k == 0:
                lines.append("|" + " --- |" * width)
        self.emit("\n".join(lines), "table")

    def render(self) -> str:
        parts: list[str] = []
        for k, (block, tight) in enumerate(zip(self.out, self.tight, strict=True)):
            if k:
                parts.append("\n" if tight else "\n\n")
            parts.append(block)
        return "".join(parts) + ("\n" if parts else "")


def to_markdown(page: Page, leaf_keep: np.ndarray, links: bool = False) -> str:
    """Markdown of the kept text of ``page`` (``leaf_keep``: bool per visible text leaf)."""
    leaf_keep = np.asarray(leaf_keep, dtype=bool)
    if not leaf_keep.any():
        return ""
    _, kept = kept_counts(page, leaf_keep)
    return _Writer(page, kept > 0, leaf_keep, links).run(page.body if page.n else 0)
