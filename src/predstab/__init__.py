"""predstab: prediction stability of non-deterministic models.

Measures how much the predictions of a model change when it is refit (APS's
phi and psi), the classic agreement coefficients behind that (ICC, Fleiss' kappa,
Krippendorff's alpha), tunes the number of learners of an ensemble (optRF's 2PL
curve) and compares models (``predstab.compare``), with numbers that match the
R packages APS, optRF, irr and psych (see ``validation/``).

All functions take prediction or rating matrices with objects in rows and
replicates (refits, raters) in columns.

Public names are re-exported from private modules on first use, so that
``import predstab`` stays fast (scikit-learn and matplotlib load only when a
function that needs them is called).
"""

import importlib

from ._exceptions import PredstabDataWarning as PredstabDataWarning
from ._exceptions import PredstabDegenerateWarning as PredstabDegenerateWarning
from ._exceptions import PredstabUndefinedWarning as PredstabUndefinedWarning
from ._exceptions import PredstabWarning as PredstabWarning
from ._utils import ConfidenceInterval as ConfidenceInterval

__version__ = "0.1.0"

# public name -> private module that defines it (one home per idea)
_EXPORTS = {
    # agreement coefficients (irr, psych)
    "icc": "._icc",
    "icc_table": "._icc",
    "ICCResult": "._icc",
    "icc_reml": "._icc_reml",
    "ICCRemlResult": "._icc_reml",
    "ratings_from_long": "._long",
    "fleiss_kappa": "._fleiss",
    "FleissKappaResult": "._fleiss",
    "krippendorff_alpha": "._krippendorff",
    "KrippendorffAlphaResult": "._krippendorff",
    "cohen_kappa": "._cohen",
    "CohenKappaResult": "._cohen",
    "light_kappa": "._cohen",
    "LightKappaResult": "._cohen",
    "kappa_sample_size": "._cohen",
    "KappaSampleSizeResult": "._cohen",
    "agree": "._irr",
    "AgreeResult": "._irr",
    "kendall_w": "._irr",
    "KendallWResult": "._irr",
    "finn": "._irr",
    "FinnResult": "._irr",
    "robinson_a": "._irr",
    "RobinsonAResult": "._irr",
    "mean_correlation": "._irr",
    "mean_spearman": "._irr",
    "MeanCorrelationResult": "._irr",
    "maxwell_re": "._irr",
    "MaxwellREResult": "._irr",
    "rater_bias": "._irr",
    "RaterBiasResult": "._irr",
    "stuart_maxwell": "._irr",
    "StuartMaxwellResult": "._irr",
    "bhapkar": "._irr",
    "BhapkarResult": "._irr",
    "iota": "._irr",
    "IotaResult": "._irr",
    "inter_intra_reliability": "._irr",
    "InterIntraReliabilityResult": "._irr",
    # irrCAC's chance-corrected agreement coefficients, psych's alpha
    "percent_agreement": "._cac",
    "gwet_ac1": "._cac",
    "brennan_prediger": "._cac",
    "conger_kappa": "._cac",
    "AgreementCoefficientResult": "._cac",
    "cronbach_alpha": "._alpha",
    "CronbachAlphaResult": "._alpha",
    # APS prediction stability
    "phi": "._stability",
    "psi": "._stability",
    "calculate_phi": "._stability",
    "calculate_psi": "._stability",
    "StabilityResult": "._stability",
    # prediction matrices from estimators
    "repeated_predictions": "._repeated",
    "RepeatedPredictions": "._repeated",
    # number of learners (optRF)
    "fit_2pl": "._twopl",
    "TwoPL": "._twopl",
    "TreePool": "._pool",
    "ClosedFormResult": "._closed_form",
    "tune_num_learners": "._tune",
    "TuningResult": "._tune",
    "Recommendation": "._tune",
    "selection_stability": "._importance",
    "importance_stability": "._importance",
    "SelectionStabilityResult": "._importance",
    "ImportanceStabilityResult": "._importance",
    # scikit-learn integration
    "make_stability_scorer": "._scorer",
    "RefitEnsemble": "._scorer",
    # files (CSV / Parquet) as the command line reads them
    "read_table": "._io",
}
_SUBMODULES = ("compare", "plotting", "cli")

__all__ = sorted(
    [*_EXPORTS, *_SUBMODULES, "ConfidenceInterval", "PredstabDataWarning",
     "PredstabDegenerateWarning", "PredstabUndefinedWarning", "PredstabWarning", "__version__"]
)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'predstab' has no attribute {name!r}")


def __dir__():
    return __all__
