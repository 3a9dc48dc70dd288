"""The block-function view: how a page's visible text divides among block roles.

A forum thread is mostly ``comments``; a listing is mostly ``related`` / ``navigation`` with
little ``main``; an article is mostly ``main``. :func:`block_shares` gives the share of visible
text characters per role of :mod:`webseg.blocks`, as ``role:<name> -> share``.
When that module is absent the view is empty (``{}``), so models trained without it still load.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from webseg.page import Page

__all__ = ["add_block_view", "block_shares", "blocks_available"]


def blocks_available() -> bool:
    try:
        import webseg.blocks  # noqa: F401
    except ImportError:
        return False
    return True


def block_shares(page: Page) -> dict[str, float]:
    """``{"role:main": 0.62, "role:other": 0.38, ...}`` plus the shape of the kept main
    content: ``kept_leaves`` (share of visible text leaves kept), ``kept_runs`` (log of the
    number of contiguous runs of kept leaves: one for an article, many for a forum thread or
    a listing) and ``main_mean`` (mean P(main) over text leaves). {} without webseg.blocks."""
    try:
        from webseg.blocks import block_functions
    except ImportError:
        return {}
    import math

    import numpy as np

    bf = block_functions(page)
    out = {f"role:{k}": float(v) for k, v in bf.role_shares().items()}
    leaves = page.text_leaves
    if len(leaves):
        kept = np.asarray(bf.keep, dtype=bool)[leaves]
        runs = int(kept[0]) + int(np.count_nonzero(kept[1:] & ~kept[:-1]))
        out.update(kept_leaves=float(kept.mean()), kept_runs=math.log1p(runs),
                   main_mean=float(np.asarray(bf.main, dtype=float)[leaves].mean()))
    return out


def _key() -> str:
    """Hash of the block model's code and weights and of this file (the view cache key)."""
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(b"blocks-view:1")
    files = [Path(__file__).resolve(), root / "webseg/models/blocks.json.gz",
             *sorted((root / "webseg/blocks").glob("*.py"))]
    for f in files:
        h.update(f.read_bytes() if f.is_file() else b"<missing>")
    return h.hexdigest()[:12]


def add_block_view(records: Sequence[Any], views: dict[str, dict[str, Any]],
                   log: Callable[[str], None] = print) -> None:
    """Add ``views[id]["blocks"]`` for every record with views, from the render cache
    (cached per dataset in ``.cache/webseg/classify/<dataset>/blocks-<key>.json.gz``)."""
    from pathlib import Path

    from classify.corpus import VIEW_CACHE, _load_page, _read, _write
    from webseg.datasets import DEFAULT_CACHE

    if not blocks_available():
        log("webseg.blocks is not available: the blocks view is empty")
    key = _key()
    stores: dict[str, tuple[Path, dict[str, Any]]] = {}
    for k, r in enumerate(records):
        v = views.get(r.id)
        if v is None:
            continue
        if r.dataset not in stores:
            f = Path(VIEW_CACHE) / r.dataset / f"blocks-{key}.json.gz"
            stores[r.dataset] = (f, _read(f))
        store = stores[r.dataset][1]
        if r.id not in store:
            page, _ = _load_page(DEFAULT_CACHE, r)
            try:
                store[r.id] = block_shares(page) if page is not None else {}
            except Exception as e:  # noqa: BLE001 - a page the model fails on: empty view
                log(f"  {r.id}: blocks: {type(e).__name__}: {e}")
                store[r.id] = {}
            if (k + 1) % 500 == 0:
                log(f"  blocks view: {k + 1}/{len(records)}")
                _write(*stores[r.dataset])
        v["blocks"] = store[r.id]
    for f, store in stores.values():
        _write(f, store)
