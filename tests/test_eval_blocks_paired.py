"""eval.blocks.paired: the paired comparison the blocks adoption rules are judged on."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

from eval.blocks.paired import report


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


PAGES = (("wcxb", "1", "article", "dev", 0), ("wcxb", "2", "product", "dev", 1),
         ("dragnet", "3", "", "test", 0), ("dragnet", "4", "", "test", 1),
         ("dragnet", "8", "", "train", 0), ("cleaneval", "5", "", "", 0),
         ("cleaneval", "9", "", "", 1), ("l3s-gn1", "6", "", "", 1),
         ("l3s-gn1", "10", "", "", 0), ("cleanportaleval", "7", "", "", 0))


def _run(path: Path, f1: dict[str, float]) -> None:
    """Every page scores ``f1[method]``, except WCXB page 2 (0.1 more)."""
    rows = []
    for ds, pid, pt, split, fold in PAGES:
        for m, v in f1.items():
            rows.append({"dataset": ds, "id": pid, "variant": "rendered", "page_type": pt,
                         "split": split, "site": "s" + pid, "fold": fold, "method": m,
                         "p": v, "r": v, "f1": v + (0.1 if pid == "2" else 0.0)})
    _write(path / "per_page.csv.gz", rows)


def test_paired_report_checks_identity_and_means(tmp_path):
    _run(tmp_path / "a", {"m": 0.5, "n": 0.6})
    _run(tmp_path / "b", {"m": 0.5, "n": 0.7})
    peers = [{"dataset": {"wcxb": "wcxb-dev"}.get(ds, ds), "id": pid, "page_type": "",
              "method": "trafilatura", "p": 0.4, "r": 0.4, "f1": 0.4}
             for ds, pid, *_ in PAGES]
    _write(tmp_path / "peers.csv.gz", peers)
    md = report([tmp_path / "a", tmp_path / "b"], ["m", "n"], tmp_path / "peers.csv.gz")
    assert "b m: 0 of 10 pages differ from a" in md
    assert "b n: 10 of 10 pages differ from a" in md
    # WCXB: pages 1 and 2 (0.7 and 0.8); Dragnet: test pages only; mean of the four targets
    # (0.75 + 0.7 + 0.7 + 0.7) / 4
    assert "| b n | 0.7500 | 0.7000 | 0.7000 | 0.7000 | 0.7000 | 0.7125 " in md
    assert "| a n | 0.6500 | 0.6000 | 0.6000 | 0.6000 | 0.6000 | 0.6125 " in md
    assert "| b n | 0.700 (+0.3000) | 0.800 (+0.4000) |" in md
    # per fold: WCXB / mean of the four targets
    assert "| b n | 0.7000 / 0.7000 | 0.8000 / 0.7250 |" in md
