"""Agreement coefficients over an (objects x raters) matrix, exact to R.

Intraclass correlations (``irr::icc``, ``psych::ICC``, with REML for incomplete designs),
Fleiss', Cohen's, Light's and Conger's kappa, Krippendorff's alpha, Gwet's AC1/AC2,
Brennan-Prediger, percent agreement (irr, irrCAC), Cronbach's alpha (``psych::alpha``) and the
rest of irr. Every name is also available from :mod:`predstab` itself.

One module per concept: ``_icc`` / ``_icc_reml`` (intraclass correlations), ``_fleiss``,
``_krippendorff``, ``_cohen`` (Cohen's and Light's kappa), ``_cac`` (irrCAC's chance-corrected
coefficients and their engine; ``_cac_tables`` reads their input), ``_percent`` (irr's and
irrCAC's percent agreement, Maxwell's RE), ``_concordance`` (Kendall's W, mean correlations),
``_variance_ratio`` (Finn, Robinson's A, iota), ``_marginal`` (two raters' table: rater bias,
Stuart-Maxwell, Bhapkar), ``_inter_intra``, ``_kappa_sample_size``, ``_alpha`` (Cronbach's
alpha), with ``_weights`` (the weight families), ``_common`` (shared readers) and
``_docstrings`` (shared numpydoc pieces).
"""

from ._alpha import CronbachAlphaResult, cronbach_alpha
from ._cac import AgreementCoefficientResult, brennan_prediger, conger_kappa, gwet_ac1
from ._cohen import CohenKappaResult, LightKappaResult, cohen_kappa, light_kappa
from ._concordance import KendallWResult, MeanCorrelationResult, kendall_w, mean_correlation, mean_spearman
from ._fleiss import FleissKappaResult, fleiss_kappa
from ._icc import ICCResult, icc, icc_table
from ._icc_reml import ICCRemlResult, icc_reml
from ._inter_intra import InterIntraReliabilityResult, inter_intra_reliability
from ._kappa_sample_size import KappaSampleSizeResult, kappa_sample_size
from ._krippendorff import KrippendorffAlphaResult, krippendorff_alpha
from ._marginal import (
    BhapkarResult,
    FleissLevinPaikResult,
    RaterBiasResult,
    StuartMaxwellResult,
    bhapkar,
    fleiss_levin_paik,
    rater_bias,
    stuart_maxwell,
)
from ._percent import AgreeResult, MaxwellREResult, agree, maxwell_re, percent_agreement
from ._variance_ratio import FinnResult, IotaResult, RobinsonAResult, finn, iota, robinson_a

__all__ = [
    "AgreeResult", "AgreementCoefficientResult", "BhapkarResult", "CohenKappaResult", "CronbachAlphaResult",
    "FinnResult", "FleissKappaResult", "FleissLevinPaikResult", "ICCRemlResult", "ICCResult",
    "InterIntraReliabilityResult", "IotaResult", "KappaSampleSizeResult", "KendallWResult",
    "KrippendorffAlphaResult", "LightKappaResult",
    "MaxwellREResult", "MeanCorrelationResult", "RaterBiasResult", "RobinsonAResult", "StuartMaxwellResult",
    "agree", "bhapkar", "brennan_prediger", "cohen_kappa", "conger_kappa", "cronbach_alpha", "finn",
    "fleiss_kappa", "fleiss_levin_paik", "gwet_ac1", "icc", "icc_reml", "icc_table",
    "inter_intra_reliability", "iota",
    "kappa_sample_size", "kendall_w", "krippendorff_alpha", "light_kappa", "maxwell_re", "mean_correlation",
    "mean_spearman", "percent_agreement", "rater_bias", "robinson_a", "stuart_maxwell",
]
