"""``webseg index`` / ``webseg search`` on text collections (no browser) and exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from webseg.cli import main

DOCS = [{"id": "1", "title": "Cats", "text": "cats purr and sleep on warm sofas"},
        {"id": "2", "title": "Dogs", "text": "dogs bark at cats in the garden"},
        {"id": "3", "title": "Markets", "text": "stock markets fell as investors sold shares"}]


@pytest.fixture
def jsonl(tmp_path):
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    return p


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_index_and_search_json(tmp_path, jsonl):
    idx = tmp_path / "idx"
    r = _run("index", jsonl, "--format", "jsonl", "-o", idx, "--segmenter", "windows")
    assert r.exit_code == 0, r.output
    r = _run("search", idx, "cats purring", "--json", "-k", "5")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [h["id"] for h in out["hits"]][:1] == ["1"]
    assert "purr" in out["hits"][0]["snippet"] and out["hits"][0]["title"] == "Cats"
    r = _run("search", idx, "cats", "--prf", "rm3")
    assert r.exit_code == 0 and "expanded:" in r.output and "  1." in r.output
    r = _run("search", idx, "cats", "--prf", "blocks", "--source", "windows",
             "-P", "fb_pages=5", "-P", "fb_blocks=2", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["feedback_units"]


def test_append_and_overwrite(tmp_path, jsonl):
    idx = tmp_path / "idx"
    assert _run("index", jsonl, "--format", "jsonl", "-o", idx).exit_code == 0
    r = _run("index", jsonl, "--format", "jsonl", "-o", idx)
    assert r.exit_code == 2 and "--append" in r.output
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"id": "9", "text": "zebras run"}) + "\n", encoding="utf-8")
    assert _run("index", more, "--format", "jsonl", "-o", idx, "--append").exit_code == 0
    r = _run("search", idx, "zebra", "--json")
    assert json.loads(r.output)["hits"][0]["id"] == "9"
    assert _run("index", more, "--format", "jsonl", "-o", idx, "--overwrite").exit_code == 0


def test_bad_usage_exit_codes(tmp_path, jsonl):
    idx = tmp_path / "idx"
    _run("index", jsonl, "--format", "jsonl", "-o", idx)
    r = _run("search", idx, "the of and")
    assert r.exit_code == 2 and "no index terms" in r.output
    r = _run("search", idx, "")
    assert r.exit_code == 2
    r = _run("search", tmp_path / "missing", "cats")
    assert r.exit_code == 2 and "not an index directory" in r.output
    assert _run("search", idx, "cats", "-P", "bogus=1").exit_code == 2
    assert _run("search", idx, "cats", "-P", "fb_terms=x").exit_code == 2
    assert _run("search", idx, "cats", "--prf", "anserini-rm3").exit_code == 2  # needs lucene
    assert _run("index", jsonl, "-o", tmp_path / "x", "--segmenter", "nosuch").exit_code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\x00\xff\xfe binary\n")
    assert _run("index", bad, "--format", "jsonl", "-o", tmp_path / "y").exit_code == 2


def test_corrupt_index_exit_1(tmp_path, jsonl):
    idx = tmp_path / "idx"
    _run("index", jsonl, "--format", "jsonl", "-o", idx)
    (idx / "00000.docs.jsonl.gz").write_bytes(b"garbage")
    r = _run("search", idx, "cats")
    assert r.exit_code == 1 and "checksum" in r.output


def test_index_of_local_files_gives_each_hit_an_address(tmp_path):
    """A page file's hit has the URL webseg clean reports: its canonical URL, else its own
    file:// URI (a .gz file named as itself)."""
    import gzip

    body = "<p>Lighthouse keepers logged every passing ship in the harbour.</p>"
    (tmp_path / "a.html").write_text(
        '<html><head><link rel="canonical" href="https://news.example/a"></head><body>'
        + body + "</body></html>", encoding="utf-8")
    gz = tmp_path / "b.html.gz"
    gz.write_bytes(gzip.compress(("<html><body>" + body.replace("ship", "boat")
                                  + "</body></html>").encode()))
    idx = tmp_path / "idx"
    r = _run("index", tmp_path / "a.html", gz, "-o", idx, "--no-render", "-q")
    assert r.exit_code == 0, r.output
    hits = json.loads(_run("search", idx, "lighthouse keepers", "--json",
                           "--no-collapse").output)["hits"]
    urls = {h["id"]: h["url"] for h in hits}
    assert urls[str(tmp_path / "a.html")] == "https://news.example/a"
    assert urls[str(gz)] == gz.resolve().as_uri()


def test_quiet_index_prints_nothing(tmp_path, jsonl):
    r = CliRunner().invoke(main, ["index", str(jsonl), "-o", str(tmp_path / "idx"), "-q"])
    assert r.exit_code == 0 and r.output == "", r.output
    r = CliRunner().invoke(main, ["index", str(jsonl), "-o", str(tmp_path / "idx2")])
    assert r.exit_code == 0 and "3 documents" in r.output


def test_index_text_collection_loads_no_segmenter(tmp_path, jsonl):
    """Indexing a text collection with the built-in block sources must not import the
    segmenter registry, the page pipeline or scipy (a quarter of the command's CPU on CACM,
    where nothing uses them; the first query builds the postings with scipy): checked in
    a fresh interpreter, because this test process has imported them already."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = ("import sys; from webseg.cli import main\n"
            "try:\n"
            f"    main(['index', {str(jsonl)!r}, '--input-format', 'jsonl', '-o', "
            f"{str(tmp_path / 'idx')!r}, '-q'])\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.startswith(('webseg.segmenters', "
            "'webseg.graphseg', 'webseg.pipeline', 'webseg.wps', 'scipy'))))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                       env={**__import__("os").environ, "PYTHONPATH": str(root)}, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    assert (tmp_path / "idx" / "index.json").is_file()
