"""A record with no text (binary, unreadable) is reported once and never indexed."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ir import Index, index_paths

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"


def _pages(tmp_path: Path) -> Path:
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "news.html").write_bytes(FIXTURE.read_bytes())
    (pages / "binary.html").write_bytes(b"\x00\x01\x02\xff" * 100)
    return pages


def test_failed_records_are_reported_once_and_not_indexed(tmp_path):
    pages = _pages(tmp_path)
    ix = Index.create(tmp_path / "idx", sources=["dom"])
    logged: list[str] = []
    rep = index_paths(ix, [str(pages), str(tmp_path / "missing.html")], ix.sources,
                      render=False, log=logged.append)
    ix = Index.open(tmp_path / "idx")
    assert [Path(d.id).name for d in ix.docs] == ["news.html"]
    assert rep.added == 1 and rep.failed == 2 and rep.empty == 0
    assert len(logged) == 2 and len(rep.failures) == 2
    binary = next(m for m in logged if "binary.html" in m)
    assert binary.count("looks binary") == 1 and ": decode: " in binary


def test_cli_counts_failed_records_and_exits_1(tmp_path):
    from webseg.cli import main

    pages = _pages(tmp_path)
    r = CliRunner().invoke(main, ["index", str(pages / "binary.html"), str(pages / "news.html"),
                                  "-o", str(tmp_path / "idx"), "--no-render"])
    assert r.exit_code == 1, r.output
    assert r.output.count("looks binary") == 1
    assert "indexed 1 pages" in r.output and "1 failed, not indexed" in r.output
