"""Import layering: the library (``webseg``) never imports the evaluation harness (``eval``),
and the WPS modules that once imported each other in a circle now do so in one direction only.

Checked on the source (every ``import`` statement, module level or inside functions), so a
lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "webseg"


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str | None = None) -> set[str]:
    """Every module name an ``import`` / ``from ... import`` in ``path`` names (absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    pkg = (module or _module(path)).split(".")
    if path.name != "__init__.py":
        pkg = pkg[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


SOURCES = sorted(ROOT.rglob("*.py"))


def test_sources_found() -> None:
    assert len(SOURCES) > 20


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_webseg_does_not_import_eval(path: Path) -> None:
    bad = sorted(m for m in _imports(path) if m == "eval" or m.startswith("eval."))
    assert not bad, f"{path} imports the evaluation harness: {bad}"


def _imports_module(src: str, target: str) -> bool:
    path = ROOT.parent / (src.replace(".", "/") + ".py")
    return any(m == target or m.startswith(target + ".") for m in _imports(path))


@pytest.mark.parametrize("lower,upper", [
    ("webseg.wps.train", "webseg.segmenters"),  # was: train -> segmenters.wps -> train
    ("webseg.wps.graph", "webseg.wps.inference"),  # was: graph -> inference -> graph
    ("webseg.wps.model", "webseg.wps.train"),
    ("webseg.wps.segment", "webseg.wps.train"),
])
def test_no_import_circle(lower: str, upper: str) -> None:
    assert not _imports_module(lower, upper), f"{lower} imports {upper}"


def test_wps_package_does_not_import_segmenters() -> None:
    for path in (ROOT / "wps").glob("*.py"):
        assert not any(m.startswith("webseg.segmenters") for m in _imports(path)), path


def test_detects_lazy_and_relative_imports(tmp_path: Path) -> None:
    """The checker sees imports inside functions and resolves relative ones."""
    probe = tmp_path / "probe.py"
    probe.write_text("import numpy\n\ndef g():\n    from eval.splits import select\n"
                     "    from .inference import infer\n", encoding="utf-8")
    got = _imports(probe, "webseg.wps.probe")
    assert "eval.splits" in got
    assert "webseg.wps.inference" in got
    assert "eval.splits" not in _imports(ROOT / "wps" / "graph.py")


#: the ``webseg.clean`` modules that only write a result (text, Markdown, HTML, JSON, masks)
#: or lay its text out (``layout``: where a line breaks, which the decoder's units also ask)
#: and import nothing above :mod:`webseg.page`; the package itself is the facade over methods
CLEAN_WRITERS = ("txt", "html_out", "markdown", "mask", "json_out", "layout")


@pytest.mark.parametrize("package", ["blocks", "templates"])
def test_methods_do_not_import_the_clean_facade(package: str) -> None:
    """``webseg.clean`` picks a method (the block model, PageLevel) and so imports both; they
    in turn may use its writers but never the facade: no circle blocks <-> clean <->
    templates.clean."""
    for path in (ROOT / package).glob("*.py"):
        for m in _imports(path):
            parts = m.split(".")
            if parts[:2] == ["webseg", "clean"]:
                assert len(parts) > 2 and parts[2] in CLEAN_WRITERS, f"{path} imports {m}"
            assert not (package == "blocks" and m.startswith("webseg.templates.clean")), path


def test_clean_writers_import_no_method() -> None:
    for name in CLEAN_WRITERS:
        for m in _imports(ROOT / "clean" / f"{name}.py"):
            assert not m.startswith(("webseg.blocks", "webseg.templates")), (name, m)
