"""Graph-theoretic segmentation (Chakrabarti, Kumar & Punera, WWW 2008): GCuts and CClus.

The pieces, each a small module of plain functions over numpy arrays:

* :mod:`webseg.graphseg.features` - the *content tree* (the DOM restricted to nodes that hold
  visible text), node features (visual and content), visually adjacent leaf pairs and pair
  features (visual distance, DOM tree distance, style differences), all vectorised over the
  :class:`~webseg.page.Page` columns.
* :mod:`webseg.graphseg.energy` - the energy of Eq. (1) with the invisible label xi and the
  domain constraints (3)-(8), evaluated exactly, plus the graph-representability check of
  Theorem 2.
* :mod:`webseg.graphseg.expansion` - alpha-expansion with PyMaxflow, using the paper's
  three-stage graph (single-node costs; x, y, z for adjacent leaves; u(s) / u(t) nodes per
  parent so that a parent can turn invisible while its children split).
* :mod:`webseg.graphseg.correlation` - the Ailon-Charikar-Newman pivot algorithm (CClus).
* :mod:`webseg.graphseg.learn` - logistic regression for Vpq, a large-margin nearest-neighbour
  Mahalanobis metric for Dp, and the JSON model format shipped in ``webseg/models``.
* :mod:`webseg.graphseg.train` - ``python -m webseg.graphseg.train gcuts|cclus --data DIR --out
  DIR``: fit on the train pages, choose lambda on the validation pages.

The segmenters themselves live in :mod:`webseg.segmenters.gcuts` and
:mod:`webseg.segmenters.cclus`.
"""
