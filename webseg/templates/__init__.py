"""Page-level template detection (Chakrabarti, Kumar & Punera, WWW 2007).

* :mod:`webseg.templates.isotonic` - regularised tree isotonic regression (the smoothing step);
* :mod:`webseg.templates.sitelevel` - SiteLevel(theta) labels from subtree hashes across a site.
"""

from webseg.templates.isotonic import (
    PageSmoothing,
    is_isotonic,
    isotonic_objective,
    isotonic_smooth,
    section_heads,
    smooth_page,
)

__all__ = ["PageSmoothing", "is_isotonic", "isotonic_objective", "isotonic_smooth",
           "section_heads", "smooth_page"]
