"""Markdown output: headings, paragraphs, lists, tables, code blocks and (optionally) links.

Built from the Page and the kept-leaf mask alone, so it works for every method and for
rendered and parsed pages alike: the walk descends only into subtrees that hold kept text,
and every piece of markup is decided by tag names (a ``<ul>`` becomes a list even when only
some of its items are kept). Inline text is joined as the browser shows it
(:mod:`webseg.clean.layout`: no space where the source has none). What a careful writer does:

* tables with data (cells without block content) become GitHub tables, one column per grid
  column: an empty cell stays an empty cell, ``colspan`` and ``rowspan`` are expanded with
  empty cells, so values stay in their columns; a ``<br>`` in a cell is ``<br>`` and a small
  table in a cell becomes lines of that cell; layout tables (cells holding lists, headings...,
  or a single row: page columns side by side) are unwrapped into their blocks;
* nested lists are indented to their parent item's text (2 columns under ``- ``, 3 under
  ``1. ``), so every CommonMark reader nests them; ordered lists count from ``start`` (down
  when ``reversed``); an item starting with a checkbox is a task (``- [x] done``);
* code blocks (``pre``, multi-line ``code``) are fenced verbatim, with the language when a
  ``language-x`` / ``lang-x`` class names it; inline ``code`` is in backticks;
* ``b``/``strong`` are ``**bold**``, ``i``/``em`` ``*italic*`` (not inside headings),
  ``del``/``s`` ``~~struck~~``;
  ``sub``/``sup`` of digits and signs become Unicode sub/superscripts (H₂O, E=mc²), other
  ones stay glued to their word;
* definition lists are ``term`` / ``: definition`` lines, blockquotes ``>``.

Text is escaped so that it cannot turn into markup, or into raw HTML when the Markdown is
rendered, and only where it could (``snake_case``, ``a < b`` and ``[1]`` stay as written).

Why not a library (markdownify, html2text): they convert HTML, so the kept subtrees would be
serialised (:mod:`webseg.clean.html_out`) and parsed again with BeautifulSoup for every page,
and they know nothing of the kept-leaf mask or the Page's whitespace record. Measured on the
structure cases (``bench/markdown_vs_markdownify.py``): markdownify 1.2.3 on our HTML output
(which carries the whitespace and the code language) passes 41 of the 49 Markdown checks when
its presentation choices are forgiven, this walk 49; of the 8, rowspan (values move to the
wrong column) is a real loss, the rest are choices (sub/sup glued as ``H2O``, emphasis kept
in headings, no definition-list syntax). The walk also costs about a third of markdownify's
CPU, before counting the HTML serialisation markdownify needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin

import numpy as np

from webseg.clean.layout import (
    NONE,
    ROW,
    clean_chars,
    collapse_lines,
    is_data_table,
    joints,
    pre_line,
    pre_roots,
)
from webseg.clean.mask import kept_counts
from webseg.clean.txt import BLOCK_TAGS, reading_keep
from webseg.page import TEXT, Page, normalize_text

__all__ = ["to_markdown", "safe_url"]

_HEADINGS = {f"h{k}": k for k in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "menu"})
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*"}
#: Deleted text: GitHub's strikethrough, so a correction reads as one (``~~450~~ 480``).
_STRIKE = frozenset({"del", "s", "strike"})
_MARKS = frozenset({"a", "code", "sub", "sup", *_EMPHASIS, *_STRIKE})
#: Class names that name a code block's language, most explicit first: ``language-x`` (the
#: HTML standard's suggestion, highlight.js, Prism), ``lang-x`` (Stack Overflow's hint),
#: ``highlight-source-x`` / ``highlight-text-x`` (GitHub), ``highlight-x`` (Sphinx), ``brush:
#: x`` (SyntaxHighlighter).
_LANGS = (re.compile(r"(?:^|\s)language-([A-Za-z0-9_+#.-]{1,30})"),
          re.compile(r"(?:^|\s)lang-([A-Za-z0-9_+#.-]{1,30})"),
          re.compile(r"(?:^|\s)highlight-(?:source|text)-([A-Za-z0-9_+#]{1,30})"),
          re.compile(r"(?:^|\s)highlight-(?!source-|text-|default\b)([A-Za-z0-9_+#]{1,30})"),
          re.compile(r"(?:^|\s)brush:\s*([A-Za-z0-9_+#]{1,30})"))
_SUB = str.maketrans("0123456789+-=()", "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087"
                     "\u2088\u2089\u208a\u208b\u208c\u208d\u208e")
_SUP = str.maketrans("0123456789+-=()n", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076"
                     "\u2077\u2078\u2079\u207a\u207b\u207c\u207d\u207e\u207f")
#: Characters that would turn text into markup, escaped only where they would: ``*`` and
#: backticks anywhere, ``_`` at a word's edge (``snake_case`` stays as written: CommonMark
#: never reads an underscore inside a word as emphasis), ``<`` before a tag's name (raw HTML),
#: ``]`` before ``(``/``[``/``:`` (a link), a backslash before punctuation (an escape).
_ESCAPE = re.compile(r"([`*])|(?<![^\W_])_|_(?![^\W_])|<(?=[A-Za-z/!?])|\](?=[(\[:])|"
                     r"\\(?=[!-/:-@\[-`{-~])")
_ESCAPE_CELL = re.compile(r"\|")
_LINE_START = re.compile(r"^(\s*)(?:([#+\-=>])|(\d+)([.)]))(?=\s|$)", re.M)
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


def _escape(text: str, cell: bool = False) -> str:
    """``text`` with the characters of :data:`_ESCAPE` escaped (and ``|`` in a table cell)."""
    text = _ESCAPE.sub(lambda m: "\\" + m.group(0), text)
    return _ESCAPE_CELL.sub(r"\\|", text) if cell else text


def _escape_line_start(text: str) -> str:
    """Text that would start a heading, a list item or a quote at a line start escaped
    (``\\# not a heading``, ``1\\. not a list``): CommonMark escapes the mark, and for a
    number its dot or parenthesis."""
    return _LINE_START.sub(lambda m: m.group(1) + (
        "\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), text)


@dataclass
class _Block:
    """A block being collected: its inline pieces and how it is prefixed.

    ``parts`` are ``(sep, text, raw)``: the separator before the piece (``""`` where the
    source glues it to the previous one, ``" "``, or ``"\n"`` for a ``<br>``), the escaped
    Markdown text and the raw text (for inline code, which is not escaped)."""

    kind: str  # "p", "h", "li", "pre", "cell", "dd"
    level: int = 0
    prefix: str = ""
    parts: list[tuple[str, str, str]] = field(default_factory=list)
    lang: str = ""
    #: A ``pre`` block that keeps only its line breaks (``white-space: pre-line``).
    lines: bool = False
    #: The parts that are emphasis, by index: their mark (``**``, ``*``), so that two runs of
    #: one emphasis glued together (``<b>Har</b><b>bour</b>``) become one (``**Harbour**``).
    emph: dict[int, str] = field(default_factory=dict)
    #: The parts that are inline code, by index: their text, so that two code spans glued
    #: together become one.
    code: dict[int, str] = field(default_factory=dict)


def _join(parts: list[tuple[str, str, str]]) -> str:
    out: list[str] = []
    for sep, text, _ in parts:
        if sep == "\n":
            if out and out[-1] != "\n":
                out.append("\n")
            if text:  # a block box inside the block (``<span style="display:block">``)
                out.append(text)
            continue
        if not text:
            continue
        if out and out[-1] != "\n" and sep:
            out.append(sep)
        out.append(text)
    return "".join(out).strip(" ")


class _Writer:
    """One pass over the kept subtrees, collecting Markdown blocks."""

    def __init__(self, page: Page, has_kept: np.ndarray, leaf_keep: np.ndarray,
                 links: bool) -> None:
        self.page = page
        self.has_kept = has_kept
        self.keep_leaf = np.zeros(page.n, dtype=bool)
        self.keep_leaf[page.text_leaves] = leaf_keep
        kept = page.text_leaves[np.asarray(leaf_keep, dtype=bool)]
        sep, ws, _ = joints(page, kept)
        #: per kept leaf: the separator before it inside a block, the verbatim whitespace
        #: before it inside a code block
        self.sep: dict[int, str] = {}
        self.ws: dict[int, str] = {}
        for k, j in enumerate(kept.tolist()):
            self.sep[j] = "" if sep[k] == NONE else "\n" if sep[k] >= ROW else " "
            self.ws[j] = ws[k] + ("\n" if sep[k] >= ROW and "\n" not in ws[k] else "")
        self.pre_root = pre_roots(page)
        self.links = links
        self.out: list[str] = []  # finished blocks
        self.tight: list[bool] = []  # joined to the previous block by one newline
        self.prev_kind = ""
        self.lists: list[list] = []  # stack of [tag, items so far, bullet width]
        self.quote = 0
        self.heading = 0
        self.cur: _Block | None = None
        self.table: list[list[str]] | None = None
        self.table_root = -1
        self.row: list[str] | None = None
        self.spans: list[int] = []  # rows still covered by a rowspan, per column
        self.cell_col = 0  # the column of the cell being collected
        self.nested = 0  # small tables open inside a cell of the table: lines of the cell
        self.quotes: list[int] = []  # blockquote depth of every finished block
        self.marks: list[tuple[int, int, _Block]] = []  # open inline marks: (node, part, block)

    # ---------------------------------------------------------------- blocks
    def flush(self) -> None:
        b, self.cur = self.cur, None
        if b is None:
            return
        if b.kind == "pre":  # no-break spaces indent code on some sites: spaces to copy
            text = "".join(t for _, t, _ in b.parts).strip("\n").rstrip().replace("\xa0", " ")
            if b.lines:  # white-space: pre-line: a paragraph of lines, not code
                b.kind, text = "p", _escape(collapse_lines(text))
        else:
            text = _join(b.parts).strip()
        if not text.strip():
            return
        if b.kind == "cell":
            if self.row is not None and self.cell_col < len(self.row):
                c = self.cell_col
                self.row[c] = (self.row[c] + " " + text).strip()
            return
        if b.kind == "pre":
            fence = "```"
            while fence in text:
                fence += "`"
            block = f"{fence}{b.lang}\n{text}\n{fence}"
            if self.lists:
                block = block.replace("\n", "\n" + self._indent(len(self.lists)))
                block = self._indent(len(self.lists)) + block
        elif b.kind == "h":
            block = "#" * b.level + " " + text.replace("\n", " ")
        else:
            block = _escape_line_start(text) if b.kind in ("p", "dd", "dt") else text
            block = b.prefix + block.replace("\n", "\n" + " " * len(b.prefix))
            if b.kind == "p" and self.lists:  # a paragraph inside a list item: indented
                ind = self._indent(len(self.lists))
                block = ind + block.replace("\n", "\n" + ind)
        self.emit(block, b.kind)

    def _indent(self, depth: int) -> str:
        """Spaces that put a block under the text of the items of the ``depth`` outer lists."""
        return " " * sum(int(lst[2]) for lst in self.lists[:depth])

    def emit(self, block: str, kind: str = "p") -> None:
        if self.quote:
            block = "\n".join(("> " * self.quote + line).rstrip() for line in block.split("\n"))
        self.out.append(block)
        self.quotes.append(self.quote)
        self.tight.append(kind == "li" and self.prev_kind == "li"
                          or kind == "dd" and self.prev_kind in ("dt", "dd")
                          or kind == "dt" and self.prev_kind == "dt")  # terms of one definition
        self.prev_kind = kind

    def open(self, kind: str, level: int = 0, prefix: str = "") -> None:
        self.flush()
        self.cur = _Block(kind, level, prefix)

    def inline(self, sep: str, text: str, raw: str) -> None:
        if self.cur is None:
            self.cur = _Block("p")
        self.cur.parts.append((sep, text, raw))

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
                    raw = clean_chars(page.text[i])
                    if pre_root >= 0:
                        self.inline("", self.ws.get(i, "") + raw, raw)
                    else:
                        self.inline(self.sep.get(i, " "),
                                    _escape(normalize_text(raw), self.table is not None), raw)
                continue
            if tags[i] == "input" and self.cur is not None and self.cur.kind == "li" \
                    and not self.cur.parts:
                self._task_box(i)
            in_cells = self.table is not None and tags[i] in ("td", "th") and self.row is not None
            if not self.has_kept[i] and tags[i] != "br" and not in_cells:
                continue
            if pre_root < 0:
                if self.pre_root[i] == i:
                    self.open("pre")
                    self.cur.lang = self._language(i)  # type: ignore[union-attr]
                    self.cur.lines = pre_line(page, i)  # type: ignore[union-attr]
                    pre_root = i
                else:
                    self.enter(i, tags[i])
            stack.append((i, True))
            stack.extend((c, False) for c in reversed(page.children(i).tolist()))
        self.flush()
        return self.render()

    def _task_box(self, i: int) -> None:
        """A checkbox that starts a list item: a task list item (``- [x] done``)."""
        a = self.page.attrs[i] or {}
        if (a.get("type") or "").lower() == "checkbox" and self.cur is not None:
            self.cur.prefix += "[x] " if "checked" in a else "[ ] "

    def _language(self, i: int) -> str:
        """The language a class names (:data:`_LANGS`, the most explicit kind first) on the
        code block, the first elements inside it or the wrappers around it (GitHub's and
        Sphinx's ``div.highlight-...`` around the ``pre``), else ``""``."""
        page = self.page
        nodes = list(range(i, min(int(page.subtree_end[i]), i + 50)))
        up = int(page.parent[i])
        for _ in range(3):  # the wrappers: div.highlight > div.highlight-source-x > pre
            if up < 0 or page.tag[up] in ("body", "html", "article", "main", "section"):
                break
            nodes.append(up)
            up = int(page.parent[up])
        classes = [page.attrs[j].get("class", "") for j in nodes if page.attrs[j]]
        for pat in _LANGS:
            for c in classes:
                m = pat.search(c)
                if m:
                    return m.group(1).lower()
        return ""

    def enter(self, i: int, tag: str) -> None:
        in_table = self.table is not None
        if tag in _MARKS and not (tag != "a" and self._plain_inside(tag)):
            if self.cur is None:
                self.cur = _Block("p")
            self.marks.append((i, len(self.cur.parts), self.cur))
        elif in_table and (tag == "table" or self.nested):
            # a small table in a cell (a timetable beside its line): its rows are lines of
            # the cell and its cells words, since a GitHub table cannot hold a table
            if tag == "table":
                self.nested += 1
            if self.cur is not None and self.cur.parts and tag in ("table", "tr", "br"):
                self.cur.parts.append(("\n", "", ""))
            elif self.cur is not None and tag in ("td", "th"):
                self.cur.parts.append((" ", "", ""))
        elif in_table:
            if tag == "tr":
                self.flush()
                self.row = []
                self.table.append(self.row)  # type: ignore[union-attr]
                self._spanned()
            elif tag in ("td", "th"):
                self.flush()
                if self.row is None:
                    self.row = []
                    self.table.append(self.row)  # type: ignore[union-attr]
                self._spanned()
                col = len(self.row)
                a = self.page.attrs[i]
                cs, rs = _span(a.get("colspan")), _span(a.get("rowspan"))
                self.row.append("")
                self.cell_col = col
                self.cur = _Block("cell")
                self.row.extend([""] * (cs - 1))
                while len(self.spans) < col + cs:
                    self.spans.append(0)
                for c in range(col, col + cs):
                    self.spans[c] = rs - 1
            elif tag == "br" and self.cur is not None:
                self.cur.parts.append(("\n", "", ""))  # a line in a cell: <br> below
            elif tag in BLOCK_TAGS and self.cur is not None:
                self.cur.parts.append((" ", "", ""))  # <p> in a cell: a space
        elif tag in _HEADINGS:
            self.open("h", _HEADINGS[tag])
            self.heading += 1
        elif tag in _LISTS:
            self.flush()
            self.lists.append([tag, 0, 2, *self._numbering(i)])
        elif tag == "li":
            bullet, indent = "- ", ""
            if self.lists:
                lst = self.lists[-1]
                lst[1] = int(lst[1]) + 1
                m = re.match(r"\s*(-?\d{1,9})", (self.page.attrs[i] or {}).get("value") or "")
                if m and lst[0] == "ol":  # <li value="5">: this item and the next count on
                    lst[3] = int(m.group(1)) - lst[4] * (lst[1] - 1)
                bullet = f"{lst[3] + lst[4] * (lst[1] - 1)}. " if lst[0] == "ol" else "- "
                indent = self._indent(len(self.lists) - 1)
                lst[2] = len(bullet)
            self.open("li", prefix=indent + bullet)
        elif tag == "dt":
            self.open("dt")
        elif tag == "dd":
            self.open("dd", prefix=": ")
        elif tag == "blockquote":
            self.flush()
            self.quote += 1
        elif tag == "table" and self._is_data_table(i):
            self.flush()
            self.table, self.table_root, self.row, self.spans = [], i, None, []
        elif tag == "br":
            if self.cur is not None and self.cur.parts:
                if self.cur.kind == "p" and self.cur.parts[-1][:2] == ("\n", ""):
                    # <br><br>: the page shows a blank line, so a new paragraph (a single
                    # newline would join the two in Markdown)
                    self.cur.parts.pop()
                    self.flush()
                else:
                    self.cur.parts.append(("\n", "", ""))
        elif tag in BLOCK_TAGS:
            if self.cur is not None and self.cur.kind in ("li", "dd", "dt") \
                    and not self.cur.parts:
                return  # <li><p>text</p></li>: the paragraph is the item's text
            self.flush()

    def _numbering(self, i: int) -> tuple[int, int]:
        """The first number and the step of an ordered list: ``start`` (default 1, or the
        item count for ``reversed``), step -1 when ``reversed`` (counted over its items)."""
        a = self.page.attrs[i] or {}
        step = -1 if "reversed" in a else 1
        m = re.match(r"\s*(-?\d{1,9})", a.get("start") or "")
        if m:
            return int(m.group(1)), step
        if step > 0:
            return 1, 1
        return sum(self.page.tag[c] == "li" for c in self.page.children(i).tolist()), -1

    def _plain_inside(self, tag: str) -> bool:
        """No emphasis in a heading (it is emphasised already) and no markup in inline code
        (backticks show their content literally)."""
        if self.heading and tag in _EMPHASIS:
            return True
        return any(self.page.tag[m[0]] == "code" for m in self.marks)

    def _spanned(self) -> None:
        """Empty cells for the columns a rowspan from an earlier row covers at this point."""
        row = self.row
        assert row is not None
        while len(row) < len(self.spans) and self.spans[len(row)] > 0:
            self.spans[len(row)] -= 1
            row.append("")

    def close(self, i: int, tag: str) -> None:
        if self.marks and self.marks[-1][0] == i:
            self._close_mark(tag)
            return
        if self.table is not None:
            if tag == "table" and i != self.table_root:
                self.nested = max(0, self.nested - 1)
            elif self.nested:
                pass
            elif tag == "table" and i == self.table_root:
                self.flush()
                rows, self.table, self.row = self.table, None, None
                self._emit_table(rows)
            elif tag in ("td", "th"):
                self.flush()
            elif tag == "tr" and self.row is not None:
                self._spanned()
            return
        if tag in _HEADINGS:
            self.heading = max(0, self.heading - 1)
            self.flush()
        elif tag in _LISTS:
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
        sep = parts[0][0] if parts[0][0] != "\n" else " "
        if tag == "code":
            inner = "".join((s if k else "") + r for k, (s, _, r) in enumerate(parts)
                            if r or s != "\n")  # not a <br> mark (a "\n" with no text)
            inner = inner.replace("\n", " ").strip()
            if not inner:
                return
            if parts[0][0] == "" and start - 1 in blk.code:  # glued to the code before it
                start -= 1  # (``<code>U+00DF</code><code>0x C3</code>``): one span, not
                sep = blk.parts[start][0]  # two that read as a double-backtick fence
                inner = blk.code[start] + inner
            blk.code[start] = inner
            tick = "`"
            while tick in inner:
                tick += "`"
            pad = " " if inner.startswith("`") or inner.endswith("`") else ""
            inner = f"{tick}{pad}{inner}{pad}{tick}"
            if self.table is not None:  # GitHub tables split cells at every unescaped pipe,
                inner = _ESCAPE_CELL.sub(r"\\|", inner)  # in code spans too
        elif tag in _STRIKE:
            inner = _join(parts).strip()
            if not inner or "\n" in inner or "~~" in inner:
                return
            inner = f"~~{inner}~~"
        elif tag in _EMPHASIS:
            inner = _join(parts).strip()
            if not inner or "\n" in inner:
                return
            mark = _EMPHASIS[tag]
            if "**" in inner and mark == "**" or inner.startswith("*") and mark == "*":
                return  # nested emphasis of the same kind: once is enough
            inner = f"{mark}{inner}{mark}"
            before = blk.parts[start - 1][1] if start else ""
            if parts[0][0] == "" and blk.emph.get(start - 1) == mark \
                    and before.endswith(mark):  # glued to the same emphasis: one run
                sep = blk.parts[start - 1][0]
                inner = before[:-len(mark)] + inner[len(mark):]
                start -= 1
            blk.emph[start] = mark
        elif tag in ("sub", "sup"):
            inner = _join(parts).strip()
            plain = "".join(r for _, _, r in parts).strip()
            table = _SUB if tag == "sub" else _SUP
            conv = plain.translate(table)
            if plain and not any(a == b for a, b in zip(plain, conv, strict=True)):
                inner = conv
        else:
            inner = _join(parts)
            href = safe_url(self.page.attrs[i].get("href"), self.page.url)
            if self.links and href and inner.strip():
                href = href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
                inner = f"[{inner}]({href})"
        for k in [k for k in blk.emph if k > start or k == start and tag not in _EMPHASIS]:
            del blk.emph[k]  # parts merged into this one
        for k in [k for k in blk.code if k > start or k == start and tag != "code"]:
            del blk.code[k]
        blk.parts[start:] = [(sep, inner, inner)]

    def _is_data_table(self, i: int) -> bool:
        """A table whose kept cells hold no block structure (:func:`is_data_table`)."""
        return is_data_table(self.page, i, self.has_kept)

    def _emit_table(self, rows: list[list[str]]) -> None:
        rows = [r for r in rows if any(c.strip() for c in r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        if width == 1 or len(rows) == 1:  # one column, or one row (a layout table: page
            for r in rows:  # columns side by side): paragraphs read better
                for c in r:
                    if c.strip():
                        self.emit(c.strip("\n").replace("\n", "  \n"))
            return
        lines = []
        for k, r in enumerate(rows):
            # a line break in a cell (``<br>``) as GitHub tables write it
            cells = [c.strip("\n").replace("\n", "<br>") for c in r] + [""] * (width - len(r))
            lines.append("| " + " | ".join(cells) + " |")
            if k == 0:
                lines.append("|" + " --- |" * width)
        ind = self._indent(len(self.lists))  # a table in a list item: under its text
        self.emit("\n".join(ind + line.replace("|  |", "| |").replace("|  |", "| |")
                            for line in lines), "table")

    def render(self) -> str:
        parts: list[str] = []
        for k, (block, tight) in enumerate(zip(self.out, self.tight, strict=True)):
            if k:
                q = min(self.quotes[k], self.quotes[k - 1])
                # blocks of one quote stay in it: the blank line between them is quoted too
                parts.append("\n" if tight else "\n" + ">" * q + "\n" if q else "\n\n")
            parts.append(block)
        return "".join(parts) + ("\n" if parts else "")


def _span(v: str | None) -> int:
    """A colspan/rowspan value as browsers read it: a positive integer, 1 when invalid,
    capped (browsers cap at 1000 columns / 65534 rows; a Markdown table needs far fewer)."""
    m = re.match(r"\s*(\d+)", v or "")
    return min(max(int(m.group(1)), 1), 100) if m else 1


def to_markdown(page: Page, leaf_keep: np.ndarray, links: bool = False) -> str:
    """Markdown of the kept text of ``page`` (``leaf_keep``: bool per visible text leaf)."""
    leaf_keep = reading_keep(page, leaf_keep)  # no line numbers, no ruby readings
    if not leaf_keep.any():
        return ""
    _, kept = kept_counts(page, leaf_keep)
    return _Writer(page, kept > 0, leaf_keep, links).run(page.body if page.n else 0)
