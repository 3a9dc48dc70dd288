"""Segmenters and their registry (see :mod:`webseg.segmenters.base`)."""

from webseg.segmenters.base import Segmenter, available, get_segmenter, register

__all__ = ["Segmenter", "available", "get_segmenter", "register"]
