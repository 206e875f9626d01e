"""Ensembles and their number of learners: prediction matrices of repeated refits
(``repeated_predictions``), optRF's 2PL curve and recommendation (``fit_2pl``), the pool of
learners with its closed forms (``TreePool``) and the tuning of the number of learners
(``tune_num_learners``). scikit-learn is imported only when an estimator is used. Every name
is also available from :mod:`predstab` itself.
"""

from ._closed_form_result import ClosedFormResult
from ._pool import TreePool
from ._repeated import RepeatedPredictions, repeated_predictions
from ._tune import tune_num_learners
from ._tune_result import Recommendation, TuningResult
from ._twopl import TwoPL, fit_2pl

__all__ = ["ClosedFormResult", "Recommendation", "RepeatedPredictions", "TreePool", "TuningResult", "TwoPL",
           "fit_2pl", "repeated_predictions", "tune_num_learners"]
