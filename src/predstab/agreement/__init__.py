"""Agreement coefficients over an (objects x raters) matrix, exact to R.

Intraclass correlations (``irr::icc``, ``psych::ICC``, with REML for incomplete designs),
Fleiss', Cohen's, Light's and Conger's kappa, Krippendorff's alpha, Gwet's AC1/AC2,
Brennan-Prediger, percent agreement (irr, irrCAC), Cronbach's alpha (``psych::alpha``) and the
rest of irr. Every name is also available from :mod:`predstab` itself.
"""

from ._alpha import CronbachAlphaResult, cronbach_alpha
from ._cac import AgreementCoefficientResult, brennan_prediger, conger_kappa, gwet_ac1, percent_agreement
from ._cohen import (
    CohenKappaResult,
    KappaSampleSizeResult,
    LightKappaResult,
    cohen_kappa,
    kappa_sample_size,
    light_kappa,
)
from ._fleiss import FleissKappaResult, fleiss_kappa
from ._icc import ICCResult, icc, icc_table
from ._icc_reml import ICCRemlResult, icc_reml
from ._irr import (
    AgreeResult,
    BhapkarResult,
    FinnResult,
    InterIntraReliabilityResult,
    IotaResult,
    KendallWResult,
    MaxwellREResult,
    MeanCorrelationResult,
    RaterBiasResult,
    RobinsonAResult,
    StuartMaxwellResult,
    agree,
    bhapkar,
    finn,
    inter_intra_reliability,
    iota,
    kendall_w,
    maxwell_re,
    mean_correlation,
    mean_spearman,
    rater_bias,
    robinson_a,
    stuart_maxwell,
)
from ._krippendorff import KrippendorffAlphaResult, krippendorff_alpha

__all__ = [
    "AgreeResult", "AgreementCoefficientResult", "BhapkarResult", "CohenKappaResult", "CronbachAlphaResult",
    "FinnResult", "FleissKappaResult", "ICCRemlResult", "ICCResult", "InterIntraReliabilityResult",
    "IotaResult", "KappaSampleSizeResult", "KendallWResult", "KrippendorffAlphaResult", "LightKappaResult",
    "MaxwellREResult", "MeanCorrelationResult", "RaterBiasResult", "RobinsonAResult", "StuartMaxwellResult",
    "agree", "bhapkar", "brennan_prediger", "cohen_kappa", "conger_kappa", "cronbach_alpha", "finn",
    "fleiss_kappa", "gwet_ac1", "icc", "icc_reml", "icc_table", "inter_intra_reliability", "iota",
    "kappa_sample_size", "kendall_w", "krippendorff_alpha", "light_kappa", "maxwell_re", "mean_correlation",
    "mean_spearman", "percent_agreement", "rater_bias", "robinson_a", "stuart_maxwell",
]
