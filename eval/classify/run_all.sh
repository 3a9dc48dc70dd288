#!/bin/sh
# Regenerates eval/results/classify/ and the shipped webseg/models/pagetype.json.gz.
# Views (segmentations turned into texts) are cached in .cache/webseg/classify/ per model file,
# so after a WPS retraining only the `positions` view is recomputed. Pages come from the shared
# render cache (python -m webseg.datasets DIR fills it). Run from the repository root.
set -e
P=${PYTHON:-.venv/bin/python}
for D in ../shared/data/wcxb-dev ../shared/data/webkb; do
    # two processes: the WPS positions, and everything else but GCuts; then GCuts (slowest)
    $P -m eval.classify.precompute --data $D --views positions &
    $P -m eval.classify.precompute --data $D \
        --views full,bf-segment,sitelevel,pagelevel-basic,pagelevel
    wait
    $P -m eval.classify.precompute --data $D --views gcuts-segment
done
$P -m eval.classify --data ../shared/data/wcxb-dev --cached-only --out eval/results/classify/wcxb
$P -m eval.classify --data ../shared/data/webkb --cached-only --out eval/results/classify/webkb
# the shipped model: all WCXB dev pages
$P -m webseg.cli classify train --data ../shared/data/wcxb-dev -o webseg/models/pagetype.json.gz \
    --no-render
