"""Optional compiled helpers for the hottest loops, with the pure-Python code as fallback.

The C sources here are built by ``setup.py`` when webseg is installed (``pip install -e .``
builds them in place). They are optional: where no compiler is available the build goes on
without them, and every caller keeps a numpy/Python path that gives the same outputs (the
tests check both). ``WEBSEG_PURE_PYTHON=1`` in the environment makes :func:`load` refuse
them, to run or test the fallback on a machine where they are built.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["load"]

_loaded: dict[str, ModuleType | None] = {}


def load(name: str) -> ModuleType | None:
    """The compiled module ``webseg._native.<name>``, or None when it is not built or
    ``WEBSEG_PURE_PYTHON`` is set (read at each call, so tests can switch it)."""
    if os.environ.get("WEBSEG_PURE_PYTHON", "") not in ("", "0"):
        return None
    if name not in _loaded:
        try:
            _loaded[name] = importlib.import_module(f"{__name__}.{name}")
        except ImportError:
            _loaded[name] = None
    return _loaded[name]
