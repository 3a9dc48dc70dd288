"""The block-function view: how a page's visible text divides among block roles.

A forum thread is mostly ``comments``; a listing is mostly ``related`` / ``navigation`` with
little ``main``; an article is mostly ``main``. :func:`block_shares` gives the share of visible
text characters per role of :mod:`webseg.blocks` (issue 14), as ``role:<name> -> share``.
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
    """``{"role:main": 0.62, "role:navigation": 0.2, ...}`` ({} without webseg.blocks)."""
    try:
        from webseg.blocks import block_functions
    except ImportError:
        return {}
    shares = block_functions(page).role_shares()
    return {f"role:{k}": float(v) for k, v in shares.items()}


def add_block_view(records: Sequence[Any], views: dict[str, dict[str, Any]],
                   log: Callable[[str], None] = print) -> None:
    """Add ``views[id]["blocks"]`` for every record with views, from the render cache."""
    from classify.corpus import _load_page
    from webseg.datasets import DEFAULT_CACHE

    if not blocks_available():
        log("webseg.blocks is not available: the blocks view is empty")
    for k, r in enumerate(records):
        v = views.get(r.id)
        if v is None or "blocks" in v:
            continue
        page, _ = _load_page(DEFAULT_CACHE, r)
        try:
            v["blocks"] = block_shares(page) if page is not None else {}
        except Exception as e:  # noqa: BLE001 - a page the block model fails on: empty view
            log(f"  {r.id}: blocks: {type(e).__name__}: {e}")
            v["blocks"] = {}
        if (k + 1) % 500 == 0:
            log(f"  blocks view: {k + 1}/{len(records)}")
