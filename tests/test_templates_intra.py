"""Which links PageLevel's node features count as links within the site (``_is_intra``)."""

from __future__ import annotations

import pytest

from webseg.templates.features import _is_intra


@pytest.mark.parametrize(("href", "host", "intra"), [
    ("http://x.com/a", "x.com", True),
    ("https://WWW.X.COM/a?b", "x.com", True),
    ("//www.x.com/", "x.com", True),
    ("http://x.com", "x.com", True),            # no slash: the full parse
    ("http://x.com:8080/a", "x.com", True),     # a port: the full parse
    ("http://user@x.com/a", "x.com", True),
    ("http://x.com.evil.org/a", "x.com", False),
    ("http://www.www.x.com/a", "x.com", False),  # only one www. is dropped
    ("http://www.x.com/a", "www.x.com", False),  # a page host that itself starts with www.
    ("http://[::1]/a", "x.com", False),
    ("http://y.org/x.com/", "x.com", False),
    ("mailto:a@x.com", "x.com", False),
    ("#top", "x.com", True),
    ("/relative/path", "x.com", True),
    ("http://x.com/a", None, False),
    ("http://y.org/a", "x.com", False),          # another host, told without a parse
    ("http://x\t.com/a", "x.com", True),         # urlsplit drops tabs and line breaks
    ("https://x.\r\ncom/", "x.com", True),
    ("http://x.co/m", "x.com", False),
])
def test_is_intra(href: str, host: str | None, intra: bool) -> None:
    assert _is_intra(href, host) is intra
