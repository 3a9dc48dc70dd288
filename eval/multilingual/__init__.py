"""Multilingual evaluation on the shared daniel-dev pages (zh, ru, el, pl, en).

* :mod:`eval.multilingual.langid` - language identification: accuracy and ms per page of the
  detector behind :func:`webseg.lang.identify` (and of lingua, when it is installed);
* :mod:`eval.multilingual.search` - known-item search per language (success@10, MRR), webseg's
  analyzer against bm25s's default tokenizer in the same run.
"""

DANIEL = "../shared/data/boilerplate/daniel-dev"
