"""Tables (CSV + markdown) and plots of :mod:`eval.templates.harness` results.

All scores are means over pages (``nan`` entries - e.g. the precision of an empty output - are
left out of the mean, see :func:`eval.templates.textmetrics.bow_prf`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from eval.segmentation import write_csv
from eval.templates.run import nanmean

__all__ = ["write_report"]

OURS_TEMPLATE = ["pagelevel-basic", "pagelevel", "pagelevel-merge", "pagelevel-gold"]
LABEL = {"pagelevel": "PageLevel Smooth", "pagelevel-basic": "PageLevel Basic",
         "pagelevel-merge": "PageLevel Basic+Merge", "pagelevel-gold": "Smooth, supervised model",
         "blocks": "block model (in-sample)", "keep-all": "keep all text"}
PER_PAGE_FIELDS = ["dataset", "id", "page_type", "method", "p", "r", "f1", "pred_words",
                   "t_text_p", "t_text_r", "t_text_f", "t_anchor_text_f", "t_links_f",
                   "segments", "coverage", "template_share", "seconds", "error"]


def _f(x: float, nd: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def _sel(rows: list[dict], **kw: Any) -> list[dict]:
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def _md_table(header: list[str], body: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |",
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
            *("| " + " | ".join(r) + " |" for r in body)]


def write_report(out: Path, results: list[tuple[str, dict[str, Any], list[dict]]],
                 methods: list[str], grid: list[float], command: str,
                 plots: bool = True) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = [r for _, _, rs in results for r in rs]
    main = [r for r in rows if not r["sweep"]]
    names = [n for n, _, _ in results]
    write_csv(out / "per_page.csv.gz", [{k: r.get(k, "") for k in PER_PAGE_FIELDS}
                                        for r in main], PER_PAGE_FIELDS)
    md = [f"# Template detection and main-content extraction: {', '.join(names)}", "",
          f"Command: `{command}`", ""]

    # --- data
    data_rows = []
    for name, c, _ in results:
        al = c["alignment"]
        cov = [a["coverage"] for a in al]
        data_rows.append({
            "dataset": name, "manifest": c["manifest"], "no_gold": c["no_gold"],
            "other_split": c["other_split"], "gold_not_in_html": c["gold_not_in_html"],
            "over_limit": c.get("over_limit", 0), "not_rendered": c["not_rendered"],
            "incomplete": c.get("incomplete", 0), "scored": c["scored"],
            "empty_gold": c["empty_gold"], "coverage_mean": nanmean(cov),
            "coverage_below_0.5": int(sum(1 for x in cov if x is not None and x < 0.5)),
            "template_share": nanmean(a["template_share"] for a in al)})
    write_csv(out / "datasets.csv", data_rows, list(data_rows[0]))
    md += ["## Pages", "",
           *_md_table(["dataset", "in manifest", "gold null", "other split",
                       "gold not in HTML", "not sampled", "not rendered", "not run", "scored",
                       "empty gold", "gold words aligned", "pages < 50% aligned",
                       "template word share"],
                      [[d["dataset"], *(str(d[k]) for k in ("manifest", "no_gold",
                        "other_split", "gold_not_in_html", "over_limit", "not_rendered",
                        "incomplete", "scored",
                        "empty_gold")), _f(d["coverage_mean"]), str(d["coverage_below_0.5"]),
                        _f(d["template_share"])] for d in data_rows]), ""]

    # --- content F1
    content = []
    for name in names:
        for m in methods:
            sel = _sel(main, dataset=name, method=m)
            if sel:
                content.append({"dataset": name, "method": m, "pages": len(sel),
                                "p": nanmean(r["p"] for r in sel),
                                "r": nanmean(r["r"] for r in sel),
                                "f1": nanmean(r["f1"] for r in sel),
                                "f1_median": float(np.median([r["f1"] for r in sel])),
                                "errors": sum(1 for r in sel if r["error"]),
                                "ms_median": 1000 * float(np.median([r["seconds"] for r in sel]))})
    write_csv(out / "content_f1.csv", content, list(content[0]) if content else ["dataset"])
    body = []
    for m in methods:
        vals = [next((c["f1"] for c in content if c["dataset"] == n and c["method"] == m),
                     math.nan) for n in names]
        body.append([LABEL.get(m, m), *(_f(v) for v in vals), _f(nanmean(vals))])
    md += ["## Main-content word F1 (bag of words, WCXB metric), mean over pages", "",
           *_md_table(["method", *names, "mean of sets"], body), "",
           "Precision / recall / median / errors / median ms per set: `content_f1.csv`.", ""]

    # --- template f-measure (paper Table 1)
    tmpl = []
    for name in names:
        for m in [x for x in OURS_TEMPLATE if x in methods]:
            sel = _sel(main, dataset=name, method=m)
            if sel:
                tmpl.append({"dataset": name, "method": m, "pages": len(sel),
                             **{k: nanmean(r.get(k, math.nan) for r in sel) for k in
                                ("t_text_p", "t_text_r", "t_text_f", "t_anchor_text_f",
                                 "t_links_f")},
                             "segments": nanmean(r.get("segments", math.nan) for r in sel)})
    if tmpl:
        write_csv(out / "template_f.csv", tmpl, list(tmpl[0]))
        md += ["## Template f-measure (paper Table 1): text words, anchor-text words, links", "",
               *_md_table(["set", "method", "pages", "text P", "text R", "text F", "anchor F",
                           "links F", "segments/page"],
                          [[t["dataset"], LABEL.get(t["method"], t["method"]), str(t["pages"]),
                            _f(t["t_text_p"]), _f(t["t_text_r"]), _f(t["t_text_f"]),
                            _f(t["t_anchor_text_f"]), _f(t["t_links_f"]),
                            _f(t["segments"], 1)] for t in tmpl]), ""]

    # --- per page type (WCXB)
    typed = [r for r in main if r["page_type"]]
    if typed:
        types = sorted({r["page_type"] for r in typed})
        per_type, body = [], []
        for m in methods:
            vals = []
            for t in types:
                sel = _sel(typed, method=m, page_type=t)
                v = nanmean(r["f1"] for r in sel)
                vals.append(v)
                per_type.append({"method": m, "page_type": t, "pages": len(sel), "f1": v})
            body.append([LABEL.get(m, m), *(_f(v) for v in vals)])
        n_t = [len(_sel(typed, method=methods[0], page_type=t)) for t in types]
        write_csv(out / "per_type.csv", per_type, list(per_type[0]))
        md += ["## Main-content word F1 per page type (sets with page types: "
               f"{', '.join(sorted({r['dataset'] for r in typed}))})", "",
               *_md_table(["method", *(f"{t} ({n})" for t, n in zip(types, n_t,
                                                                    strict=True))], body), ""]

    # --- sweep (paper Figure 2)
    if grid:
        sw = []
        for name in names:
            for c in grid:
                sel = _sel(rows, dataset=name, method=f"c={c:g}")
                if sel:
                    sw.append({"dataset": name, "c": c, "pages": len(sel),
                               "t_text_f": nanmean(r["t_text_f"] for r in sel),
                               "t_anchor_text_f": nanmean(r["t_anchor_text_f"] for r in sel),
                               "t_links_f": nanmean(r["t_links_f"] for r in sel),
                               "content_f1": nanmean(r["f1"] for r in sel),
                               "segments": nanmean(r["segments"] for r in sel)})
        if sw:
            write_csv(out / "sweep_c.csv", sw, list(sw[0]))
            md += ["## Penalty sweep (paper Figure 2): PageLevel Smooth vs c", "",
                   *_md_table(["set", "c", "pages", "text F", "anchor F", "links F",
                               "content F1", "segments/page"],
                              [[s["dataset"], f"{s['c']:g}", str(s["pages"]), _f(s["t_text_f"]),
                                _f(s["t_anchor_text_f"]), _f(s["t_links_f"]),
                                _f(s["content_f1"]), _f(s["segments"], 1)] for s in sw]), ""]
            if plots:
                _plot_sweep(sw, names, out / "sweep_c.png")
    if plots:
        _plot_content(content, names, methods, out / "content_f1.png")
    (out / "summary.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "run.json").write_text(json.dumps({"command": command, "datasets": names,
                                              "methods": methods, "grid": grid}, indent=2),
                                  encoding="utf-8")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plot_content(content: list[dict], names: list[str], methods: list[str], path: Path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(7.0, 1.6 * len(names) + 3), 4.5))
    width = 0.8 / max(len(methods), 1)
    for k, m in enumerate(methods):
        vals = [next((c["f1"] for c in content if c["dataset"] == n and c["method"] == m),
                     math.nan) for n in names]
        ax.bar(np.arange(len(names)) + k * width, vals, width, label=LABEL.get(m, m))
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names)
    ax.set_ylabel("mean bag-of-words F1")
    ax.set_ylim(0, 1)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_sweep(sw: list[dict], names: list[str], path: Path) -> None:
    plt = _plt()
    keys = [("t_text_f", "template F (text)"), ("t_anchor_text_f", "template F (anchor text)"),
            ("t_links_f", "template F (links)"), ("content_f1", "content word F1")]
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 3.8), squeeze=False)
    for ax, (k, title) in zip(axes[0], keys, strict=True):
        for n in names:
            pts = sorted((s["c"], s[k]) for s in sw if s["dataset"] == n)
            pos = [(c, v) for c, v in pts if c > 0]
            line = ax.plot([c for c, _ in pos], [v for _, v in pos], "o-", label=n)[0]
            zero = [v for c, v in pts if c == 0]
            if zero:
                ax.axhline(zero[0], ls=":", color=line.get_color())
        ax.set_xscale("log")
        ax.axvline(0.01, color="grey", lw=0.8)
        ax.set_xlabel("penalty constant c (dotted: c = 0; grey: default 0.01)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
