"""eval.blocks.multilingual: per-language tables on the pages every column has."""

from __future__ import annotations

from eval.blocks.multilingual import _means, table


def test_means_over_pages_and_over_sites():
    pages, sites = _means([("a", 1.0), ("a", 0.0), ("b", 1.0)])
    assert pages == 2 / 3
    assert sites == (0.5 + 1.0) / 2


def test_table_uses_only_pages_every_column_scored():
    peers = {i: {"id": i, "lang": lang, "site": site, "trafilatura": t, "readability": r,
                 "webseg": w}
             for i, lang, site, t, r, w in [("p1", "zh", "s1", 0.5, 0.6, 0.7),
                                            ("p2", "ru", "s2", 0.2, 0.4, 0.6),
                                            ("p3", "ru", "s3", 0.0, 0.0, 0.0)]}
    run = [{"id": "p1", "variant": "parsed", "method": "m", "f1": 0.9},
           {"id": "p2", "variant": "parsed", "method": "m", "f1": 0.8},
           {"id": "p2", "variant": "rendered", "method": "m", "f1": 0.1}]
    md = table({"new": run}, peers, "parsed", "m")
    rows = {line.split("|")[1].strip(): line for line in md.splitlines()[2:]}
    assert set(rows) == {"ru", "zh", "all"}  # p3 has no run result: left out
    assert "| 0.800 (0.800) |" in rows["ru"] and "| 1 | 1 |" in rows["ru"]
    assert "| all | 2 | 2 | 0.850 (0.850) | 0.350 (0.350) |" in rows["all"]
