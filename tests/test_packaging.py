"""The wheel installs webseg's packages only (no ``eval``, ``bench`` or ``tests``), and an
installed copy works outside the checkout: ``webseg --help`` and the README's library example.

Offline and quick: the wheel is built from a copy of the sources without build isolation
(setuptools from the dev extra), and installed without dependencies into a fresh venv that
sees this environment's site-packages through a ``.pth`` line (which adds the directory only:
the editable install of the checkout living there is not activated).
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("webseg", "ir", "dedup", "classify")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("pkg")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")  # the build makes its own
    for name in (*PACKAGES, "eval", "bench"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    run = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
           "--no-build-isolation", "-w", str(tmp / "dist"), str(src)]
    res = subprocess.run(run, capture_output=True, text=True, env=_env(), timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    wheel = next((tmp / "dist").glob("webseg-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "shared-env.pth").write_text(
        "\n".join(p for p in site.getsitepackages() if Path(p).is_dir()) + "\n")
    res = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                          "--no-deps", "--no-index", str(wheel)],
                         capture_output=True, text=True, env=_env(), timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return wheel, venv


def test_wheel_holds_only_the_library_packages(installed: tuple[Path, Path]) -> None:
    wheel, venv = installed
    with zipfile.ZipFile(wheel) as z:
        tops = {n.split("/")[0] for n in z.namelist() if not n.split("/")[0].endswith(
            ".dist-info")}
        names = z.namelist()
    assert tops == set(PACKAGES)
    assert "webseg/models/pagetype.json.gz" in names and "webseg/js/walk.js" in names
    if shutil.which("cc"):  # the optional C extension is built where a compiler is
        assert any(n.startswith("webseg/_native/treewalk") and n.endswith(".so")
                   for n in names), names
    purelib = next((venv / "lib").glob("python*/site-packages"))
    for name in ("eval", "bench", "tests"):
        assert not (purelib / name).exists(), f"{name} installed into site-packages"


def test_installed_cli_runs_outside_the_checkout(installed: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    _, venv = installed
    res = subprocess.run([str(venv / "bin" / "webseg"), "--help"], capture_output=True,
                         text=True, cwd=tmp_path, env=_env(), timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    for cmd in ("segment", "index", "search", "pipeline", "dedup", "classify"):
        assert cmd in res.stdout
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import webseg, ir; print(webseg.__file__); print(ir.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=_env(),
                           timeout=60)
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout, where.stdout
    if shutil.which("cc"):
        native = subprocess.run([str(venv / "bin" / "python"), "-c",
                                 "from webseg import _native; print(_native.load('treewalk'))"],
                                capture_output=True, text=True, cwd=tmp_path, env=_env(),
                                timeout=60)
        assert "treewalk" in native.stdout and str(venv) in native.stdout, native.stdout


@pytest.mark.browser
def test_readme_library_example_runs_from_the_installed_wheel(installed: tuple[Path, Path],
                                                              tmp_path: Path) -> None:
    _, venv = installed
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(from webseg\.render import Renderer.*?)```", readme,
                     re.S).group(1)
    (tmp_path / "page.html").write_bytes((ROOT / "tests/fixtures/news.html").read_bytes())
    prog = "paths = ['page.html']\n" + code + "\nprint('SEGMENTS', len(seg))\n"
    res = subprocess.run([str(venv / "bin" / "python"), "-c", prog], capture_output=True,
                         text=True, cwd=tmp_path, env=_env(), timeout=180)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "SEGMENTS" in res.stdout
