"""A clean result's language is the same whether or not its metadata was computed first:
the declared languages read from the tags alone are the metadata's (``webseg index`` asks
for the language only, the JSON result reads the metadata first)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from webseg.clean import extract
from webseg.clean.metadata import declared_lang_hints, extract_metadata
from webseg.parse import parse

DANIEL = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "boilerplate" / \
    "daniel-dev"

PAGES = [
    "<html lang='de-AT'><head><meta http-equiv='Content-Language' content='de, en'>"
    "<title>T</title></head><body><p>Ein kurzer deutscher Text über das Wetter.</p></body></html>",
    "<html><head><meta http-equiv=content-language content=fr></head>"
    "<body><p>Un texte</p></body></html>",
    "<html xml:lang='pl'><body><p>Tekst</p><time datetime='2020-01-02'>x</time></body></html>",
    "<html><body><p>no declaration at all, only some English words here</p></body></html>",
    "<html lang=''><body></body></html>",
]


@pytest.mark.parametrize("html", PAGES)
def test_declared_hints_are_the_metadatas(html: str) -> None:
    page = parse(html, url="http://example.org/a")
    assert declared_lang_hints(html, page) == extract_metadata(html, page=page).lang_hints
    assert declared_lang_hints(None, page) == extract_metadata(None, page=page).lang_hints


@pytest.mark.parametrize("html", PAGES)
def test_language_without_and_after_the_metadata(html: str) -> None:
    page = parse(html, url="http://example.org/a")
    alone = extract(page, html=html, url=page.url)
    first = extract(page, html=html, url=page.url)
    _ = first.metadata
    assert "metadata" not in alone.__dict__
    assert alone.language == first.language
    assert alone.to_dict() == first.to_dict()


def test_on_real_pages_of_five_languages() -> None:
    man = DANIEL / "manifest.jsonl"
    if not man.is_file():
        pytest.skip("shared data not present")
    rows = [json.loads(line) for line in man.open(encoding="utf-8")]
    by_lang: dict[str, list[dict]] = {}
    for r in rows:
        by_lang.setdefault(r.get("lang"), []).append(r)
    picked = [r for rs in by_lang.values() for r in rs[:3]]
    assert len(picked) >= 10
    for r in picked:
        html = gzip.decompress((DANIEL / r["html"]).read_bytes()).decode("utf-8", "replace")
        page = parse(html, url=r["url"])
        assert declared_lang_hints(html, page) == extract_metadata(html, page=page).lang_hints
        alone = extract(page, html=html, url=r["url"])
        first = extract(page, html=html, url=r["url"])
        _ = first.metadata
        assert alone.language == first.language, r["id"]
