"""Option helpers shared by the ``webseg`` commands: renamed options and retired values that
keep working for one release, with a warning.

Why: scripts written against an older name must not break on upgrade, but ``--help`` should
show one name per thing. A renamed option therefore stays as a hidden alias whose value, when
given on the command line, is handed to the new option (unless that one is given too) after a
one-line warning on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource


def warn(message: str) -> None:
    click.echo(f"webseg: warning: {message}", err=True)


def _key(dest: str) -> str:
    return f"webseg.alias.{dest}"


def renamed(old: str, new: str, dest: str, **kw: Any) -> Callable[[Any], Any]:
    """A hidden option ``old`` (click declaration, e.g. ``"--javascript/--no-javascript"``)
    standing for the option ``new`` whose parameter is ``dest``; ``new``'s option must use
    :func:`takes_alias` as its callback."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE:
            warn(f"{old.split('/')[0]} is renamed {new}; the old name goes in the next release")
            ctx.meta[_key(dest)] = value

    return click.option(*old.split(" "), f"_alias_{dest}", hidden=True, expose_value=False,
                        callback=callback, **kw)


def takes_alias(dest: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """Callback of a renamed option: its own value, or the old name's when only that was
    given (click processes the options given on the command line first)."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        given = ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
        if not given and _key(dest) in ctx.meta:
            return ctx.meta[_key(dest)]
        return value

    return callback
