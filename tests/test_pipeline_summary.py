"""The pipeline's run summary says what the crawl holds: languages and page types of its pages."""

from __future__ import annotations

import json
from pathlib import Path

from webseg.pipeline.process import PARSED_SEGMENTER, PipelineConfig
from webseg.pipeline.run import RunSummary, run_pipeline

DEMO = Path(__file__).parents[1] / "examples" / "crawl.warc.gz"


def test_table_lists_languages_and_page_types_most_first() -> None:
    s = RunSummary(records=4, ok=4, languages={"zh": 1, "en": 2, "ru": 1},
                   page_types={"article": 3, "forum": 1})
    table = s.table()
    assert "languages" in table and "en 2, ru 1, zh 1" in table
    assert "page types" in table and "article 3, forum 1" in table
    assert "languages" not in RunSummary(records=1).table()  # nothing counted, no empty row


def test_summary_counts_the_languages_and_types_of_ok_pages(tmp_path: Path) -> None:
    config = PipelineConfig(render=False, segmenter=PARSED_SEGMENTER)
    s = run_pipeline([str(DEMO)], tmp_path / "out", config, progress=False)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["languages"] == {"en": s.ok} and s.ok == 9
    assert sum(summary["page_types"].values()) == s.ok
    assert set(summary["page_types"]) <= {"article", "listing", "forum", "product", "service",
                                          "documentation", "collection"}


def test_a_resumed_run_with_nothing_left_shows_no_rate() -> None:
    table = RunSummary(records=3, ok=3, resumed=3, processed_now=0, seconds=0.4).table()
    rate = [line for line in table.splitlines() if "pages/s" in line]
    assert rate and rate[0].split()[-1] == "-"  # not "0.00": nothing was processed to time


def test_the_end_of_a_run_names_each_failed_record_and_why(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from webseg.cli import main

    (tmp_path / "empty.html").write_bytes(b"")
    r = CliRunner().invoke(main, ["pipeline", str(DEMO), str(tmp_path / "empty.html"),
                                  str(tmp_path / "gone.html"), "-o", str(tmp_path / "out"),
                                  "--no-render", "-q"])
    assert r.exit_code == 1
    assert f"webseg: error: {tmp_path / 'empty.html'}: decode: empty input" in r.output
    assert f"webseg: error: {tmp_path / 'gone.html'}: read: no such file" in r.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert [e[1] for e in summary["first_errors"]] == ["decode", "read"]
