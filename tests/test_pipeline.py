"""The single-machine pipeline: one line per input record, resumable after kill -9, faults
become error lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webseg.pipeline import PageProcessor, PipelineConfig, run_pipeline
from webseg.pipeline.journal import Journal, read_journal

PAGE = """<html><head><title>Page {i}</title></head><body>
<div id=nav><a href=/a>Home</a> <a href=/b>News</a> <a href=/c>About</a></div>
<div id=main><h1>Story number {i}</h1><p>{body}</p></div>
<div id=foot>Copyright example.org</div></body></html>"""

BASIC = PipelineConfig(stages=("segment", "clean"))


def make_pages(d: Path, n: int) -> list[Path]:
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        p = d / f"p{i:03d}.html"
        body = " ".join(f"word{i}x{k}" for k in range(60))
        p.write_text(PAGE.format(i=i, body=body), encoding="utf-8")
        out.append(p)
    return out


def read_lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_journal_drops_torn_tail_and_refuses_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal.open(path) as j:
        j.append({"id": "a", "v": 1})
        j.append({"id": "b", "v": 2})
    with path.open("ab") as f:
        f.write(b'{"id": "c", "v"')  # a write cut off by kill -9
    j = Journal.open(path)
    assert j.done == {"a", "b"}
    with pytest.raises(ValueError, match="already"):
        j.append({"id": "a"})
    j.append({"id": "c", "v": 3})
    j.close()
    assert [r["id"] for r in read_journal(path)] == ["a", "b", "c"]


def test_config_rejects_unknown_stage() -> None:
    with pytest.raises(ValueError, match="unknown stage"):
        PipelineConfig(stages=("segment", "nope"))


@pytest.mark.browser
def test_every_record_gets_one_line_including_bad_input(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "in", 3)
    (tmp_path / "in" / "empty.html").write_bytes(b"")
    (tmp_path / "in" / "binary.html").write_bytes(bytes(range(256)) * 40)
    inputs = [str(tmp_path / "in"), str(tmp_path / "missing.html"), str(pages[0])]
    s = run_pipeline(inputs, tmp_path / "out", BASIC, progress=False, concurrency=2)
    lines = read_lines(tmp_path / "out" / "pages.jsonl")
    ids = [r["id"] for r in lines]
    assert len(ids) == len(set(ids)) == 7  # 5 files + missing + the repeated page (id~2)
    assert ids[-1].endswith("p000.html~2")
    by = {Path(r["id"]).name: r for r in lines}
    assert by["missing.html"]["status"] == "error"
    assert by["missing.html"]["error"]["stage"] == "read"
    ok = [r for r in lines if r["status"] == "ok"]
    assert len(ok) >= 4
    story = by["p001.html"]
    assert "word1x30" in story["text"] and story["source"] == story["id"]
    assert story["segmentation"]["segments"] >= 1
    assert "index_doc" not in story and "minhash" not in story  # internal fields
    assert s.records == 7 and s.ok == len(ok)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["records"] == 7


@pytest.mark.browser
def test_failing_stage_is_recorded_and_run_goes_on(tmp_path: Path, monkeypatch) -> None:
    pages = make_pages(tmp_path / "in", 3)
    proc = PageProcessor(BASIC)
    real = proc._clean

    def flaky(page, out, scratch):
        if "Story number 1" in " ".join(page.text):
            raise MemoryError("injected")
        real(page, out, scratch)

    monkeypatch.setattr(proc, "_stage_fns", {**proc._stage_fns, "clean": flaky})
    run_pipeline([str(p) for p in pages], tmp_path / "out", BASIC, progress=False,
                 processor=proc)
    lines = read_lines(tmp_path / "out" / "pages.jsonl")
    assert [r["status"] for r in lines] == ["ok", "error", "ok"]
    assert lines[1]["error"] == {"stage": "clean", "message": "MemoryError: injected"}
    assert "segmentation" in lines[1]  # what the earlier stage produced is kept


@pytest.mark.browser
def test_page_that_loops_forever_times_out(tmp_path: Path) -> None:
    pages = make_pages(tmp_path / "in", 1)
    loop = tmp_path / "in" / "loop.html"
    loop.write_text("<p>x</p><script>while (true) {}</script>")
    s = run_pipeline([str(loop), str(pages[0])], tmp_path / "out", BASIC, progress=False,
                     render_options={"javascript": True, "timeout": 10})
    lines = read_lines(tmp_path / "out" / "pages.jsonl")
    assert lines[0]["status"] == "error" and lines[1]["status"] == "ok"
    assert s.errors


@pytest.mark.browser
def test_resumes_after_kill_9_with_nothing_lost(tmp_path: Path) -> None:
    """Kill the pipeline process at several points; the final output has each record once."""
    make_pages(tmp_path / "in", 14)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "webseg.cli", "pipeline", str(tmp_path / "in"), "-o", str(out),
           "--stages", "segment,clean", "--concurrency", "1", "--no-progress"]
    journal = out / "work" / "pages.jsonl"
    kills = 0
    for target in (2, 6):  # kill once the journal has this many lines
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.monotonic() + 300  # a busy machine
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and len(list(read_journal(journal))) >= target:
                os.killpg(proc.pid, signal.SIGKILL)  # the browser dies with it
                kills += 1
                break
            time.sleep(0.05)
        proc.wait(30)
    assert kills == 2
    done_before = len(list(read_journal(journal)))
    assert 6 <= done_before < 14
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = read_lines(out / "pages.jsonl")
    ids = [r["id"] for r in lines]
    assert len(ids) == 14 and len(set(ids)) == 14
    assert ids == sorted(ids)  # input order
    assert all(r["status"] == "ok" for r in lines)
    assert len(list(read_journal(journal))) == 14  # no record processed twice
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed"] == done_before and summary["processed_now"] == 14 - done_before


def test_resuming_with_another_configuration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out" / "work").mkdir(parents=True)
    (tmp_path / "out" / "work" / "config.json").write_text(json.dumps({"stages": ["segment"]}))
    with pytest.raises(ValueError, match="another configuration"):
        run_pipeline([str(tmp_path / "nothing")], tmp_path / "out", BASIC, progress=False)


@pytest.mark.browser
def test_index_entry_is_what_webseg_index_stores(renderer) -> None:
    """The pipeline reuses its VIPS segmentation for the index; the entry must not change."""
    from ir.analysis import Analyzer
    from ir.pipeline import doc_from_page

    page = renderer.render(PAGE.format(i=7, body="tide pools " * 40).encode())
    cfg = PipelineConfig(stages=("segment", "clean", "index"))
    out = PageProcessor(cfg).process("p7", "http://example.org/7", page)
    assert out["status"] == "ok", out["error"]
    expected = doc_from_page("p7", page, Analyzer(), ["vips"], url="http://example.org/7")
    assert out["index_doc"] == expected.to_dict()
    assert out["index_doc"]["blocks"]["vips"]


@pytest.mark.browser
def test_browser_killed_mid_run_loses_nothing(tmp_path: Path, process_tools) -> None:
    """Fault injection: the pipeline's Chromium is killed while pages are in flight."""
    from tests.test_render import browser_processes, kill

    pages = make_pages(tmp_path / "in", 10)
    before = set(process_tools[0]())
    proc = PageProcessor(BASIC)
    real = proc.process
    killed: list[int] = []

    def process(rec_id, url, page, **kw):
        if not killed and rec_id.endswith("p002.html"):
            killed.extend(browser_processes(before, process_tools)[0])
            kill(killed)
        return real(rec_id, url, page, **kw)

    proc.process = process
    run_pipeline([str(p) for p in pages], tmp_path / "out", BASIC, progress=False,
                 processor=proc, concurrency=2)
    assert killed, "found no browser of this run to kill"
    lines = read_lines(tmp_path / "out" / "pages.jsonl")
    assert [Path(r["id"]).name for r in lines] == [p.name for p in pages]
    for r in lines:  # a page in the dying browser may fail, and says so
        assert r["status"] == "ok" or r["error"]["stage"], r
    assert all(r["status"] == "ok" for r in lines[6:])  # the run went on with a new browser


def test_a_record_without_text_is_not_indexed(tmp_path: Path) -> None:
    """A binary file is one error line with one reason, and no (empty) index document."""
    from webseg.inputs import InputRecord
    from webseg.pipeline.run import record_line

    path = tmp_path / "binary.html"
    path.write_bytes(bytes(range(256)) * 40)
    rec = InputRecord(id=str(path), url=None, source=path, kind="file")
    proc = PageProcessor(PipelineConfig(stages=("segment", "index")))
    err = "decode: input looks binary, not HTML"
    line = record_line(rec, None, err, proc)
    assert line["status"] == "error" and "index_doc" not in line
    text = tmp_path / "text.html"
    text.write_text("<p>words to find the page by</p>")
    rec = InputRecord(id=str(text), url=None, source=text, kind="file")
    line = record_line(rec, None, "render: timeout", proc)
    assert line["index_doc"]["status"] == "text-only" and line["index_doc"]["terms"]
