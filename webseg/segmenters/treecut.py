"""``treecut``: learned two-level DOM tree cut combining DOM, visual and text-density cues.

See :mod:`webseg.treecut` (exact DP over cuts of the content tree, a learned same-block pair
fraction per node from node features and from how ``dom``, ``vips`` and ``blockfusion`` treat
the node). The shipped model ``webseg/models/treecut.json`` is trained on all 81 kreuzer-random
pages with the pair weights chosen by 4-fold cross-validation (``eval/results/cv``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webseg.page import Page
from webseg.segmentation import Segmentation
from webseg.segmenters.base import ModelBacked, register
from webseg.treecut import TreeCutModel, segment


@register("treecut", "learned two-level DOM tree cut over dom/vips/blockfusion cues")
@dataclass
class TreeCutSegmenter(ModelBacked):
    """Tree cut with a trained model (``webseg/models/treecut.json`` by default)."""

    model: str | None = None
    name: str = "treecut"
    needs_layout: bool = True
    _model: TreeCutModel | None = field(default=None, init=False, repr=False)
    model_type = TreeCutModel

    def _read_model(self) -> TreeCutModel:
        return TreeCutModel.load(self.model)

    def segment(self, page: Page) -> Segmentation:
        page.require_layout()
        return segment(page, self.get_model(), self.name)
