"""The metadata evaluation's scoring and its site split (``eval/metadata.py``)."""

from __future__ import annotations

from eval.metadata import author_ok, date_ok, site_part, title_ok


def test_the_site_split_keeps_a_site_on_one_side_and_holds_out_about_a_third() -> None:
    sites = [f"site{i}.example" for i in range(2000)]
    parts = [site_part({"site": s, "id": "1"}) for s in sites]
    assert set(parts) == {"iter", "holdout"}
    assert 0.25 < parts.count("holdout") / len(parts) < 0.35
    # every page of a site is on its side, whatever its id; the host stands in for the site
    assert {site_part({"site": "a.example", "id": str(i)}) for i in range(20)} == \
        {site_part({"host": "a.example", "id": "x"})}


def test_scoring_rules() -> None:
    assert date_ok("2025-09-04", "2025-09-04T10:00:00+02:00")
    assert not date_ok("2025-09-04", "2025-09-05") and not date_ok("2025-09-04", None)
    assert author_ok("Rui Ma & Heba Ledwon", "Heba Ledwon; Rui Ma")
    assert not author_ok("Rui Ma & Heba Ledwon", "Rui Ma")
    assert title_ok("Headline", "Headline | Site", exact=False)
    assert not title_ok("Headline", "Headline | Site", exact=True)
