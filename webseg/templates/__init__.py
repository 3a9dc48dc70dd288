"""Page-level template detection (Chakrabarti, Kumar & Punera, WWW 2007).

* :mod:`webseg.templates.isotonic` - regularised tree isotonic regression, the smoothing step
  (:func:`isotonic_smooth` on plain arrays, :func:`smooth_page` on a rendered page);
* :mod:`webseg.templates.sitelevel` - SiteLevel(theta) labels from subtree hashes across the
  pages of a site (the classifier's training data);
* :mod:`webseg.templates.features` - the classifier's per-node features.
"""

from webseg.templates.features import FEATURE_NAMES, node_features
from webseg.templates.isotonic import (
    PageSmoothing,
    is_isotonic,
    isotonic_objective,
    isotonic_smooth,
    section_heads,
    smooth_page,
)
from webseg.templates.sitelevel import sitelevel_labels, subtree_hashes

__all__ = ["FEATURE_NAMES", "PageSmoothing", "is_isotonic", "isotonic_objective",
           "isotonic_smooth", "node_features", "section_heads", "sitelevel_labels",
           "smooth_page", "subtree_hashes"]
