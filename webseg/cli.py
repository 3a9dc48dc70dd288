"""The ``webseg`` command line.

Exit codes scripts can rely on: 0 everything worked; 1 at least one input failed (each failure is
reported on stderr as ``webseg: error: <input>: <stage>: <reason>``; a batch still processes
every other input); 2 bad usage (unknown option, unknown algorithm, missing file).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from webseg import __version__
from webseg.progress import is_quiet, progress_bar, quiet_option

#: ``webseg segment`` / ``webseg show`` default: the tree cut read at each page's first split,
#: the best level-1 and level-2 segmenter in the 4-fold CV on kreuzer-random
#: (eval/results/cv/README.md, section 5); ``--algo dom`` is the fast reference.
DEFAULT_SEGMENTER = "select"

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

#: ``webseg clean --decoder`` choices: the default (a threshold per page), one global threshold
#: (the same rule on every page) and the PageLevel tree smoothing (the paper's method, kept text
#: follows the DOM). The others did not beat the default in the site-grouped CV; they still work
#: for one release, with a warning (:func:`webseg.blocks.block_functions` keeps them all).
DECODERS = ["stack-page", "stack", "isotonic"]
RETIRED_DECODERS = ["threshold", "cut", "isotonic-s1", "stack-page-forced"]


def _err(msg: str) -> None:
    click.echo(f"webseg: error: {msg}", err=True)


def _is_page_json(path: str) -> bool:
    return path.endswith((".page.json", ".page.json.gz"))


def _render_options(timeout: float, javascript: bool | None, max_nodes: int) -> dict[str, Any]:
    return {"timeout": timeout, "javascript": javascript, "max_nodes": max_nodes}


def _check_inputs(inputs: tuple[str, ...]) -> None:
    """Usage error (exit 2) for an argument that is neither '-', a URL, nor an existing path
    (a ``WARC#offset`` record id counts as its WARC file)."""
    from webseg.render import is_url

    for a in inputs:
        if a == "-" or is_url(a) or Path(a).exists() or Path(_split_record(a)[0]).is_file():
            continue
        raise click.UsageError(f"no such file or directory: {a}")


def _several(inputs: tuple[str, ...]) -> str:
    """The subject of the "need -o" usage error: one WARC or directory given is not "several
    inputs" to the user who typed one name, so it is named with what it holds."""
    if len(inputs) == 1:
        return f"{inputs[0]} holds several pages: they"
    return "several inputs"


def _split_record(arg: str) -> tuple[str, str | None]:
    """``crawl.warc.gz#784`` -> (``crawl.warc.gz``, the record id); other args unchanged."""
    from webseg.inputs import WARC_SUFFIXES

    head, sep, tail = arg.rpartition("#")
    if sep and tail.isdigit() and head.lower().endswith(WARC_SUFFIXES):
        return head, arg
    return arg, None


def _records(inputs: tuple[str, ...]) -> Iterator[Any]:
    """Every input as :class:`webseg.inputs.InputRecord` (one per page), in order.

    Everything goes through :func:`webseg.inputs.iter_inputs` (files, directories, WARC /
    WARC.gz / ARC files, URL lists, URLs), so record ids are the ones every batch command
    uses; ``-`` is stdin and ``*.page.json[.gz]`` files are already rendered pages (kind
    ``page``); ``WARC#offset`` picks one record of a WARC.
    """
    from webseg.inputs import InputRecord, iter_inputs

    for a in inputs:
        if a == "-":
            yield InputRecord(id="-", url=None, source=sys.stdin.buffer.read(), kind="file")
        elif _is_page_json(a):
            yield InputRecord(id=a, url=None, source=Path(a), kind="page")  # type: ignore[arg-type]
        else:
            path, rid = _split_record(a)
            if rid is None:
                yield from iter_inputs([a])
                continue
            found = [r for r in iter_inputs([path]) if r.id == rid]
            yield found[0] if found else InputRecord(
                id=rid, url=None, source=None, kind="warc", error="read: no record at that offset")


def _peek_many(records: Iterator[Any]) -> tuple[bool, Iterator[Any]]:
    """Whether ``records`` holds more than one record, and the same records (read lazily)."""
    import itertools

    head = list(itertools.islice(records, 2))
    return len(head) > 1, itertools.chain(head, records)


def _pages(records: Iterator[Any], opts: dict[str, Any], concurrency: int, progress: bool,
           render: bool = True) -> Iterator[tuple[Any, Any, str | None]]:
    """Yield (record, Page | None, error) for every input record, in order.

    Records of kind ``page`` (``*.page.json[.gz]``) are loaded; the others are rendered in one
    batch (several pages in flight) while results stream out. Skipped records (a WARC's images,
    wget's log records) come back with their reason and ``record.skipped`` set. A run over
    Page JSON alone never starts a browser; nor does ``render=False`` (``--no-render``:
    pages are parsed, :func:`webseg.inputs.parse_inputs`).
    """
    import itertools

    from webseg.inputs import parse_inputs, render_inputs

    if not render:
        bar = progress_bar(desc="pages", unit="page", enabled=progress)
        for item in parse_inputs(records, int(opts.get("max_nodes", 200_000))):
            yield item
            bar.update(1)
        bar.close()
        return

    seen: list[Any] = []
    needs_browser = False
    for rec in records:  # read ahead only until the first record that needs rendering
        seen.append(rec)
        if rec.kind != "page" and rec.error is None:
            needs_browser = True
            break
    records = itertools.chain(seen, records)
    bar = progress_bar(desc="pages", unit="page", enabled=progress)
    if needs_browser:
        results = render_inputs(records, concurrency, **opts)
    else:
        results = render_inputs(records, concurrency, renderer=_NoBrowser())
    for item in results:
        yield item
        bar.update(1)
    bar.close()


class _NoBrowser:
    """Stands in for a Renderer when no record needs rendering."""

    def render_many(self, jobs: Iterator[Any], concurrency: int) -> Iterator[Any]:
        for _ in jobs:
            raise AssertionError("a record needing a browser reached _NoBrowser")
        return iter(())


def _fail(inp: str, e: Exception) -> None:
    stage = getattr(e, "stage", "")
    reason = getattr(e, "reason", str(e))
    _err(f"{inp}: {stage + ': ' if stage else ''}{reason}")


render_opts = [
    click.option("--timeout", default=30.0, show_default=True, help="Per-page time limit (s)."),
    click.option("--js/--no-js", "javascript", default=None,
                 help="JavaScript on/off (default: off for files and bytes, on for URLs)."),
    click.option("--max-nodes", default=200_000, show_default=True,
                 help="Refuse pages whose DOM has more nodes than this."),
]


def with_render_opts(f: Any) -> Any:
    for opt in reversed(render_opts):
        f = opt(f)
    return f


#: Application layers that contribute commands. Each module exposes ``COMMANDS``, a list of
#: click commands; it keeps heavy imports inside the commands so ``webseg --help`` stays fast.
APP_COMMAND_MODULES = ("ir.cli", "dedup.cli", "classify.cli", "webseg.pipeline_cli")


class _WebsegGroup(click.Group):
    """The top-level group; adds the application layers' commands on first use.

    Loading them lazily (not at import time) lets those modules import helpers from this one
    without an import cycle, and a command loads only the layers it needs: ``webseg clean``
    imports none, ``webseg index`` only ``ir.cli`` (each layer's imports cost start-up time,
    which a one-page command feels).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._apps_loaded: set[str] = set()

    def _load_app(self, name: str) -> None:
        if name in self._apps_loaded:
            return
        self._apps_loaded.add(name)
        import importlib

        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that layer is not part of this build
                return
            raise
        for command in module.COMMANDS:
            self.add_command(command)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for name in APP_COMMAND_MODULES:
            self._load_app(name)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        for name in APP_COMMAND_MODULES:
            if command is not None:
                break
            self._load_app(name)
            command = super().get_command(ctx, cmd_name)
        return command


@click.group(cls=_WebsegGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="webseg")
def main() -> None:
    """webseg: the main text, search index, near-duplicates, page types and segments of web
    pages (HTML files, WARC crawls, URLs), in any language.

    \b
    Examples:
      webseg clean article.html                         # main text
      webseg clean crawl.warc.gz --no-render -f json    # no browser, JSON lines
      webseg pipeline crawl.warc.gz -o out/             # all of it: pages.jsonl, dedup, index
      webseg search out/index "query"
      webseg dedup pages/ --report report/              # near-duplicate clusters
      webseg classify predict page.html                 # page type
      webseg segment page.html --algo dom -o seg.json   # segments (webseg algos lists them)
      webseg show page.html --algo dom -o overlay.png
    """


@main.command()
def algos() -> None:
    """List the registered segmentation algorithms and whether each needs layout.

    "layout" segmenters need a rendered page (a browser); "no layout" ones also run on pages
    parsed without one (--no-render).
    """
    from webseg.segmenters import available, get_segmenter

    for name, desc in available().items():
        bound = getattr(get_segmenter(name), "needs_layout", True)
        click.echo(f"{name:16s} {'layout   ' if bound else 'no layout'}  {desc}")


#: -p of segment and show: each segmenter has its own parameters (the default, select, has
#: none of the tree segmenters' ones), so the example names the segmenter it is for
_PARAM_HELP = ("Segmenter parameter (repeatable), e.g. --algo dom -p max_depth=3; an unknown "
               "name is refused with the segmenter's list.")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", help="Output file (one input) or directory (several inputs). "
              "Default: stdout for one input.")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@quiet_option
@with_render_opts
def render(inputs: tuple[str, ...], output: str | None, concurrency: int, timeout: float,
           javascript: bool | None, max_nodes: int) -> None:
    """Render pages (files, directories, URLs or '-' for stdin) to Page JSON.

    \b
    Examples:
      webseg render page.html -o page.page.json
      webseg render pages/ -o rendered/      # writes rendered/<name>.page.json.gz
    """
    _check_inputs(inputs)
    many, records = _peek_many(_records(inputs))
    if many and not output:
        raise click.UsageError(f"{_several(inputs)} need -o DIRECTORY")
    failed = 0
    names = _names(output if many else None)
    for rec, page, err in _pages(records, _render_options(timeout, javascript, max_nodes),
                                 concurrency, progress=many):
        if err is not None:
            failed += _report(rec, err)
            continue
        if names is not None:
            page.save(names.path(rec, ".page.json.gz"))
        elif output:
            page.save(output)
        else:
            click.echo(page.to_json())
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _names(output: str | None) -> Any:
    """Per-record output file names from the records' URLs, with the mapping file
    ``records.jsonl`` in the output directory (:class:`webseg.inputs.OutputNames`); None when
    one result goes to stdout or one file."""
    if output is None:
        return None
    from webseg.inputs import OutputNames

    return OutputNames(output)


def record_label(rec: Any) -> str:
    """How messages name a record: its id, and its URL when that says more (WARC records)."""
    url = getattr(rec, "url", None)
    return f"{rec.id} ({url})" if url and url != rec.id else rec.id


def _report(rec: Any, err: Any) -> int:
    """Report a record without a page; returns 1 for a failure, 0 for a skipped non-page
    (a WARC's image, redirect, error page, revisit or log record, reported as a note)."""
    if getattr(rec, "skipped", False):
        if not is_quiet():
            click.echo(f"webseg: skipped: {record_label(rec)}: {err}", err=True)
        return 0
    if isinstance(err, Exception):
        _fail(record_label(rec), err)
    else:
        _err(f"{record_label(rec)}: {err}")
    return 1


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--algo", "-a", default=DEFAULT_SEGMENTER, show_default=True,
              help="Segmenter (webseg algos).")
@click.option("--param", "-p", multiple=True, metavar="KEY=VALUE",
              help=_PARAM_HELP)
@click.option("-o", "--output", help="Output file (one input) or directory (several).")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse the HTML without a browser (no geometry): only for segmenters that "
              "need no layout (`webseg algos` marks them); reads files and WARC records.")
@quiet_option
@with_render_opts
def segment(inputs: tuple[str, ...], algo: str, param: tuple[str, ...], output: str | None,
            concurrency: int, no_render: bool, timeout: float, javascript: bool | None,
            max_nodes: int) -> None:
    """Segment pages and print (or write) the Segmentation JSON.

    Inputs are HTML files, directories of pages, URLs, '-' for stdin, or rendered
    '*.page.json[.gz]' files (render once with `webseg render`, segment many times).

    \b
    Examples:
      webseg segment page.html --algo dom
      webseg segment page.page.json.gz --algo single -o seg.json
      webseg segment pages/ --algo dom -o segs/
      webseg segment crawl.warc.gz --algo blockfusion --no-render -o segs/
    """
    seg = _make_segmenter(algo, param)
    if no_render and getattr(seg, "needs_layout", True):
        from webseg.pipeline.process import layout_free

        raise click.UsageError(f"--no-render: {algo} needs layout; segmenters that need none: "
                               f"{', '.join(layout_free())}")

    def run(page: Any, many: bool) -> str:  # one JSON per file, or readable on stdout
        return seg.segment(page).to_json(indent=None if many else 2)

    _batch(inputs, output, ".seg.json", run, "segment",
           _render_options(timeout, javascript, max_nodes), concurrency, render=not no_render)


def _batch(inputs: tuple[str, ...], output: str | None, suffix: str, run: Any, stage: str,
           opts: dict[str, Any], concurrency: int, render: bool = True) -> None:
    """Render (or load) every input, apply ``run(page, many) -> str``, write or print the result.

    One input prints to stdout (or ``-o FILE``); several need ``-o DIRECTORY`` and get
    ``<name><suffix>`` files, or ``-o FILE.jsonl``: one JSON line per page (``id`` first).
    Failures are reported and the batch goes on; the exit code says whether any input failed.
    """
    _check_inputs(inputs)
    many, records = _peek_many(_records(inputs))
    if many and not output:
        raise click.UsageError(f"{_several(inputs)} need -o DIRECTORY (or -o FILE.jsonl)")
    lines = _jsonl_sink(output)
    failed = 0
    names = _names(output if many and lines is None else None)
    for rec, page, err in _pages(records, opts, concurrency, progress=many, render=render):
        if err is not None:
            failed += _report(rec, err)
            continue
        try:
            text = run(page, many)
        except Exception as e:  # noqa: BLE001 - report and go on with the batch
            failed += 1
            _err(f"{record_label(rec)}: {stage}: {type(e).__name__}: {e}")
            continue
        if lines is not None:
            lines.write(json.dumps({"id": rec.id, **json.loads(text)}, ensure_ascii=False)
                        + "\n")
        elif names is not None:
            names.path(rec, suffix).write_text(text, encoding="utf-8")
        elif output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            click.echo(text)
    if lines is not None:
        lines.close()
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _jsonl_sink(output: str | None) -> Any:
    """The open file for ``-o FILE.jsonl`` (JSON lines, one per page), else None: a name ending
    in ``.jsonl`` is a file to write, never a directory to create."""
    if not output or not output.endswith(".jsonl"):
        return None
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    return open(output, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller


def _make_segmenter(algo: str, params: tuple[str, ...]) -> Any:
    from webseg.segmenters import get_segmenter

    kwargs: dict[str, Any] = {}
    for p in params:
        if "=" not in p:
            raise click.UsageError(f"--param needs KEY=VALUE, got {p!r}")
        k, v = p.split("=", 1)
        try:
            kwargs[k] = json.loads(v)
        except json.JSONDecodeError:
            kwargs[k] = v
    try:
        seg = get_segmenter(algo, **kwargs)
    except KeyError as e:
        raise click.UsageError(str(e.args[0])) from None
    except TypeError as e:
        names = _param_names(algo)
        unknown = [k for k in kwargs if names is not None and k not in names]
        if unknown:  # the common mistake: say which name, not Python's __init__ message
            takes = f"its parameters: {', '.join(names)}" if names else "it takes none"
            raise click.UsageError(f"-p {unknown[0]}: {algo} has no such parameter; "
                                   f"{takes}") from None
        raise click.UsageError(f"bad parameter for {algo}: {e}{_known_params(algo)}") from None
    _check_param_types(algo, seg, kwargs)
    return seg


def _param_names(algo: str) -> list[str] | None:
    """What ``-p`` accepts for a dataclass segmenter; None when the segmenter does not say."""
    import dataclasses

    from webseg.segmenters.base import _REGISTRY

    factory = _REGISTRY.get(algo, (None,))[0]
    if not dataclasses.is_dataclass(factory):
        return None
    return [f.name for f in dataclasses.fields(factory)
            if f.init and not f.name.startswith("_") and f.name not in ("name", "needs_layout")]


def _known_params(algo: str) -> str:
    """``"; parameters: a, b"`` for a dataclass segmenter (what ``-p`` accepts), else ``""``."""
    names = _param_names(algo)
    return f"; parameters: {', '.join(names)}" if names else ""


def _check_param_types(algo: str, seg: Any, kwargs: dict[str, Any]) -> None:
    """Usage error naming the parameter and its type when a ``-p`` value does not fit the
    segmenter's declared field type (``-p max_depth=x`` would otherwise fail deep inside the
    algorithm with a Python TypeError). Fields of other types (lists, dicts) are not checked."""
    import dataclasses
    import types
    import typing

    if not dataclasses.is_dataclass(seg):
        return
    try:
        hints = typing.get_type_hints(type(seg))
    except Exception:  # noqa: BLE001 - unresolvable annotations: nothing to check against
        return
    simple = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    for key, value in kwargs.items():
        hint = hints.get(key)
        args = typing.get_args(hint) if isinstance(hint, types.UnionType) or \
            typing.get_origin(hint) is typing.Union else (hint,)
        wanted = [a for a in args if a in simple]
        if not wanted or len(wanted) < len([a for a in args if a is not type(None)]):
            continue  # a type this check does not know: the segmenter's own checks apply
        if value is None and type(None) in args:
            continue
        ok = any((t is float and isinstance(value, int | float) and not isinstance(value, bool))
                 or (t is int and isinstance(value, int) and not isinstance(value, bool))
                 or (t in (bool, str) and isinstance(value, t)) for t in wanted)
        if not ok:
            kinds = " or ".join(simple[t] for t in wanted)
            raise click.UsageError(f"-p {key}={json.dumps(value)}: {algo}'s {key} takes "
                                   f"{kinds}")


@main.command()
@click.argument("input")
@click.option("--algo", "-a", default=DEFAULT_SEGMENTER, show_default=True,
              help="Segmenter (webseg algos).")
@click.option("--param", "-p", multiple=True, metavar="KEY=VALUE", help=_PARAM_HELP)
@click.option("-o", "--output", required=True, help="PNG file to write.")
@click.option("--max-height", default=6000, show_default=True,
              help="Crop the screenshot to this many pixels (very long pages).")
@with_render_opts
def show(input: str, algo: str, param: tuple[str, ...], output: str, max_height: int,
         timeout: float, javascript: bool | None, max_nodes: int) -> None:
    """Draw the segments of a page over its full-page screenshot.

    Each level of the segment hierarchy gets its own colour; deeper levels are drawn inset and
    thinner, and every box is labelled with its segment id (``L<level>:<id>``).

    \b
    Example:
      webseg show page.html --algo dom -o overlay.png
    """
    import itertools
    import tempfile

    from webseg.render import Renderer, RenderError
    from webseg.show import draw_segmentation

    seg = _make_segmenter(algo, param)
    _check_inputs((input,))
    recs = list(itertools.islice(_records((input,)), 2))
    if len(recs) != 1:
        raise click.UsageError(f"{input} holds several pages; show one of them, e.g. "
                               f"{recs[0].id}" if recs else f"{input} holds no page")
    rec = recs[0]
    if rec.error is not None:
        _report(rec, rec.error)
        sys.exit(EXIT_FAILED)
    if rec.kind == "page":
        raise click.UsageError("show needs the page itself (HTML, WARC record or URL) to take "
                               "a screenshot, not rendered Page JSON")
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        try:
            with Renderer(**_render_options(timeout, javascript, max_nodes)) as r:
                page = r.render(rec.source, screenshot=shot,
                                url=rec.url if rec.kind == "warc" else None)
        except RenderError as e:
            _fail(rec.id, e)
            sys.exit(EXIT_FAILED)
        result = seg.segment(page)
        draw_segmentation(shot, result, output, max_height=max_height)
    click.echo(f"{output}: {len(result)} segments, {result.depth} level(s) ({algo})")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", help="Output file (one input) or directory (several inputs); "
              "FILE.jsonl: JSON lines in that file. Default: stdout for one input, and JSON "
              "lines on stdout for several with --format json.")
@click.option("--format", "-f", "fmt",
              type=click.Choice(["txt", "markdown", "md", "json", "html"]), default=None,
              help="Output format (md: markdown) [default: txt; json for -o FILE.jsonl].")
@click.option("--links", is_flag=True, help="Markdown: keep links as [text](url).")
@click.option("--method", "-m", default=None,
              help="blocks (the learned block model), pagelevel, pagelevel-basic or "
              "pagelevel-merge. Default: blocks.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse the HTML without a browser (no geometry; blocks method only). "
              "For crawls too large to render; reads files and WARC records, not URLs.")
@click.option("--page-type", "page_type", is_flag=True,
              help="Classify each page's type (shipped page-type model) into the output.")
@click.option("--threshold", default=0.5, show_default=True,
              help="PageLevel: segments with templateness below this are kept.")
@click.option("--decoder", default=None, metavar="[stack-page|stack|isotonic]",
              type=click.Choice(DECODERS + RETIRED_DECODERS),
              help="blocks: how leaf scores become the main-content mask: stack-page (the "
              "default: a threshold learned per page), stack (one threshold for every page), "
              "isotonic (kept text follows the DOM tree, the PageLevel smoothing).")
@click.option("--site-repeats/--no-site-repeats", "site_repeats", default=None,
              help="blocks, several inputs: drop kept text that is a visible text leaf of two "
              "other input pages of the same host (with --site-repeats, local files of one "
              "call form one group too); JSON lists the dropped leaves in 'site_repeated'. "
              "Default: on for pages with an http(s) host "
              "(webseg.blocks.siterepeat.DEFAULT_SITE_REPEATS; eval/results/blocks/siterepeat).")
@click.option("--url", "page_url", default=None, metavar="URL",
              help="The page's address (one input): reported as its 'url' and what relative "
              "links resolve against. Default: the WARC target URI, the URL given, or for a "
              "local file its canonical URL (link rel=canonical, og:url), else its file:// URI.")
@click.option("--html", "as_html", is_flag=True, hidden=True, help="Same as --format html.")
@click.option("--algo", "-a", "algo", default=None, hidden=True, help="Same as --method.")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@quiet_option
@with_render_opts
def clean(inputs: tuple[str, ...], output: str | None, fmt: str, links: bool,
          method: str | None, no_render: bool, page_type: bool, threshold: float,
          decoder: str | None, site_repeats: bool | None, page_url: str | None, as_html: bool,
          algo: str | None, concurrency: int, timeout: float, javascript: bool | None,
          max_nodes: int) -> None:
    """Main content of pages: text, Markdown, JSON (with XPaths) or HTML.

    INPUTS are HTML files, directories of them, WARC files, text files of URLs, URLs,
    '-' for stdin, or rendered '*.page.json[.gz]' files. Every input record gets one result
    or one error line on stderr; a page with no main content gets a note on stderr saying
    why, and JSON says it in 'status' and 'reason' (JSON lines carry every record, errors
    and skipped ones too, each with its 'id' and 'source'). With several inputs a summary
    line on stderr counts the outcomes.

    \b
    Examples:
      webseg clean article.html
      webseg clean article.html --format markdown --links
      webseg clean crawl.warc.gz --no-render --format json > main.jsonl
      webseg clean pages/ -o texts/            # writes texts/<name>.txt
      webseg clean article.html --method pagelevel --format html -o main.html

    With several inputs, text repeated on three pages of one host is dropped as the site's
    template (--no-site-repeats keeps the model's decision; --site-repeats also treats the
    local files of the call as one site).
    """
    from webseg.clean import DEFAULT_METHOD, FORMATS, METHODS
    from webseg.clean.run import clean_records
    from webseg.inputs import InputRecord

    if algo is not None or as_html:
        from webseg.cliopts import warn

        if algo is not None:
            warn("--algo is renamed --method for clean; the old name goes in the next release")
        if as_html:
            warn("--html is --format html; the old flag goes in the next release")
    method = method or algo or DEFAULT_METHOD
    if method not in METHODS:
        raise click.UsageError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if as_html:
        fmt = "html"
    if fmt == "md":
        fmt = "markdown"
    to_jsonl = bool(output and output.endswith(".jsonl"))  # a file of JSON lines, not a dir
    if to_jsonl and fmt not in (None, "json"):
        raise click.UsageError(f"-o {output} writes JSON lines; --format {fmt} does not fit")
    fmt = fmt or ("json" if to_jsonl else "txt")
    if no_render and method != "blocks":
        raise click.UsageError(f"--no-render needs the blocks method ({method} needs layout)")
    extra: dict[str, str] = {}
    if decoder is not None:
        if method != "blocks":
            raise click.UsageError(f"--decoder needs the blocks method, not {method}")
        from webseg.blocks.model import load_model as load_block_model

        if decoder in RETIRED_DECODERS:
            from webseg.cliopts import warn

            warn(f"--decoder {decoder} is retired (it did not beat stack-page in the "
                 "site-grouped CV, docs/main-content.md); it goes in the next release")

        try:
            load_block_model().check_decoder(decoder)
        except (OSError, ValueError) as e:
            raise click.UsageError(f"--decoder: {e}") from None
        extra["decoder"] = decoder
    _check_inputs(inputs)
    records: list[InputRecord] = list(_records(inputs))
    if not records:
        raise click.UsageError("no pages found in the inputs")
    # a directory is a batch even with one page; one that holds no page is one error line
    many = len(records) > 1 or (Path(inputs[0]).is_dir() and records[0].error is None)
    if page_url is not None:
        if many:
            raise click.UsageError("--url names the address of one page; give one input")
        if not page_url.startswith(("http://", "https://", "file:")):
            raise click.UsageError(f"--url must be an http(s) or file URL, not {page_url!r}")
    json_lines = to_jsonl or (many and not output and fmt == "json")
    if many and not output and not json_lines:
        raise click.UsageError(f"{_several(inputs)} need -o DIRECTORY (or --format json for "
                               "JSON lines on stdout)")
    names = _names(output if many and not to_jsonl else None)
    failed = 0
    type_model = None
    if page_type:
        from classify.model import load_model

        try:
            type_model = load_model()
        except (OSError, ValueError) as e:
            raise click.UsageError(f"--page-type: {e}") from None
    if site_repeats and method != "blocks":
        raise click.UsageError(f"--site-repeats needs the blocks method, not {method}")
    local_group = bool(site_repeats)  # asked for: the local files of the call are one site
    if site_repeats is None:
        from webseg.blocks.siterepeat import DEFAULT_SITE_REPEATS
        from webseg.clean.run import hosts_repeat

        site_repeats = DEFAULT_SITE_REPEATS and method == "blocks" and hosts_repeat(records)
    results = clean_records(records, method, render=not no_render,
                            render_options=_render_options(timeout, javascript, max_nodes),
                            concurrency=concurrency, type_model=type_model,
                            threshold=threshold, site_repeats=site_repeats and len(records) > 1,
                            local_group=local_group, url=page_url, **extra)
    bar = progress_bar(total=len(records), desc="clean", unit="page", enabled=many)
    sink = _jsonl_sink(output) if to_jsonl else None
    counts: Counter[str] = Counter()

    def emit(line: str) -> None:
        if sink is not None:
            sink.write(line + "\n")
        else:
            click.echo(line)
    for rec, res, err in results:
        bar.update(1)
        if res is None:
            if rec.skipped:
                counts["skipped"] += 1
                _note(f"{record_label(rec)}: {err}")
            else:
                failed += 1
                counts["failed"] += 1
                _note(f"{record_label(rec)}: {err}", error=True)
            if json_lines:
                emit(json.dumps(_record_line(rec, err),
                                ensure_ascii=False))
            continue
        if res.status != "ok":
            counts[f"empty ({res.reason})"] += 1
            _note(f"{record_label(rec)}: no main content: {res.reason}")
        else:
            counts["ok"] += 1
        if json_lines:
            emit(res.to_json())
            continue
        text = res.format(fmt, links=links)
        if names is not None:
            names.path(rec, FORMATS[fmt], url=res.url).write_text(text, encoding="utf-8")
        elif output:
            Path(output).write_text(text, encoding="utf-8")
        elif text:  # an empty result prints nothing (the note on stderr says why)
            click.echo(text, nl=not text.endswith("\n"))
    bar.close()
    if sink is not None:
        sink.close()
    if many and not is_quiet():
        click.echo(f"webseg: {sum(counts.values())} records: " + ", ".join(
            f"{v} {k}" for k, v in sorted(counts.items(), key=_summary_order)), err=True)
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _summary_order(item: tuple[str, int]) -> tuple[int, str]:
    """ok first, then empty (by reason), skipped, failed."""
    k = item[0]
    return ({"ok": 0, "skipped": 2, "failed": 3}.get(k, 1), k)


def _note(msg: str, error: bool = False) -> None:
    """A line on stderr: errors always, notes unless --quiet."""
    if error or not is_quiet():
        click.echo(f"webseg: {'error' if error else 'note'}: {msg}", err=True)


def _record_line(rec: Any, err: str | None) -> dict[str, Any]:
    """The JSON line of a record without a result (an error, a skipped record): the same
    line the pipeline writes for it (the page-result schema with its fields empty)."""
    from webseg.pipeline.run import no_page_record

    return no_page_record(rec, err or "read: no page")


#: algorithm -> (trainer module, whether its main() takes the algorithm name first)
TRAINERS = {"gcuts": ("webseg.graphseg.train", True), "cclus": ("webseg.graphseg.train", True),
            "pagelevel": ("webseg.templates.train", False),
            "wps": ("webseg.wps.train", False), "treecut": ("webseg.treecut", False),
            "blocks": ("webseg.blocks.train", False)}


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("algo", type=click.Choice(sorted(TRAINERS)))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def train(algo: str, args: tuple[str, ...]) -> None:
    """Train a learnable model; reproduces the one shipped in webseg/models.

    Options after ALGO go to the trainer; `webseg train ALGO -- --help` lists them.

    \b
    Examples:
      webseg train gcuts --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train cclus --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train pagelevel --data ../shared/data/boilerplate/dragnet --out models/
      webseg train wps margin --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train treecut --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train blocks table --data ../shared/data/wcxb-dev   # then: blocks fit --data ...
    """
    import importlib

    module, takes_algo = TRAINERS[algo]
    trainer = importlib.import_module(module)
    sys.exit(trainer.main([algo, *args] if takes_algo else list(args)))


if __name__ == "__main__":
    main()
