"""A segmentation manifest is JSON lines: a record whose strings hold U+2028 or U+0085
(unescaped, as JSON allows and non-ASCII writers leave them) is still one record."""

import json

from webseg.datasets import read_gold_pages


def test_manifest_lines_split_at_newlines_only(tmp_path):
    gold = {"blocks": [{"xpath": "/html/body", "level": 1}]}
    (tmp_path / "g1.json").write_text(json.dumps(gold), encoding="utf-8")
    (tmp_path / "g2.json").write_text(json.dumps(gold), encoding="utf-8")
    recs = [{"id": "a", "html": "a.html", "gold": "g1.json", "notes": "one\u2028two"},
            {"id": "b", "html": "b.html", "gold": "g2.json", "notes": "три\x85четыре"}]
    (tmp_path / "manifest.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    pages = read_gold_pages(tmp_path)
    assert [p.id for p in pages] == ["a", "b"]
    assert [p.notes for p in pages] == ["one\u2028two", "три\x85четыре"]
