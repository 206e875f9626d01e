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

# first of all, before even importlib: a Ctrl-C while `predstab` starts prints one line
from ._core import _startup  # noqa: F401, I001

import importlib  # noqa: I001
from ._core._exceptions import PredstabDataWarning as PredstabDataWarning
from ._core._exceptions import PredstabDegenerateWarning as PredstabDegenerateWarning
from ._core._exceptions import PredstabOrientationWarning as PredstabOrientationWarning
from ._core._exceptions import PredstabUndefinedWarning as PredstabUndefinedWarning
from ._core._exceptions import PredstabWarning as PredstabWarning
from ._core._utils import ConfidenceInterval as ConfidenceInterval

__version__ = "0.2.0"

# public name -> private module that defines it (one home per idea)
_EXPORTS = {
    # agreement coefficients (irr, psych, irrCAC), one module per concept
    "icc": ".agreement._icc",
    "icc_table": ".agreement._icc",
    "ICCResult": ".agreement._icc",
    "icc_reml": ".agreement._icc_reml",
    "ICCRemlResult": ".agreement._icc_reml",
    "ratings_from_long": "._core._long",
    "fleiss_kappa": ".agreement._fleiss",
    "FleissKappaResult": ".agreement._fleiss",
    "krippendorff_alpha": ".agreement._krippendorff",
    "KrippendorffAlphaResult": ".agreement._krippendorff",
    "cohen_kappa": ".agreement._cohen",
    "CohenKappaResult": ".agreement._cohen",
    "light_kappa": ".agreement._cohen",
    "LightKappaResult": ".agreement._cohen",
    "gwet_ac1": ".agreement._cac",
    "brennan_prediger": ".agreement._cac",
    "conger_kappa": ".agreement._cac",
    "AgreementCoefficientResult": ".agreement._cac",
    "agree": ".agreement._percent",
    "AgreeResult": ".agreement._percent",
    "percent_agreement": ".agreement._percent",
    "maxwell_re": ".agreement._percent",
    "MaxwellREResult": ".agreement._percent",
    "kendall_w": ".agreement._concordance",
    "KendallWResult": ".agreement._concordance",
    "mean_correlation": ".agreement._concordance",
    "mean_spearman": ".agreement._concordance",
    "MeanCorrelationResult": ".agreement._concordance",
    "finn": ".agreement._variance_ratio",
    "FinnResult": ".agreement._variance_ratio",
    "robinson_a": ".agreement._variance_ratio",
    "RobinsonAResult": ".agreement._variance_ratio",
    "iota": ".agreement._variance_ratio",
    "IotaResult": ".agreement._variance_ratio",
    "rater_bias": ".agreement._marginal",
    "RaterBiasResult": ".agreement._marginal",
    "stuart_maxwell": ".agreement._marginal",
    "StuartMaxwellResult": ".agreement._marginal",
    "bhapkar": ".agreement._marginal",
    "BhapkarResult": ".agreement._marginal",
    "fleiss_levin_paik": ".agreement._marginal",
    "FleissLevinPaikResult": ".agreement._marginal",
    "inter_intra_reliability": ".agreement._inter_intra",
    "InterIntraReliabilityResult": ".agreement._inter_intra",
    "kappa_sample_size": ".agreement._kappa_sample_size",
    "KappaSampleSizeResult": ".agreement._kappa_sample_size",
    "cronbach_alpha": ".agreement._alpha",
    "CronbachAlphaResult": ".agreement._alpha",
    # APS prediction stability
    "phi": ".stability._stability",
    "psi": ".stability._stability",
    "calculate_phi": ".stability._stability",
    "calculate_psi": ".stability._stability",
    "StabilityResult": ".stability._result",
    # prediction matrices from estimators
    "repeated_predictions": ".ensembles._repeated",
    "RepeatedPredictions": ".ensembles._repeated",
    # number of learners (optRF)
    "fit_2pl": ".ensembles._twopl",
    "TwoPL": ".ensembles._twopl",
    "TreePool": ".ensembles._pool",
    "DaskTreePool": ".ensembles._distributed",  # TreePool on a dask.distributed cluster
    "ClosedFormResult": ".ensembles._closed_form_result",
    "tune_num_learners": ".ensembles._tune",
    "TuningResult": ".ensembles._tune_result",
    "Recommendation": ".ensembles._tune_result",
    "selection_stability": ".stability._importance",
    "importance_stability": ".stability._importance",
    "SelectionStabilityResult": ".stability._importance",
    "ImportanceStabilityResult": ".stability._importance",
    # scikit-learn integration
    "make_stability_scorer": "._scorer",
    "RefitEnsemble": "._scorer",
    # files (CSV / Parquet) as the command line reads them
    "read_table": "._core._reading",
}
_SUBMODULES = ("agreement", "stability", "ensembles", "compare", "plotting", "cli")

__all__ = sorted(
    [*_EXPORTS, *_SUBMODULES, "ConfidenceInterval", "PredstabDataWarning",
     "PredstabDegenerateWarning", "PredstabUndefinedWarning", "PredstabWarning", "__version__",
     "PredstabOrientationWarning"]
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
