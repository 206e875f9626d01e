"""Is B really better than A? Paired tests, intervals, ranks and power for model comparison.

One module for what users otherwise stitch together from statsmodels, mlxtend,
scikit-posthocs, autorank, rliable and scipy: result objects with ``.statistic`` /
``.pvalue`` and confidence intervals, reproducible randomness (``random_state``), and
numbers that match base R (``binom.test``, ``t.test``, ``wilcox.test``, ``friedman.test``,
``power.t.test``, ``qtukey``; see ``validation/``).

A function that compares two models takes them as ``a, b``, positional (like
:func:`scipy.stats.ttest_rel`; :func:`variance_components` names its ``baseline``), and every
difference, estimate, one-sided alternative and "improvement" is **B minus A** (or B over A:
new against old): positive means B is better when higher scores are better. Every test result
unpacks like SciPy's: ``statistic, pvalue = compare.ttest(a, b)``. The critical-difference
diagrams are drawn by :func:`predstab.plotting.plot_cd_diagram` (``result.plot()``).

=========================================  ==============================================
question                                   function
=========================================  ==============================================
same cases, right/wrong per case           :func:`mcnemar`
any metric (F1, AUC), same cases           :func:`paired_bootstrap`
scores per seed, no distribution assumed   :func:`mean_permutation_test`
scores per seed                            :func:`ttest`, :func:`mean_ci`, :func:`iqm`,
                                           :func:`bootstrap_ci` (from 30 seeds: too
                                           narrow below)
repeated CV / random splits                :func:`corrected_resampled_ttest`,
                                           :func:`cv5x2_ttest`, :func:`cv5x2_ftest`
two estimators, fit on the same splits     :func:`paired_ttest_5x2cv`,
                                           :func:`paired_ttest_resampled`,
                                           :func:`paired_ttest_kfold_cv`
two methods over many data sets            :func:`wilcoxon`
many methods over many data sets           :func:`friedman_nemenyi` (``.plot()``: the CD diagram)
many methods against a control             :func:`bonferroni_dunn`
which pairs of many methods differ         :func:`friedman_posthoc` (Conover, Quade, ...)
how many seeds / games                     :func:`seeds_needed`, :func:`power_ttest`,
                                           :func:`detectable_effect`, :func:`win_rate_test`,
                                           :func:`games_needed`
runs x tasks, best of K                    :func:`stratified_bootstrap_ci` (of :func:`iqm`,
                                           :func:`aggregate_median`, :func:`aggregate_mean`,
                                           :func:`optimality_gap`),
                                           :func:`expected_max_normal`,
                                           :func:`probability_of_improvement`,
                                           :func:`performance_profile`,
                                           :func:`performance_profile_ci`
seed vs split variance                     :func:`variance_components`
=========================================  ==============================================

What each test's p-value is about (its null hypothesis; docs/benchmarks/calibration.md has
their type I errors and the intervals' coverage at 3-30 runs):

=====================================  =======================================================
test                                   null hypothesis
=====================================  =======================================================
:func:`ttest` (paired, one-sample)     mean difference ``mu`` (normal differences)
:func:`ttest` (Welch, default)         equal means (normal scores; variances may differ)
:func:`mean_permutation_test` paired   differences symmetric about 0
:func:`mean_permutation_test`          one distribution for A and B (exchangeable);
                                       ``statistic="welch"``: equal means
:func:`wilcoxon`                       differences symmetric about 0
:func:`paired_bootstrap`               the metric's difference B - A is 0
:func:`mcnemar`                        B fixes as many cases as it breaks
:func:`corrected_resampled_ttest`      equal expected error (conservative: 0.02-0.04)
:func:`cv5x2_ttest`                    equal expected error (normal fold differences)
:func:`cv5x2_ftest`                    equal expected error (normal fold differences)
:func:`friedman_nemenyi`               methods exchangeable within each data set
:func:`bonferroni_dunn`                a method and the control exchangeable
:func:`win_rate_test`                  B wins each game with probability ``p``
=====================================  =======================================================
"""

from ._bootstrap import BootstrapResult, PairedBootstrapResult, bootstrap_ci, paired_bootstrap
from ._cv import corrected_resampled_ttest, cv5x2_ftest, cv5x2_ttest, ttest, wilcoxon
from ._drivers import paired_split_scores, paired_ttest_5x2cv, paired_ttest_kfold_cv, paired_ttest_resampled
from ._mcnemar import McNemarResult, mcnemar
from ._permutation import mean_permutation_test
from ._posthoc import FriedmanPosthocResult, friedman_posthoc
from ._power import (
    GamesNeeded,
    WinRateResult,
    detectable_effect,
    games_needed,
    power_ttest,
    power_ttest_n,
    seeds_needed,
    win_rate_test,
)
from ._profile_bands import PerformanceProfileResult, performance_profile_ci
from ._profiles import ProbabilityOfImprovement, performance_profile, probability_of_improvement
from ._ranks import BonferroniDunnResult, FriedmanNemenyiResult, bonferroni_dunn, friedman_nemenyi
from ._results import TestResult, WilcoxonResult
from ._summaries import (
    MeanCI,
    StratifiedBootstrapResult,
    aggregate_mean,
    aggregate_median,
    expected_max_normal,
    iqm,
    mean_ci,
    optimality_gap,
    stratified_bootstrap_ci,
)
from ._variance import VarianceComponents, variance_components

__all__ = [
    "mcnemar", "McNemarResult",
    "paired_bootstrap", "PairedBootstrapResult", "bootstrap_ci", "BootstrapResult",
    "mean_permutation_test",
    "ttest", "wilcoxon", "corrected_resampled_ttest", "cv5x2_ttest", "cv5x2_ftest", "TestResult",
    "paired_split_scores", "paired_ttest_kfold_cv", "paired_ttest_resampled", "paired_ttest_5x2cv",
    "WilcoxonResult",
    "friedman_nemenyi", "FriedmanNemenyiResult", "bonferroni_dunn", "BonferroniDunnResult",
    "friedman_posthoc", "FriedmanPosthocResult",
    "seeds_needed", "power_ttest", "power_ttest_n", "detectable_effect",
    "win_rate_test", "WinRateResult", "games_needed", "GamesNeeded",
    "iqm", "aggregate_mean", "aggregate_median", "optimality_gap",
    "mean_ci", "MeanCI", "stratified_bootstrap_ci", "StratifiedBootstrapResult",
    "expected_max_normal",
    "probability_of_improvement", "ProbabilityOfImprovement", "performance_profile",
    "performance_profile_ci", "PerformanceProfileResult",
    "variance_components", "VarianceComponents",
]

# names removed in predstab 0.2.0 (CHANGELOG.md): reading one raises an AttributeError naming its
# replacement
_REMOVED = {
    "plot_cd_diagram": "predstab.compare.plot_cd_diagram moved to predstab.plotting.plot_cd_diagram in "
                       "predstab 0.2.0: it returns the Figure, like every plot of predstab (or call "
                       "result.plot()); see CHANGELOG.md.",
    "permutation_test": "predstab.compare.permutation_test was removed in predstab 0.2.0: call "
                        "predstab.compare.mean_permutation_test (scipy.stats.permutation_test is "
                        "another function); see CHANGELOG.md.",
}


def __getattr__(name):
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
