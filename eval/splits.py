"""Fixed page splits, so that anything tuned or trained never sees the pages it is scored on.

A page's split depends only on its id (SHA-1 of the id, first 8 hex digits as a fraction), so it
is stable when pages are added or removed and identical on every machine:

* ``train``  fraction < 0.25   (fit models, tune thresholds)
* ``val``    0.25 <= f < 0.5   (choose hyper-parameters such as lambda, PDoC, theta)
* ``test``   f >= 0.5          (report only)

This is the 25:25:50 page split of Chakrabarti et al. (WWW 2008). Methods that need no
validation set tune on ``train`` + ``val`` together (the "dev" pages).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def split_of(page_id: str) -> str:
    f = int(hashlib.sha1(page_id.encode("utf-8")).hexdigest()[:8], 16) / 16**8
    return "train" if f < 0.25 else ("val" if f < 0.5 else "test")


def select(page_ids: Iterable[str], *splits: str) -> list[str]:
    """The ids that fall in any of ``splits`` ("dev" means train + val), in input order."""
    want = set(splits)
    if "dev" in want:
        want |= {"train", "val"}
    return [p for p in page_ids if split_of(p) in want]
