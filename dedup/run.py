"""One dedup run over rendered pages: strip, sketch, detect, report.

Shared by ``webseg dedup`` (pages from :func:`webseg.inputs.render_inputs`) and
``python -m eval.dedup.collection`` (pages of the shared datasets from the render cache), so
both produce the same report from the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dedup.detect import DedupResult, detect
from dedup.report import PageInfo, write_report
from dedup.shingle import PAPER, ShingleParams
from dedup.strip import Item, Stripper

__all__ = ["Run", "run_items"]


@dataclass
class Run:
    result: DedupResult
    pages: dict[str, PageInfo]
    failed: dict[str, str] = field(default_factory=dict)
    notes: dict[str, int] = field(default_factory=dict)

    def report(self, out: str | Path, **run: Any) -> dict[str, Any]:
        return write_report(out, self.result, self.pages, self.failed, run)


def run_items(items: Iterable[tuple[str, Item, str]], stripper: Stripper,
              params: ShingleParams = PAPER, candidates: str = "lsh", num_perm: int = 64,
              lsh_threshold: float = 0.3, storage_config: dict | None = None,
              failed: dict[str, str] | None = None,
              on_error: Callable[[str, str], None] | None = None) -> Run:
    """Strip every ``(id, item, title)`` with ``stripper``, then detect duplicates.

    A page whose stripping raises is reported through ``on_error(id, message)`` and listed in
    ``failed``; the batch goes on.
    """
    failed = dict(failed or {})
    infos: dict[str, PageInfo] = {}
    group: list[tuple[str, Item]] = []
    for rid, item, title in items:
        infos[rid] = PageInfo(id=rid, url=item.url, title=title, site=item.site)
        if stripper.strategy == "sitelevel":
            group.append((rid, item))
            continue
        try:
            infos[rid].text = stripper.text(item)
        except Exception as e:  # noqa: BLE001 - report the page and go on with the batch
            msg = f"strip: {type(e).__name__}: {e}"
            failed[rid] = msg
            del infos[rid]
            if on_error is not None:
                on_error(rid, msg)
    if group:
        for (rid, _), text in zip(group, stripper.texts([it for _, it in group]), strict=True):
            infos[rid].text = text
    result = detect(((rid, info.text) for rid, info in infos.items()), params, candidates,
                    num_perm, lsh_threshold, storage_config)
    return Run(result, infos, failed, dict(stripper.notes))
