import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from webseg.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_algos_and_help():
    r = run("algos")
    assert r.exit_code == 0 and "dom" in r.output and "single" in r.output
    r = run("--help")
    assert r.exit_code == 0 and "Examples" in r.output


def test_usage_errors_exit_2(tmp_path):
    assert run("segment", str(tmp_path / "missing.html")).exit_code == 2
    assert run("segment", str(FIXTURE), "--algo", "nope").exit_code == 2
    assert run("segment", str(FIXTURE), "-p", "bad").exit_code == 2


@pytest.mark.browser
def test_render_then_segment_cached_page(tmp_path):
    page_json = tmp_path / "news.page.json.gz"
    r = run("render", str(FIXTURE), "-o", str(page_json))
    assert r.exit_code == 0, r.output
    r = run("segment", str(page_json), "--algo", "dom")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["algorithm"] == "dom" and len(d["segments"]) >= 4
    r = run("segment", str(page_json))  # the default: the best segmenter measured (select)
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["algorithm"] == "select" and {s["level"] for s in d["segments"]} == {1, 2}


@pytest.mark.browser
def test_batch_reports_failures_and_exits_1(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_bytes(FIXTURE.read_bytes())
    (tmp_path / "pages" / "b.html").write_bytes(b"")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "webseg.cli", "segment", str(tmp_path / "pages"),
                           "--algo", "single", "-o", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1
    assert "b.html: decode: empty input" in proc.stderr
    assert (out / "a.seg.json").is_file() and not (out / "b.seg.json").exists()


@pytest.mark.browser
def test_show_writes_overlay(tmp_path):
    from PIL import Image

    out = tmp_path / "o.png"
    r = run("show", str(FIXTURE), "--algo", "dom", "-o", str(out))
    assert r.exit_code == 0, r.output
    img = Image.open(out)
    assert img.width == 1280 and img.height >= 500
    # the level-1 outline colour of the overlay is present along the header box edge
    px = img.convert("RGB").load()
    reds = sum(1 for x in range(0, 1280, 4) if px[x, 1][0] > 180 and px[x, 1][1] < 90)
    assert reds > 100


@pytest.mark.browser
def test_clean_prints_main_text():
    r = run("clean", str(FIXTURE))
    assert r.exit_code == 0, r.output
    assert "Ferry timetable changes this winter" in r.output
    assert "Privacy" not in r.output  # footer links are template


def test_train_lists_trainers():
    r = run("train", "--help")
    assert r.exit_code == 0 and "gcuts" in r.output and "pagelevel" in r.output


@pytest.mark.parametrize(("algo", "prog"), [("treecut", "webseg.treecut"),
                                             ("blocks", "webseg.blocks.train")])
def test_train_reaches_every_shipped_models_trainer(algo: str, prog: str) -> None:
    """`webseg train ALGO -- --help` is the trainer's own argument parser."""
    r = run("train", algo, "--", "--help")
    assert r.exit_code == 0 and f"usage: python -m {prog}" in r.output
