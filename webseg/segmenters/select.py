"""``select``: per-page level-1 choice among vips, dom and the tree cut at its first split.

See :mod:`webseg.select`. Runs ``dom``, ``vips`` and ``blockfusion`` (the tree cut's inputs),
the shipped tree-cut model (``webseg/models/treecut.json``) and the selector model
(``webseg/models/select.json``: first split of a level-1 q trained for it, the whole page where
VIPS returns one segment; trained on all 81 kreuzer-random pages by
``python -m eval.select_whole --rows oof --ship``; 4-fold CV in
``eval/results/cv/select-whole``), so it is slower than any one of them (``bench/segment.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webseg.page import Page
from webseg.segmentation import Segmentation
from webseg.segmenters.base import ModelBacked, register
from webseg.select import SelectModel, segment
from webseg.treecut import TreeCutModel


@register("select", "per-page level-1 choice: tree cut at its first split / vips / dom")
@dataclass
class SelectSegmenter(ModelBacked):
    """Selector model (``model``) over candidates cut with a tree-cut model (``treecut``);
    ``None`` = the shipped ones."""

    model: str | None = None
    treecut: str | None = None
    name: str = "select"
    needs_layout: bool = True
    _model: SelectModel | None = field(default=None, init=False, repr=False)
    _treecut: TreeCutModel | None = field(default=None, init=False, repr=False)
    model_type = SelectModel

    def _tree_model(self) -> Any:
        if self._treecut is None:
            self._treecut = TreeCutModel.load(self.treecut)
        return self._treecut

    def segment(self, page: Page) -> Segmentation:
        page.require_layout()
        return segment(page, self.get_model(), self._tree_model(), self.name)
