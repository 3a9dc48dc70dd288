"""Progress of long commands: a bar on a terminal, plain periodic lines elsewhere, nothing with
``--quiet``.

Why not always a tqdm bar: a bar redraws itself with carriage returns, which a log file or a CI
console keeps as one endless line of partial bars. When stderr is not a terminal the same
progress goes out as one ordinary line every :data:`LINE_EVERY` seconds (and a last line at the
end), so a log of a long run still says how far it got. ``--quiet`` (every long command has it,
through :func:`quiet_option`) silences both; errors are still reported.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import click

#: seconds between two plain progress lines (stderr not a terminal)
LINE_EVERY = 30.0

#: set by ``--quiet`` on any command (:func:`quiet_option`); read by :func:`progress_bar`
QUIET = False


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    global QUIET
    QUIET = bool(value)  # every run of a command sets it (click passes the default too)
    return value


def quiet_option(f: Any) -> Any:
    """``-q/--quiet``: no progress bar or progress lines, no notes; errors still go to stderr."""
    return click.option("-q", "--quiet", is_flag=True, expose_value=False, is_eager=True,
                        callback=_set_quiet,
                        help="No progress output or notes (errors are still reported).")(f)


def is_quiet() -> bool:
    return QUIET


class LineProgress:
    """tqdm's ``update`` / ``close`` / ``set_postfix_str`` as plain lines, at most one every
    ``every`` seconds, plus a last one at :meth:`close` when anything was counted."""

    def __init__(self, total: int | None, desc: str, unit: str, file: TextIO,
                 every: float = LINE_EVERY, initial: int = 0,
                 started: float | None = None) -> None:
        self.total, self.desc, self.unit, self.file, self.every = total, desc, unit, file, every
        self.n = initial
        self._initial = initial
        self._last = time.monotonic()
        self._start = self._last if started is None else started
        self._postfix = ""

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            self._write(now)

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        self._postfix = s

    def _write(self, now: float) -> None:
        done = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        pct = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        rate = (self.n - self._initial) / max(now - self._start, 1e-9)
        extra = f", {self._postfix}" if self._postfix else ""
        counted = self.total if self.total else self.n  # "1/4 pages", "1 page", "9 pages"
        units = self.unit if counted == 1 else f"{self.unit}s"
        self.file.write(f"webseg: {self.desc}: {done} {units}{pct}, "
                        f"{rate:.2f} {self.unit}s/s{extra}\n")
        self.file.flush()

    def close(self) -> None:
        if self.n > self._initial:
            self._write(time.monotonic())
            self._initial = self.n  # a second close writes nothing

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Silent:
    n = 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(total: int | None = None, desc: str = "progress", unit: str = "page",
                 enabled: bool = True, initial: int = 0, file: TextIO | None = None,
                 started: float | None = None) -> Any:
    """A progress counter for a long loop: tqdm on a terminal, :class:`LineProgress` otherwise,
    a silent counter when ``enabled`` is false or ``--quiet`` was given. ``started``: the
    :func:`time.monotonic` time the work began, for a bar opened after it (the rate counts
    from there)."""
    out = file if file is not None else sys.stderr
    if not enabled or QUIET:
        return _Silent()
    if getattr(out, "isatty", lambda: False)():
        from tqdm import tqdm

        bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, file=out,
                   leave=False, dynamic_ncols=True)
        if started is not None:  # tqdm's elapsed time and rate count from start_t
            bar.start_t = bar.last_print_t = time.time() - (time.monotonic() - started)
        return bar
    return LineProgress(total, desc, unit, out, initial=initial, started=started)
