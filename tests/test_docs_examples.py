"""Every usage example in README.md and docs/*.md runs as written.

Convention (stated in docs/README.md): every fenced ``sh`` / ``python`` block is executed, in a
scratch directory that holds what the examples name - ``page.html`` (a test fixture),
``examples/crawl.warc.gz`` (the shipped demo crawl) and ``pages/`` (the crawl's HTML pages as
files). A block that cannot run there is exempt only with a visible reason on the line before
its fence: ``<!-- no-test: why -->`` (regenerating results from ``../shared/data``, installing
packages, URLs, Lucene, Spark). The ``sh`` blocks of a page run in order in one bash (with
``webseg`` standing for this checkout's command line, ``set -e``: a failing command fails the
test); its ``python`` blocks run in order in one interpreter, so a later block may use what an
earlier one defined, as a reader would.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import _have_chromium, no_browser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)\s*$")
EXEMPT = re.compile(r"^<!--\s*no-test:\s*(\S.*?)\s*-->\s*$")


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    code: str
    exempt: str | None


def blocks(page: Path) -> list[Block]:
    """The fenced ``sh`` / ``python`` blocks of a Markdown page, with their exemption."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        ex = EXEMPT.match(prev)
        if m.group(1) in ("sh", "bash", "python"):
            out.append(Block(page, i + 1, "python" if m.group(1) == "python" else "sh",
                             "\n".join(lines[i + 1:j]) + "\n", ex.group(1) if ex else None))
        i = j + 1
    return out


def test_blocks_are_found_and_exemptions_give_a_reason() -> None:
    readme = blocks(ROOT / "README.md")
    assert sum(b.exempt is None for b in readme) >= 8  # the five tasks, CLI and library
    for page in PAGES:
        markers = [x for x in page.read_text(encoding="utf-8").splitlines()
                   if x.startswith("<!--") and "no-test" in x]
        # a marker that does not parse, or is not right before a block, would be ignored
        assert len(markers) == sum(b.exempt is not None for b in blocks(page)), page


def test_parser_sees_the_marker(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text("a\n\n<!-- no-test: needs the network -->\n```sh\nwebseg x\n```\n\n"
                  "```python\nprint(1)\n```\n```text\nnot code\n```\n")
    got = blocks(md)
    assert [(b.lang, b.exempt) for b in got] == [("sh", "needs the network"), ("python", None)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from webseg.inputs import iter_inputs

    d = tmp_path_factory.mktemp("docs-inputs")
    (d / "page.html").write_bytes((ROOT / "tests/fixtures/news.html").read_bytes())
    (d / "examples").mkdir()
    (d / "examples" / "crawl.warc.gz").write_bytes((ROOT / "examples/crawl.warc.gz").read_bytes())
    (d / "pages").mkdir()
    for k, rec in enumerate(iter_inputs([str(ROOT / "examples/crawl.warc.gz")])):
        if rec.error is None:
            (d / "pages" / f"page{k}.html").write_bytes(rec.read_bytes())
    return d


@pytest.fixture
def sandbox(inputs: Path, tmp_path: Path) -> Path:
    """A fresh copy of the inputs for each page: what one page's examples write (an index,
    an output folder) must not change what the next page's find."""
    import shutil

    return Path(shutil.copytree(inputs, tmp_path / "work"))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _run_sh(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = ("set -euo pipefail\n"
              f'webseg() {{ "{sys.executable}" -m webseg.cli "$@"; }}\n' + code)
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                          env=_env(), timeout=900)


def _run_python(codes: list[tuple[int, str]], cwd: Path) -> subprocess.CompletedProcess[str]:
    prog = ["import sys", "ns = {'__name__': '__main__'}"]
    for line, code in codes:
        prog.append(f"print('--- block at line {line}', file=sys.stderr)")
        prog.append(f"exec(compile({code!r}, 'block@{line}', 'exec'), ns)")
    return subprocess.run([sys.executable, "-c", "\n".join(prog)], cwd=cwd, capture_output=True,
                          text=True, env=_env(), timeout=900)


@pytest.mark.browser
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(page: Path, sandbox: Path) -> None:
    todo = [b for b in blocks(page) if b.exempt is None]
    if not todo:
        pytest.skip("no runnable examples on this page")
    if not _have_chromium():
        no_browser("the examples render pages")
    for b in todo:
        if b.lang == "sh":
            res = _run_sh(b.code, sandbox)
            assert res.returncode == 0, (f"{page.name}:{b.line}: exit {res.returncode}\n"
                                         f"{b.code}\n{res.stderr[-3000:]}")
    py = [(b.line, b.code) for b in todo if b.lang == "python"]
    if py:
        res = _run_python(py, sandbox)
        assert res.returncode == 0, f"{page.name}: python blocks failed\n{res.stderr[-3000:]}"
