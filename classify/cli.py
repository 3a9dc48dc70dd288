"""``webseg classify train`` / ``webseg classify predict``: the page-type classifier's CLI.

``webseg/cli.py`` imports this module and adds :data:`COMMANDS` to the ``webseg`` group. Heavy
imports (scikit-learn, the renderer) stay inside the commands so ``webseg --help`` stays fast.

Exit codes follow ``webseg``: 0 every input classified, 1 some input failed (each reported on
stderr as ``webseg: error: <input>: <stage>: <reason>``; the batch goes on), 2 bad usage.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from webseg.cli import _err, _is_page_json, _render_options, with_render_opts
from webseg.progress import is_quiet, progress_bar, quiet_option

__all__ = ["COMMANDS", "classify"]


def _log(message: str) -> None:
    """Training's progress lines on stderr, unless --quiet."""
    if not is_quiet():
        click.echo(message, err=True)


@click.group("classify")
def classify() -> None:
    """Page functional type (article, forum, product, ...).

    Two methods: ``stacked`` (default; webseg/models/pagetype.json.gz): per-view linear
    models over text, title, URL, DOM vocabulary, structured metadata and structure counts,
    stacked under gradient-boosted trees; ``paper``: the WPS in-segment-position TF-ISF SVM
    (webseg/models/pagetype-paper.json.gz). Both were trained on the WCXB dev pages' 7 page
    types, the stacked model also on news articles in Chinese, Russian, Polish, Greek and
    English (DAnIEL); see eval/results/classify/ for their cross-validated accuracy.
    """


@classify.command("train")
@click.option("--data", "data", multiple=True, required=True,
              type=click.Path(exists=True, file_okay=False),
              help="Dataset folder with manifest.jsonl and page_type/label (repeatable).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Model file to write (.json or .json.gz).")
@click.option("--method", type=click.Choice(["stacked", "paper"]), default="stacked",
              show_default=True, help="Which classifier to train.")
@click.option("--C", "c", default=1.0, show_default=True,
              help="paper: SVM regularisation constant.")
@click.option("--select", default=0.1, show_default=True,
              help="paper: fraction of terms kept by information gain.")
@click.option("--views", default=None,
              help="stacked: comma-separated views (default: classify.stacked.DEFAULT_VIEWS).")
@click.option("--render-missing/--no-render-missing", "render", default=True,
              show_default=True,
              help="Render pages missing from the render cache (else they count as failed).")
@click.option("--render", "legacy_render", is_flag=True, default=None, hidden=True,
              help="Old name of --render-missing.")
@click.option("--no-render", "no_render", is_flag=True,
              help="stacked: parse every page without a browser (render cache ignored, no "
              "Chromium): the features classify predict --no-render sees.")
@quiet_option
def train(data: tuple[str, ...], output: str, method: str, c: float, select: float,
          views: str | None, render: bool, legacy_render: bool | None, no_render: bool
          ) -> None:
    """Train the classifier on labelled dataset folders and write the model."""
    if legacy_render:
        click.echo("webseg: warning: classify train --render is now --render-missing",
                   err=True)
        render = True
    if no_render and method != "stacked":
        raise click.UsageError("--no-render: only the stacked method (the paper's method "
                               "reads WPS positions, which need the rendered layout)")
    from classify.corpus import compute_views
    from classify.model import PageTypeModel, file_sha256
    from webseg.datasets import load_records
    from webseg.segmenters.base import get_segmenter
    from webseg.wps.train import MODELS_DIR

    if not 0.0 < select <= 1.0:
        raise click.BadParameter("must be in (0, 1]", param_hint="--select")
    if c <= 0:
        raise click.BadParameter("must be positive", param_hint="--C")
    if method == "stacked":
        _stacked_views(views)
    records = []
    for d in data:
        try:
            recs = load_records(d)
        except (FileNotFoundError, ValueError) as e:
            raise click.UsageError(str(e)) from e
        unlabelled = [r for r in recs if not r.label]
        for r in unlabelled:
            _err(f"{r.dataset}/{r.id}: label: page has no page_type/label")
        records += [r for r in recs if r.label]
    if not records:
        raise click.UsageError("no labelled pages in --data")
    if method == "stacked":
        _train_stacked(records, data, output, views, render and not no_render,
                       parsed=no_render)
        return
    t0 = time.perf_counter()
    vs = compute_views(records, ["positions"], render=render, log=_log)
    have = [r for r in records if r.id in vs.texts["positions"]]
    for r in records:
        if r.id not in vs.texts["positions"]:
            _err(f"{r.dataset}/{r.id}: features: {vs.missing.get(r.id, 'no features')}")
    if len({r.label for r in have}) < 2:
        raise click.UsageError("need pages of at least two types to train")
    t1 = time.perf_counter()
    model = PageTypeModel.fit_texts([vs.texts["positions"][r.id] for r in have],
                                    [str(r.label) for r in have], C=c, select=select)
    t2 = time.perf_counter()
    seg = get_segmenter(model.segmenter)
    wps_file = Path(getattr(seg, "model", None) or MODELS_DIR / "wps-margin.json")
    feats = model.pipeline.named_steps["features"]
    counts: dict[str, int] = {}
    for r in have:
        counts[str(r.label)] = counts.get(str(r.label), 0) + 1
    model.info = {"data": [Path(d).name for d in data], "pages": len(have),
                  "pages_failed": len(records) - len(have), "class_counts": counts,
                  "terms_candidate": feats.n_candidate_terms_,
                  "terms_selected": len(feats.vocabulary_),
                  "wps_model_sha256": file_sha256(wps_file) if wps_file.is_file() else None,
                  "features_seconds": round(t1 - t0, 1), "fit_seconds": round(t2 - t1, 2),
                  "trained": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    model.save(output)
    click.echo(f"trained on {len(have)} pages ({len(records) - len(have)} failed), "
               f"{len(model.classes)} types, {len(feats.vocabulary_)} terms x 10 positions; "
               f"fit {t2 - t1:.1f} s -> {output}", err=True)
    sys.exit(0 if len(have) == len(records) else 1)


def _stacked_views(views: str | None) -> tuple[str, ...]:
    """The ``--views`` of a stacked model, checked before any page is read."""
    from classify.stacked import ALL_VIEWS, DEFAULT_VIEWS

    vlist = tuple(v for v in (views or ",".join(DEFAULT_VIEWS)).split(",") if v)
    bad = [v for v in vlist if v not in ALL_VIEWS or v == "wps"]
    if bad:  # wps needs a WPS run per page: evaluated in eval.classify.stacked, not shipped
        raise click.BadParameter(f"unknown or evaluation-only views {bad}",
                                 param_hint="--views")
    return vlist


def _train_stacked(records: list[Any], data: tuple[str, ...], output: str,
                   views: str | None, render: bool, parsed: bool = False) -> None:
    from classify.corpus import compute_page_views
    from classify.model import StackedPageTypeModel
    from classify.stacked import StackedModel
    from webseg.datasets import DEFAULT_CACHE, cache_path, render_cached

    vlist = _stacked_views(views)
    t0 = time.perf_counter()
    if render:
        missing = [r for r in records if not cache_path(DEFAULT_CACHE, r).is_file()]
        for k in range(0, len(missing), 200):
            render_cached(missing[k:k + 200], DEFAULT_CACHE,
                          log=_log)
    vs = compute_page_views(records, parse_fallback=False, rendered=not parsed, log=_log)
    docs = vs.texts["pageviews"]
    if "blocks" in vlist:
        from classify.blockview import add_block_view

        add_block_view(records, docs, log=_log)
    have = [r for r in records if r.id in docs]
    for r in records:
        if r.id not in docs:
            _err(f"{r.dataset}/{r.id}: features: {vs.missing.get(r.id, 'no features')}")
    if len({r.label for r in have}) < 2:
        raise click.UsageError("need pages of at least two types to train")
    t1 = time.perf_counter()
    sm = StackedModel(views=vlist).fit([docs[r.id] for r in have],
                                       [str(r.label) for r in have],
                                       [r.site or f"#{r.id}" for r in have],
                                       log=_log)
    t2 = time.perf_counter()
    counts: dict[str, int] = {}
    for r in have:
        counts[str(r.label)] = counts.get(str(r.label), 0) + 1
    model = StackedPageTypeModel(sm, {
        "data": [Path(d).name for d in data], "pages": len(have),
        "pages_failed": len(records) - len(have), "class_counts": counts,
        "views": list(vlist), "pages_from": "parsed" if parsed else "rendered",
        "features_seconds": round(t1 - t0, 1),
        "fit_seconds": round(t2 - t1, 1),
        "trained": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    model.save(output)
    click.echo(f"trained on {len(have)} pages ({len(records) - len(have)} failed), "
               f"{len(sm.classes)} types, views {','.join(vlist)}; fit {t2 - t1:.1f} s -> "
               f"{output}", err=True)
    sys.exit(0 if len(have) == len(records) else 1)


@classify.command("predict")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--model", "model_path", default=None, type=click.Path(dir_okay=False),
              help="Model file of either method (default: the shipped model of --method).")
@click.option("--method", type=click.Choice(["stacked", "paper"]), default=None,
              help="Shipped model to use: stacked (default) or paper (WPS positions).")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per line: id, url and page_type (type, probability, "
                   "probabilities of every type), as in clean -f json and pages.jsonl.")
@click.option("-c", "--concurrency", default=3, show_default=True,
              help="Pages rendered in parallel.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser (no geometry: the layout-based features "
              "are missing, so the type is less accurate); files and WARC records only.")
@click.option("--url", "page_url", default=None, metavar="URL",
              help="The page's address (one input file), as in clean --url: the model reads "
              "the URL, so a saved page is typed as the page at its web address. Default: the "
              "WARC target URI, the URL given, or for a local file its canonical URL, else "
              "its file:// URI.")
@quiet_option
@with_render_opts
def predict(inputs: tuple[str, ...], model_path: str | None, method: str | None,
            as_json: bool, concurrency: int, no_render: bool, page_url: str | None,
            timeout: float, javascript: bool | None, max_nodes: int) -> None:
    """Print the page type and its probability for every INPUT.

    INPUT: HTML files (.html, .htm, .html.gz), directories of them, WARC files, URL lists
    (.txt/.urls), http(s) URLs, or rendered pages (.page.json[.gz]).
    """
    from classify.model import load_model
    from webseg.clean.json_out import page_type_object

    if page_url is not None:
        if len(inputs) > 1 or Path(inputs[0]).is_dir():
            raise click.UsageError("--url names the address of one page; give one input")
        if not page_url.startswith(("http://", "https://", "file:")):
            raise click.UsageError(f"--url must be an http(s) or file URL, not {page_url!r}")
    try:
        model = load_model(model_path, method)
    except (FileNotFoundError, ValueError) as e:
        raise click.UsageError(str(e)) from e
    failed = 0
    # progress as every command shows it (webseg.progress: a bar when stderr is a terminal,
    # a plain line every 30 s in a log, nothing with -q), and only once a second page comes:
    # one page's result is its own progress, in a pipe as on a terminal
    bar = _LaterBar(desc="classify", unit="page")
    for inp, url, page, html, error in _pages(inputs, _render_options(timeout, javascript,
                                                                      max_nodes), concurrency,
                                              render=not no_render, url=page_url):
        bar.update(1)
        if page is None:
            if error is not None and error.startswith(SKIPPED):
                click.echo(f"webseg: skipped: {inp}: {error[len(SKIPPED):]}", err=True)
                continue
            _err(f"{inp}: {error}")
            failed += 1
            continue
        try:
            (probs,) = model.predict_proba_pages([page], [html], [url])
        except Exception as e:  # noqa: BLE001 - report and go on with the batch
            _err(f"{inp}: classify: {type(e).__name__}: {e}")
            failed += 1
            continue
        typ = max(probs, key=lambda k: probs[k])
        prob = probs[typ]
        if as_json:
            # the page-result schema's names: id, url and the page_type object
            click.echo(json.dumps({"id": inp, "url": url or page.url,
                                   "page_type": page_type_object(probs)}, ensure_ascii=False))
        else:
            click.echo(f"{inp}\t{typ}\t{prob:.3f}")
    bar.close()
    sys.exit(1 if failed else 0)


class _LaterBar:
    """A :func:`webseg.progress.progress_bar` started at the second page counted: the number
    of pages behind the inputs (a directory, a WARC, a URL list) is known only as they come,
    and a one-page run shows no progress."""

    def __init__(self, desc: str, unit: str) -> None:
        self.desc, self.unit = desc, unit
        self.n = 0
        self._bar: Any = None
        self._started = time.monotonic()  # the rate counts the first page's time too

    def update(self, n: int = 1) -> None:
        self.n += n
        if self._bar is None and self.n >= 2:
            self._bar = progress_bar(desc=self.desc, unit=self.unit, started=self._started)
            self._bar.update(self.n)
        elif self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


#: Prefix of the error of a record that is no page (a WARC redirect, 404, revisit...).
SKIPPED = "skipped: "


def _pages(inputs: tuple[str, ...], opts: dict[str, Any], concurrency: int,
           render: bool = True, url: str | None = None):
    """Yield (input id, url, Page | None, HTML source | None, error) per page, in argument
    order.

    Rendered pages (``.page.json[.gz]``) are loaded (no source); everything else goes through
    :func:`webseg.inputs.iter_inputs` / :func:`~webseg.inputs.render_inputs` with one shared
    renderer (started on first need); local inputs also give their source. ``render=False``
    parses pages instead (no browser). A skipped record's error starts with :data:`SKIPPED`.
    A page's address is :func:`webseg.clean.run.page_url`'s, ``url`` when given.
    """
    import contextlib

    from webseg.clean.run import page_url
    from webseg.inputs import iter_inputs, parse_inputs, render_inputs
    from webseg.page import Page

    with contextlib.ExitStack() as stack:
        renderer = None
        for arg in inputs:
            if _is_page_json(arg):
                try:
                    page = Page.load(arg)
                    page.url = url or page.url
                    yield arg, page.url, page, None, None
                except (OSError, ValueError, EOFError) as e:
                    yield arg, None, None, None, f"read: {e}"
                continue
            if not render:
                results = parse_inputs(iter_inputs([arg]), int(opts.get("max_nodes", 200_000)))
            else:
                if renderer is None:
                    from webseg.render import Renderer

                    renderer = stack.enter_context(Renderer(**opts))
                results = render_inputs(iter_inputs([arg]), concurrency, renderer=renderer)
            for rec, page, error in results:
                if rec.skipped:
                    error = SKIPPED + (error or "")
                if page is None:
                    yield rec.id, rec.url, None, None, error
                    continue
                html = rec.source_html()
                # the address `webseg clean` gives the same record (the record's URL, else a
                # local file's canonical URL or file:// URI), so both commands see one page
                page.url = page_url(rec, page, html, url)
                yield rec.id, page.url, page, html, error


COMMANDS: list[click.Command] = [classify]
