"""How `webseg search` prints: titles cut by screen width, a hint for a pipeline's folder."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ir.cli import shorten
from webseg.cli import main


def test_short_titles_are_kept_whole() -> None:
    assert shorten("What lives in a tide pool") == "What lives in a tide pool"


def test_long_titles_are_cut_at_a_word_and_say_so() -> None:
    title = "in.gr - Εμφυτεύματα σιλικόνης: Ασφαλή σύμφωνα με το αυστραλιανό υπουργείο υγείας"
    out = shorten(title)
    assert out.endswith("…") and len(out) <= 60
    assert title.startswith(out[:-1]) and out[:-1].split()[-1] in title.split()  # a whole word


def test_wide_characters_take_two_columns() -> None:
    title = "十年一遇最美月全食明晚登场天空将上演红月亮服务快递济南新闻山东新闻舜网新闻中心"
    out = shorten(title, width=20)
    assert out == title[:9] + "…"  # 9 characters = 18 columns, then the ellipsis


def test_search_on_a_pipeline_folder_points_at_its_index(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "index.json").write_text(json.dumps({}), encoding="utf-8")
    r = CliRunner().invoke(main, ["search", str(tmp_path), "query"])
    assert r.exit_code == 2
    assert f"did you mean {tmp_path / 'index'}?" in r.output


def test_text_collection_hits_without_titles_end_cleanly(tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "d1", "contents": "Москва столица России"}\n'
                    '{"id": "d2", "contents": "北京是中国的首都"}\n', encoding="utf-8")
    r = CliRunner().invoke(main, ["index", str(docs), "-o", str(tmp_path / "ix")])
    assert r.exit_code == 0, r.output
    assert "text documents, no blocks" in r.output and "blocks vips" not in r.output
    r = CliRunner().invoke(main, ["search", str(tmp_path / "ix"), "столица"])
    first = r.output.splitlines()[0]
    assert first.split() == ["1.", first.split()[1], "d1"] and not first.endswith(" ")
