"""Evaluation of PageLevel template detection and main-content extraction (issue 5).

``python -m eval.templates --data DIR [--data DIR ...] --out DIR``; see
:mod:`eval.templates.harness` for the protocol, :mod:`eval.templates.textmetrics` for the
metrics and the gold alignment, :mod:`eval.templates.peers` for the compared extractors.
"""
