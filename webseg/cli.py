"""The ``webseg`` command line.

Exit codes scripts can rely on: 0 everything worked; 1 at least one input failed (each failure is
reported on stderr as ``webseg: error: <input>: <stage>: <reason>``; a batch still processes
every other input); 2 bad usage (unknown option, unknown algorithm, missing file).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from webseg import __version__

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _err(msg: str) -> None:
    click.echo(f"webseg: error: {msg}", err=True)


def _is_page_json(path: str) -> bool:
    return path.endswith((".page.json", ".page.json.gz"))


def _render_options(timeout: float, javascript: bool | None, max_nodes: int) -> dict[str, Any]:
    return {"timeout": timeout, "javascript": javascript, "max_nodes": max_nodes}


def _source(arg: str) -> Any:
    """CLI argument -> render source: '-' is stdin bytes, URLs stay strings, else a path."""
    if arg == "-":
        return sys.stdin.buffer.read()
    from webseg.render import is_url

    if is_url(arg):
        return arg
    if not Path(arg).exists():
        raise click.UsageError(f"no such file: {arg}")
    return Path(arg)


def _expand(inputs: tuple[str, ...]) -> list[str]:
    """Directories expand to the HTML pages they contain (html, htm, html.gz), sorted."""
    out: list[str] = []
    for a in inputs:
        p = Path(a)
        if a != "-" and p.is_dir():
            out.extend(str(f) for f in sorted(p.rglob("*"))
                       if f.is_file() and f.name.lower().endswith((".html", ".htm", ".html.gz",
                                                                   ".htm.gz")))
        elif a == "-" or Path(a).exists() or _looks_like_url(a):
            out.append(a)
        else:
            raise click.UsageError(f"no such file or directory: {a}")
    return out


def _looks_like_url(a: str) -> bool:
    from webseg.render import is_url

    return is_url(a)


def _pages(inputs: list[str], opts: dict[str, Any], concurrency: int, progress: bool
           ) -> Iterator[tuple[str, Any, Exception | None]]:
    """Yield (input, Page | None, error) for every input, in order.

    Inputs ending in ``.page.json[.gz]`` are loaded; the others are rendered in one batch
    (several pages in flight) while results stream out.
    """
    import contextlib

    from tqdm import tqdm

    from webseg.page import Page
    from webseg.render import Renderer

    to_render = [a for a in inputs if not _is_page_json(a)]
    bar = tqdm(total=len(inputs), disable=not progress or len(inputs) < 2, unit="page",
               file=sys.stderr)
    with contextlib.ExitStack() as stack:
        results: Iterator[Any] = iter(())
        if to_render:
            r = stack.enter_context(Renderer(**opts))
            results = r.render_many((_source(a) for a in to_render), concurrency=concurrency)
        for a in inputs:
            if _is_page_json(a):
                try:
                    yield a, Page.load(a), None
                except (OSError, ValueError) as e:
                    yield a, None, e
            else:
                res = next(results)
                yield a, res.page, res.error
            bar.update(1)
    bar.close()


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
    without an import cycle.
    """

    _apps_loaded = False

    def _load_apps(self) -> None:
        if self._apps_loaded:
            return
        self._apps_loaded = True
        import importlib

        for name in APP_COMMAND_MODULES:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as e:
                if e.name == name:  # that layer is not part of this build
                    continue
                raise
            for command in module.COMMANDS:
                self.add_command(command)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_apps()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load_apps()
        return super().get_command(ctx, cmd_name)


@click.group(cls=_WebsegGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="webseg")
def main() -> None:
    """webseg: split web pages into visually and semantically coherent blocks.

    \b
    Examples:
      webseg algos
      webseg render page.html -o page.page.json
      webseg segment page.html --algo dom -o seg.json
      webseg segment pages/ --algo dom -o out/          # a directory of pages, in a batch
      webseg show page.html --algo dom -o overlay.png
      webseg clean article.html                         # main text
      webseg clean crawl.warc.gz --no-render -f json    # no browser, JSON lines
    """


@main.command()
def algos() -> None:
    """List the registered segmentation algorithms."""
    from webseg.segmenters import available

    for name, desc in available().items():
        click.echo(f"{name:16s} {desc}")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", help="Output file (one input) or directory (several inputs). "
              "Default: stdout for one input.")
@click.option("--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@with_render_opts
def render(inputs: tuple[str, ...], output: str | None, concurrency: int, timeout: float,
           javascript: bool | None, max_nodes: int) -> None:
    """Render pages (files, directories, URLs or '-' for stdin) to Page JSON.

    \b
    Examples:
      webseg render page.html -o page.page.json
      webseg render pages/ -o rendered/      # writes rendered/<name>.page.json.gz
    """
    files = _expand(inputs)
    many = len(files) > 1
    if many and not output:
        raise click.UsageError("several inputs need -o DIRECTORY")
    failed = 0
    for inp, page, err in _pages(files, _render_options(timeout, javascript, max_nodes),
                                 concurrency, progress=True):
        if err is not None:
            failed += 1
            _fail(inp, err)
            continue
        if many:
            out = Path(output) / (_stem(inp) + ".page.json.gz")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.save(out)
        elif output:
            page.save(output)
        else:
            click.echo(page.to_json())
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _stem(inp: str) -> str:
    name = Path(inp).name
    for suf in (".page.json.gz", ".page.json", ".html.gz", ".htm.gz", ".html", ".htm"):
        if name.endswith(suf):
            name = name[: -len(suf)]
            break
    if name == "page" and Path(inp).parent.name:  # kreuzer-style pages/<site>/.../page.html
        name = Path(inp).parent.name
    return name or "page"


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--algo", "-a", default="dom", show_default=True, help="Segmenter (webseg algos).")
@click.option("--param", "-p", multiple=True, metavar="KEY=VALUE",
              help="Segmenter hyper-parameter (repeatable), e.g. -p max_depth=3.")
@click.option("-o", "--output", help="Output file (one input) or directory (several).")
@click.option("--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@with_render_opts
def segment(inputs: tuple[str, ...], algo: str, param: tuple[str, ...], output: str | None,
            concurrency: int, timeout: float, javascript: bool | None, max_nodes: int) -> None:
    """Segment pages and print (or write) the Segmentation JSON.

    Inputs are HTML files, directories of pages, URLs, '-' for stdin, or rendered
    '*.page.json[.gz]' files (render once with `webseg render`, segment many times).

    \b
    Examples:
      webseg segment page.html --algo dom
      webseg segment page.page.json.gz --algo single -o seg.json
      webseg segment pages/ --algo dom -o segs/
    """
    seg = _make_segmenter(algo, param)
    indent = None if len(_expand(inputs)) > 1 else 2  # one JSON per file, or readable on stdout

    def run(page: Any) -> str:
        return seg.segment(page).to_json(indent=indent)

    _batch(inputs, output, ".seg.json", run, "segment",
           _render_options(timeout, javascript, max_nodes), concurrency)


def _batch(inputs: tuple[str, ...], output: str | None, suffix: str, run: Any, stage: str,
           opts: dict[str, Any], concurrency: int) -> None:
    """Render (or load) every input, apply ``run(page) -> str`` and write or print the result.

    One input prints to stdout (or ``-o FILE``); several need ``-o DIRECTORY`` and get
    ``<name><suffix>`` files. Failures are reported and the batch goes on; the exit code says
    whether any input failed.
    """
    files = _expand(inputs)
    many = len(files) > 1
    if many and not output:
        raise click.UsageError("several inputs need -o DIRECTORY")
    failed = 0
    for inp, page, err in _pages(files, opts, concurrency, progress=True):
        if err is not None:
            failed += 1
            _fail(inp, err)
            continue
        try:
            text = run(page)
        except Exception as e:  # noqa: BLE001 - report and go on with the batch
            failed += 1
            _err(f"{inp}: {stage}: {type(e).__name__}: {e}")
            continue
        if many:
            out = Path(output) / (_stem(inp) + suffix)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        elif output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            click.echo(text)
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


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
        return get_segmenter(algo, **kwargs)
    except KeyError as e:
        raise click.UsageError(str(e.args[0])) from None
    except TypeError as e:
        raise click.UsageError(f"bad parameter for {algo}: {e}") from None


@main.command()
@click.argument("input")
@click.option("--algo", "-a", default="dom", show_default=True, help="Segmenter (webseg algos).")
@click.option("--param", "-p", multiple=True, metavar="KEY=VALUE", help="Hyper-parameter.")
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
    import tempfile

    from webseg.render import Renderer, RenderError
    from webseg.show import draw_segmentation

    seg = _make_segmenter(algo, param)
    src = _source(input)
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        try:
            with Renderer(**_render_options(timeout, javascript, max_nodes)) as r:
                page = r.render(src, screenshot=shot)
        except RenderError as e:
            _fail(input, e)
            sys.exit(EXIT_FAILED)
        result = seg.segment(page)
        draw_segmentation(shot, result, output, max_height=max_height)
    click.echo(f"{output}: {len(result)} segments, {result.depth} level(s) ({algo})")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", help="Output file (one input) or directory (several inputs). "
              "Default: stdout for one input, and JSON lines on stdout for several with "
              "--format json.")
@click.option("--format", "-f", "fmt", type=click.Choice(["txt", "markdown", "json", "html"]),
              default="txt", show_default=True, help="Output format.")
@click.option("--links", is_flag=True, help="Markdown: keep links as [text](url).")
@click.option("--method", "-m", default=None,
              help="blocks (the learned block model), pagelevel, pagelevel-basic or "
              "pagelevel-merge. Default: the default of webseg.clean.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse the HTML without a browser (no geometry; blocks method only). "
              "For crawls too large to render; reads files and WARC records, not URLs.")
@click.option("--page-type", "page_type", is_flag=True,
              help="Classify each page's type into the JSON output (rendered pages only).")
@click.option("--threshold", default=0.5, show_default=True,
              help="PageLevel: segments with templateness below this are kept.")
@click.option("--html", "as_html", is_flag=True, hidden=True, help="Same as --format html.")
@click.option("--algo", "-a", "algo", default=None, hidden=True, help="Same as --method.")
@click.option("--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@with_render_opts
def clean(inputs: tuple[str, ...], output: str | None, fmt: str, links: bool,
          method: str | None, no_render: bool, page_type: bool, threshold: float,
          as_html: bool, algo: str | None, concurrency: int, timeout: float,
          javascript: bool | None, max_nodes: int) -> None:
    """Main content of pages: text, Markdown, JSON (with XPaths) or HTML.

    INPUTS are HTML files, directories of them, WARC files, text files of URLs, URLs,
    '-' for stdin, or rendered '*.page.json[.gz]' files. Every input record gets one result
    or one error line on stderr.

    \b
    Examples:
      webseg clean article.html
      webseg clean article.html --format markdown --links
      webseg clean crawl.warc.gz --no-render --format json > main.jsonl
      webseg clean pages/ -o texts/            # writes texts/<name>.txt
      webseg clean article.html --method pagelevel --format html -o main.html
    """
    from webseg.clean import DEFAULT_METHOD, FORMATS, METHODS
    from webseg.clean.run import clean_records
    from webseg.inputs import InputRecord, iter_inputs

    method = method or algo or DEFAULT_METHOD
    if method not in METHODS:
        raise click.UsageError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if as_html:
        fmt = "html"
    if no_render and method != "blocks":
        raise click.UsageError(f"--no-render needs the blocks method ({method} needs layout)")
    if no_render and page_type:
        raise click.UsageError("--page-type classifies rendered pages: drop --no-render")
    records: list[InputRecord] = []
    for a in inputs:
        if a == "-":
            records.append(InputRecord(id="-", url=None, source=sys.stdin.buffer.read(),
                                       kind="file"))
            continue
        if not (_looks_like_url(a) or Path(a).exists()):
            raise click.UsageError(f"no such file or directory: {a}")
        records.extend(iter_inputs([a]))
    if not records:
        raise click.UsageError("no pages found in the inputs")
    many = len(records) > 1 or Path(inputs[0]).is_dir()
    json_lines = many and not output and fmt == "json"
    if many and not output and not json_lines:
        raise click.UsageError("several inputs need -o DIRECTORY (or --format json for JSON "
                               "lines on stdout)")
    names: dict[str, int] = {}
    failed = 0
    results = clean_records(records, method, render=not no_render,
                            render_options=_render_options(timeout, javascript, max_nodes),
                            concurrency=concurrency, page_types=page_type,
                            threshold=threshold)
    bar = None
    if many:
        from tqdm import tqdm

        bar = tqdm(total=len(records), unit="page", file=sys.stderr)
    for rec, res, err in results:
        if bar is not None:
            bar.update(1)
        if res is None:
            if rec.skipped:
                click.echo(f"webseg: note: {rec.id}: {err}", err=True)
                continue
            failed += 1
            _err(f"{rec.id}: {err}")
            continue
        if json_lines:
            d = res.to_dict()
            click.echo(json.dumps({"id": rec.id, **d}, ensure_ascii=False))
            continue
        text = res.format(fmt, links=links)
        if many:
            out = Path(output) / (_record_name(rec, names) + FORMATS[fmt])  # type: ignore[arg-type]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        elif output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            click.echo(text, nl=not text.endswith("\n"))
    if bar is not None:
        bar.close()
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _record_name(rec: Any, taken: dict[str, int]) -> str:
    """A file name for a record's output: the page's stem, ``<warc>-<offset>`` for WARC
    records, a sanitised URL for URLs; ``-2``, ``-3``... when two records share a name."""
    if rec.kind == "warc" and "#" in rec.id:
        path, _, off = rec.id.rpartition("#")
        name = Path(path).name
        for suf in (".warc.gz", ".warc"):
            name = name.removesuffix(suf)
        name = f"{name}-{off}"
    elif rec.kind == "url":
        name = rec.id.split("://", 1)[-1]
    else:
        name = _stem(rec.id)
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:150] or "page"
    k = taken.get(name, 0) + 1
    taken[name] = k
    return name if k == 1 else f"{name}-{k}"


#: algorithm -> (trainer module, whether its main() takes the algorithm name first)
TRAINERS = {"gcuts": ("webseg.graphseg.train", True), "cclus": ("webseg.graphseg.train", True),
            "pagelevel": ("webseg.templates.train", False),
            "wps": ("webseg.wps.train", False)}


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("algo", type=click.Choice(sorted(TRAINERS)))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def train(algo: str, args: tuple[str, ...]) -> None:
    """Train a learnable segmenter; reproduces the model shipped in webseg/models.

    Options after ALGO go to the trainer; `webseg train ALGO -- --help` lists them.

    \b
    Examples:
      webseg train gcuts --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train cclus --data ../shared/data/segmentation/kreuzer-random --out models/
      webseg train pagelevel --data ../shared/data/boilerplate/dragnet --out models/
      webseg train wps margin --data ../shared/data/segmentation/kreuzer-random --out models/
    """
    import importlib

    module, takes_algo = TRAINERS[algo]
    trainer = importlib.import_module(module)
    sys.exit(trainer.main([algo, *args] if takes_algo else list(args)))


if __name__ == "__main__":
    main()
