"""Fixed page splits, so that anything tuned or trained never sees the pages it is scored on.

Implemented in :mod:`webseg.datasets` (trainers need it and `webseg` must not import `eval`)
and re-exported here.

A page's split depends only on its id (SHA-1 of the id, first 8 hex digits as a fraction), so it
is stable when pages are added or removed and identical on every machine:

* ``train``  fraction < 0.25   (fit models, tune thresholds)
* ``val``    0.25 <= f < 0.5   (choose hyper-parameters such as lambda, PDoC, theta)
* ``test``   f >= 0.5          (report only)

This is the 25:25:50 page split of Chakrabarti et al. (WWW 2008). Methods that need no
validation set tune on ``train`` + ``val`` together (the "dev" pages).
"""

from __future__ import annotations

from webseg.datasets import select_split as select
from webseg.datasets import split_of

__all__ = ["select", "split_of"]
