"""Evaluation of template-stripped near-duplicate detection (``python -m eval.dedup``).

* :mod:`eval.dedup.build` - the Lyrics-style semi-synthetic benchmark builder;
* :mod:`eval.dedup.harness` - Table 2 per strategy and precision/recall vs match threshold on
  any pairs file;
* :mod:`eval.dedup.natural` - natural pairs of the shared sets, labelled by their gold text;
* :mod:`eval.dedup.collection` - the ``webseg dedup`` pipeline on whole shared sets (cached).
"""
