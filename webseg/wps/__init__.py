"""WPS: web page segmentation as structured prediction on a WPS-graph (Bing et al., SIGIR 2014).

* :mod:`webseg.wps.graph` - candidate boundaries and their dependencies (Algorithm 1), a
  labelling to a :class:`~webseg.segmentation.Segmentation`;
* :mod:`webseg.wps.gold` - gold boundary labels from gold blocks;
* :mod:`webseg.wps.features` - local (Section 4.1) and context (Section 4.2) boundary features;
* :mod:`webseg.wps.inference` - the binary ILP (Eqs. 15-18) solved as an LP with HiGHS (and,
  exactly, by dynamic programming for the training oracles);
* :mod:`webseg.wps.model` - the trained boundary weights (:class:`WPSModel`, JSON files);
* :mod:`webseg.wps.segment` - page -> two-level or tree segmentation with a model;
* :mod:`webseg.wps.train` - structural SVM (Algorithm 2), margin and slack re-scaling;
* :mod:`webseg.wps.positions` - in-segment positions (Algorithm 3).
"""

from webseg.wps.gold import gold_boundary_labels
from webseg.wps.graph import (
    HORIZONTAL,
    VERTICAL,
    Region,
    WPSGraph,
    build_graph,
    raw_boundary_labels,
)
from webseg.wps.inference import InferenceResult, NonIntegralSolution, infer, infer_dp

__all__ = ["HORIZONTAL", "VERTICAL", "InferenceResult", "NonIntegralSolution", "Region",
           "WPSGraph", "build_graph", "gold_boundary_labels", "infer", "infer_dp",
           "raw_boundary_labels"]
