"""The segmenter registry imports only the module a run needs, and still finds every name."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webseg.segmenters import available, get_segmenter


def test_one_segmenter_imports_only_its_module():
    """Asking for ``blockfusion`` does not import the other segmenters (nor scipy.spatial,
    which cclus brings), in a fresh interpreter."""
    code = ("import sys; from webseg.segmenters import get_segmenter; "
            "get_segmenter('blockfusion'); "
            "print(sorted(m for m in sys.modules if m.startswith('webseg.segmenters.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "webseg.segmenters.blockfusion" in out
    assert "webseg.segmenters.cclus" not in out and "webseg.segmenters.gcuts" not in out


@pytest.mark.parametrize("name", ["vips", "dom", "single", "gcuts-nl", "pagelevel-basic"])
def test_names_not_named_like_their_module_are_found(name):
    assert name in available()
    assert get_segmenter(name) is not None


def test_unknown_name_lists_the_available_ones():
    with pytest.raises(KeyError, match="available: .*blockfusion"):
        get_segmenter("no-such-segmenter")
