"""Retrain the shipped CClus, GCuts and WPS models on all 81 kreuzer-random pages.

    python -m eval.retrain_all cclus LAMBDA LAMBDA1
    python -m eval.retrain_all gcuts LAMBDA LAMBDA1 [LMNN_POINTS]
    python -m eval.retrain_all margin C
    python -m eval.retrain_all slack C

The hyper-parameters are the ones 4-fold cross-validation chose (``python -m eval.cv``,
``eval/results/cv/choices.json``); the models are fitted on every page, as the team measures
held-out pages separately. Deterministic (seeded), JSON model files in ``webseg/models``.
"""
import json
import sys
from pathlib import Path

from webseg.datasets import gold_labels, read_gold_pages, render_gold_pages
from webseg.graphseg.train import train_cclus, train_gcuts
from webseg.wps.train import PageRecord, fit


def main(argv: list[str]) -> int:
    data = Path("../shared/data/segmentation/kreuzer-random")
    recs = read_gold_pages(data)
    pages = render_gold_pages(recs, progress=False)
    ok = [r for r in recs if not isinstance(pages.get(r.id), Exception)]
    golds = {r.id: gold_labels(pages[r.id], r.blocks, 2)[0] for r in ok}
    what = argv[0]
    cmd = "python -m eval.retrain_all " + " ".join(argv)
    info = {"dataset": data.name, "gold_level": 2, "train_pages": [r.id for r in ok],
            "chosen_by": "4-fold CV (python -m eval.cv, eval/results/cv)", "command": cmd}
    if what == "cclus":
        lam, lam1 = float(argv[1]), float(argv[2])
        m = train_cclus([pages[r.id] for r in ok], [golds[r.id] for r in ok])
        old = json.loads(Path("webseg/models/cclus.json").read_text())["lambda"]
        m.lam = {**old, "cclus": lam, "cclus@1": lam1}
        m.info.update(info)
        m.save("webseg/models/cclus.json")
    elif what == "gcuts":
        # LMNN on every node of 81 pages is too slow for this machine; the CV folds learnt
        # from at most 40 nodes per page (eval.cv), so the shipped model does the same.
        lam, lam1 = float(argv[1]), float(argv[2])
        points = int(argv[3]) if len(argv) > 3 else 40
        m = train_gcuts([pages[r.id] for r in ok], [golds[r.id] for r in ok],
                        lmnn={"max_points": points, "max_iter": 80})
        old = json.loads(Path("webseg/models/gcuts.json").read_text())["lambda"]
        m.lam = {**old, "gcuts": lam, "gcuts@1": lam1}
        m.info.update(info, lmnn_max_points=points)
        m.save("webseg/models/gcuts.json")
    else:
        loss, C = what, float(argv[1])
        m = fit(loss, [PageRecord(r.id, pages[r.id], r.blocks, golds[r.id]) for r in ok], C)
        from eval.cv import WPS_CS

        m.info.update(info, feature_set="local", Cs=WPS_CS)
        if loss == "slack":
            from webseg.wps.train import INFORMATIVE_TYPES

            m.info.update(informative_types=list(INFORMATIVE_TYPES))
        m.save(f"webseg/models/wps-{loss}.json")
    print("saved", what)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
