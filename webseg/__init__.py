"""webseg: split web pages into visually and semantically coherent blocks.

Main entry points: :class:`webseg.render.Renderer` (Chromium -> :class:`webseg.page.Page`),
:func:`webseg.parse.parse` (no browser, no layout), :func:`webseg.segmenters.get_segmenter`
(-> :class:`webseg.segmentation.Segmentation`) and :mod:`webseg.metrics`.
"""

__version__ = "0.1.0"
