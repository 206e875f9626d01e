"""Is B really better than A? Paired tests, intervals, ranks and power for model comparison.

One module for what users otherwise stitch together from statsmodels, mlxtend,
scikit-posthocs, autorank, rliable and scipy: result objects with ``.statistic`` /
``.pvalue`` and confidence intervals, reproducible randomness (``random_state``), and
numbers that match base R (``binom.test``, ``t.test``, ``wilcox.test``, ``friedman.test``,
``power.t.test``, ``qtukey``; see ``validation/``).

Every difference is **B minus A** (new minus old): positive means B is better when higher
scores are better.

=========================================  ==============================================
question                                   function
=========================================  ==============================================
same cases, right/wrong per case           :func:`mcnemar`
any metric (F1, AUC), same cases           :func:`paired_bootstrap`
scores per seed, no distribution assumed   :func:`mean_permutation_test`
scores per seed                            :func:`ttest`, :func:`mean_ci`, :func:`iqm`,
                                           :func:`bootstrap_ci`
repeated CV / random splits                :func:`corrected_resampled_ttest`,
                                           :func:`cv5x2_ttest`, :func:`cv5x2_ftest`
two methods over many data sets            :func:`wilcoxon`
many methods over many data sets           :func:`friedman_nemenyi`, :func:`plot_cd_diagram`
many methods against a control             :func:`bonferroni_dunn`
how many seeds / games                     :func:`seeds_needed`, :func:`power_ttest`,
                                           :func:`detectable_effect`, :func:`win_rate_test`,
                                           :func:`games_needed`
runs x tasks, best of K                    :func:`stratified_bootstrap_ci`,
                                           :func:`expected_max_normal`,
                                           :func:`probability_of_improvement`,
                                           :func:`performance_profile`
seed vs split variance                     :func:`variance_components`
=========================================  ==============================================
"""

from ._bootstrap import BootstrapResult, PairedBootstrapResult, bootstrap_ci, paired_bootstrap
from ._cv import corrected_resampled_ttest, cv5x2_ftest, cv5x2_ttest, ttest, wilcoxon
from ._mcnemar import McNemarResult, mcnemar
from ._permutation import mean_permutation_test
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
from ._profiles import ProbabilityOfImprovement, performance_profile, probability_of_improvement
from ._ranks import (
    BonferroniDunnResult,
    FriedmanNemenyiResult,
    bonferroni_dunn,
    friedman_nemenyi,
    plot_cd_diagram,
)
from ._results import TestResult, WilcoxonResult
from ._summaries import (
    MeanCI,
    StratifiedBootstrapResult,
    expected_max_normal,
    iqm,
    mean_ci,
    stratified_bootstrap_ci,
)
from ._variance import VarianceComponents, variance_components

__all__ = [
    "mcnemar", "McNemarResult",
    "paired_bootstrap", "PairedBootstrapResult", "bootstrap_ci", "BootstrapResult",
    "mean_permutation_test",
    "ttest", "wilcoxon", "corrected_resampled_ttest", "cv5x2_ttest", "cv5x2_ftest", "TestResult",
    "WilcoxonResult",
    "friedman_nemenyi", "FriedmanNemenyiResult", "bonferroni_dunn", "BonferroniDunnResult", "plot_cd_diagram",
    "seeds_needed", "power_ttest", "power_ttest_n", "detectable_effect",
    "win_rate_test", "WinRateResult", "games_needed", "GamesNeeded",
    "iqm", "mean_ci", "MeanCI", "stratified_bootstrap_ci", "StratifiedBootstrapResult",
    "expected_max_normal",
    "probability_of_improvement", "ProbabilityOfImprovement", "performance_profile",
    "variance_components", "VarianceComponents",
]

# The former name, kept working for the command line (``predstab compare --test permutation``);
# it is not part of ``__all__``: ``scipy.stats.permutation_test`` has another signature.
permutation_test = mean_permutation_test
