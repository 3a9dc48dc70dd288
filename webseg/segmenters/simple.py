"""Two reference segmenters that prove the harness end to end.

``single`` puts the whole page in one segment: the floor every real algorithm must beat on
ARI (it scores exactly 0 against any gold with more than one block).

``dom`` is the naive structural baseline: descend from ``<body>`` while a node has exactly one
visible block-level child (wrappers), then make one segment per visible block-level child, and
recurse into each child the same way to build a hierarchy ``max_depth`` levels deep. Inline
content directly under a split node (text, links, images) is gathered into one segment per run
of consecutive inline siblings, so no visible text is left unassigned.
"""

from __future__ import annotations

from dataclasses import dataclass

from webseg.page import ELEMENT, TEXT, Page
from webseg.segmentation import Segment, Segmentation, node_union_box, nodes_text
from webseg.segmenters.base import register

#: Tags that are block-level in HTML's default style sheet (used when there is no layout).
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog",
    "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "frameset",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "iframe", "legend",
    "li", "main", "menu", "nav", "noframes", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})
BLOCK_DISPLAYS = frozenset({"block", "flex", "grid", "table", "list-item", "table-row",
                            "table-cell", "table-row-group", "table-header-group", "flow-root",
                            "table-footer-group", "table-caption", "inline-block"})


def has_visible_content(page: Page, i: int) -> bool:
    """True when the subtree of ``i`` holds visible text or a visible sized replaced element."""
    if page.text_length[i] > 0:
        return True
    end = int(page.subtree_end[i])
    for j in range(i, end):
        if page.visible[j] and page.tag[j] in ("img", "svg", "video", "canvas", "iframe",
                                                "object", "embed", "input", "select",
                                                "textarea", "button"):
            return True
    return False


def is_block(page: Page, i: int) -> bool:
    """Block-level by computed display (rendered page) or by tag (parsed page)."""
    if page.kind[i] != ELEMENT:
        return False
    if page.has_layout:
        return page.displays[page.display[i]] in BLOCK_DISPLAYS
    return page.tag[i] in BLOCK_TAGS


@register("single", "the whole page as one segment (baseline floor)")
@dataclass
class SingleSegmenter:
    """The whole page (its ``<body>``) as one segment."""

    name: str = "single"
    needs_layout: bool = False

    def segment(self, page: Page) -> Segmentation:
        return Segmentation.from_nodes(page, [[page.body]], algorithm=self.name)


@register("dom", "visible block-level children of <body>, split recursively (baseline)")
@dataclass
class DomSegmenter:
    """Block-level DOM children, descending through single-child wrappers.

    ``max_depth`` is the number of hierarchy levels produced (level 1 = children of the first
    node with more than one content-bearing child).
    """

    max_depth: int = 2
    name: str = "dom"
    needs_layout: bool = False

    def _content_children(self, page: Page, i: int) -> list[list[int]]:
        """Groups of children of ``i``: each block child alone, runs of inline ones together."""
        groups: list[list[int]] = []
        run: list[int] = []
        for c in page.children(i).tolist():
            if page.kind[c] == TEXT:
                if page.text_leaf_mask[c]:
                    run.append(c)
                continue
            if not page.visible[c] and page.text_length[c] == 0:
                continue
            if not has_visible_content(page, c):
                continue
            if is_block(page, c):
                if run:
                    groups.append(run)
                    run = []
                groups.append([c])
            else:
                run.append(c)
        if run:
            groups.append(run)
        return groups

    def _unwrap(self, page: Page, i: int) -> tuple[int, list[list[int]]]:
        """Descend while ``i`` has exactly one content group made of one element."""
        groups = self._content_children(page, i)
        while len(groups) == 1 and len(groups[0]) == 1 and page.kind[groups[0][0]] == ELEMENT:
            i = groups[0][0]
            groups = self._content_children(page, i)
        return i, groups

    def segment(self, page: Page) -> Segmentation:
        segs: list[Segment] = []

        def build(groups: list[list[int]], parent: int | None, level: int) -> None:
            for g in groups:
                sid = len(segs)
                segs.append(Segment(id=sid, nodes=tuple(g), parent=parent,
                                    box=node_union_box(page, g), text=nodes_text(page, g)))
                if level < self.max_depth and len(g) == 1 and page.kind[g[0]] == ELEMENT:
                    _, sub = self._unwrap(page, g[0])
                    if len(sub) > 1:
                        build(sub, sid, level + 1)

        _, top = self._unwrap(page, page.body)
        build(top, None, 1)
        return Segmentation(page, segs, algorithm=self.name,
                            params={"max_depth": self.max_depth})

