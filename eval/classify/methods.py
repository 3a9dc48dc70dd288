"""The methods the harness compares: a view of the page + features + a classifier.

Every method is a scikit-learn pipeline over one cached view (:mod:`classify.corpus`):

=====================  ===============  ================================================  ======
method                 view             features                                          model
=====================  ===============  ================================================  ======
``wps-positions``      positions (10)   TF-ISF per in-segment position, IG top 10 %       SVM
``text``               full             TF-IDF, all terms (paper: Unstructured_Text)      SVM
``bf-segment``         bf-segment       TF-IDF of the informative segment, all terms      SVM
``gcuts-segment``      gcuts-segment    TF-IDF of the informative segment, all terms      SVM
``nb-full``            full             term counts                                       NB
``nb-sitelevel``       sitelevel        term counts of non-template text (SiteLevel)      NB
``nb-pagelevel-basic`` pagelevel-basic  term counts of non-template text (PageLevel Basic) NB
``nb-pagelevel``       pagelevel        term counts of non-template text (PageLevel Smooth) NB
=====================  ===============  ================================================  ======

Ablations (to tell the effect of the positions from that of the IG selection):
``wps-positions-all`` (positions, all terms) and ``text-ig10`` (whole page, IG top 10 %).

SVM = :class:`classify.svm.OvRLinearSVM` (C=1, balanced class weights); NB = scikit-learn's
multinomial Naive Bayes (Laplace smoothing), the classifier family of the 2007 paper's
experiment (McCallum's Rainbow). No hyper-parameter is tuned on any test fold: all are fixed
a priori (paper values where the paper gives one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline

from classify.features import PositionTfIsf
from classify.svm import OvRLinearSVM

__all__ = ["ABLATIONS", "MAIN", "METHODS", "NB", "Method"]


@dataclass(frozen=True)
class Method:
    name: str
    view: str
    build: Callable[[], Pipeline]
    label: str  # for tables and plots


def _svm(n_positions: int, select: float) -> Callable[[], Pipeline]:
    return lambda: Pipeline([("features", PositionTfIsf(n_positions=n_positions,
                                                        select=select)),
                             ("svm", OvRLinearSVM(platt_folds=0))])


def _nb() -> Pipeline:
    return Pipeline([("features", PositionTfIsf(n_positions=1, select=1.0, idf=False,
                                                norm=None)),
                     ("nb", MultinomialNB(alpha=1.0))])


METHODS: dict[str, Method] = {m.name: m for m in [
    Method("wps-positions", "positions", _svm(10, 0.1), "WPS positions TF-ISF (ours)"),
    Method("text", "full", _svm(1, 1.0), "Unstructured_Text"),
    Method("bf-segment", "bf-segment", _svm(1, 1.0), "BF-RULEBASED_Segment"),
    Method("gcuts-segment", "gcuts-segment", _svm(1, 1.0), "GCUTS_Segment"),
    Method("wps-positions-all", "positions", _svm(10, 1.0), "WPS positions, all terms"),
    Method("text-ig10", "full", _svm(1, 0.1), "Text, IG top 10%"),
    Method("nb-full", "full", _nb, "NB FullText"),
    Method("nb-sitelevel", "sitelevel", _nb, "NB SiteLevel"),
    Method("nb-pagelevel-basic", "pagelevel-basic", _nb, "NB PageLevel Basic"),
    Method("nb-pagelevel", "pagelevel", _nb, "NB PageLevel Smooth"),
]}

MAIN = ["wps-positions", "text", "bf-segment", "gcuts-segment"]
ABLATIONS = ["wps-positions-all", "text-ig10"]
NB = ["nb-full", "nb-sitelevel", "nb-pagelevel-basic", "nb-pagelevel"]
