"""Post-hoc tests after Friedman's, as scikit-posthocs has them (issue 38), pinned to the peer's own values.

Each expected value was produced by the peer named beside it, run while the test was written
(not in CI); an independent computation in the test checks the definition where it is short.
"""

import numpy as np
import pytest
from scipy import special

# --------------------------------------------------------------------------- Friedman post-hoc tests
# 12 data sets x 4 methods, rounded to one decimal so that some data sets tie two methods
POSTHOC_SCORES = np.array([
    [0.3, 1.3, 1.3, -1.1], [0.9, 0.9, 0.5, 0.8], [0.4, 0.8, 1.0, 0.7], [-0.7, 0.3, 0.5, 0.8],
    [0.0, 0.2, 0.2, -0.1], [0.0, 0.2, 2.3, 1.2], [-2.7, -1.4, 0.8, -0.2], [0.2, 0.7, 3.1, -0.9],
    [-0.4, 2.5, 1.6, 0.9], [-0.5, -1.1, 1.2, 0.3], [-1.2, -0.2, 0.9, -0.7], [-0.1, 0.6, 1.0, -0.3]])
# scikit-posthocs 0.17.1: sp.posthoc_<test>(POSTHOC_SCORES, p_adjust=adj).to_numpy()[np.triu_indices(4, 1)]
# (posthoc_conover_friedman, posthoc_durbin, posthoc_miller_friedman, posthoc_siegel_friedman, posthoc_quade)
POSTHOC_EXPECTED = [
    ("conover", None, [0.00833225811804654, 7.732806576572035e-05, 0.2781446637880369, 0.09775578863381953,
                       0.09775578863381953, 0.001738782887356724]),
    ("conover", "holm", [0.03332903247218616, 0.0004639683945943221, 0.29326736590145863, 0.29326736590145863,
                         0.29326736590145863, 0.00869391443678362]),
    ("conover", "fdr_bh", [0.01666451623609308, 0.0004639683945943221, 0.2781446637880369,
                           0.11730694636058343, 0.11730694636058343, 0.005216348662070172]),
    ("conover", "bonferroni", [0.04999354870827924, 0.0004639683945943221, 1.0, 0.5865347318029173,
                               0.5865347318029173, 0.010432697324140344]),
    ("conover", "single-step", [0.02576584989301156, 3.820720526526156e-05, 0.6878839366633561,
                                0.3214350883102173, 0.3214350883102173, 0.0036539272740118145]),
    ("durbin", "holm", [0.03332903247218613, 0.0004639683945943205, 0.29326736590145835, 0.29326736590145835,
                        0.29326736590145835, 0.008693914436783582]),
    ("miller", None, [0.17926780368434983, 0.005442151320553441, 0.8599002255768708, 0.61357581107341,
                      0.6135758110734106, 0.06506174110683889]),
    ("siegel", None, [0.026856695507524446, 0.00037431224710860237, 0.3845046293802693, 0.17895873315069943,
                      0.17895873315069977, 0.007189517250165056]),
    ("siegel", "bonferroni", [0.16114017304514666, 0.002245873482651614, 1.0, 1.0, 1.0,
                              0.043137103500990336]),
    ("quade", None, [0.0155934882355448, 6.900198193082136e-05, 0.19303595262756879, 0.053799678083856266,
                     0.23058742866935658, 0.002867165732680013]),
    ("quade", "fdr_bh", [0.0311869764710896, 0.00041401189158492816, 0.23058742866935658, 0.08069951712578441,
                         0.23058742866935658, 0.00860149719804004]),
]


@pytest.mark.parametrize(("method", "p_adjust", "expected"), POSTHOC_EXPECTED)
def test_friedman_posthoc_matches_scikit_posthocs(method, p_adjust, expected):
    from predstab.compare import friedman_posthoc

    res = friedman_posthoc(POSTHOC_SCORES, method=method, p_adjust=p_adjust)
    upper = np.triu_indices(4, 1)
    np.testing.assert_allclose(res.pvalues[upper], expected, rtol=1e-12)
    np.testing.assert_array_equal(res.pvalues, res.pvalues.T)
    assert np.all(np.diag(res.pvalues) == 1.0)


def test_friedman_posthoc_statistics_by_hand():
    from predstab.compare import friedman_nemenyi, friedman_posthoc

    x = POSTHOC_SCORES
    n, k = x.shape
    ranks = np.array([np.argsort(np.argsort(row)) + 1.0 for row in x])
    for row, values in zip(ranks, x, strict=True):  # average the ties
        for v in np.unique(values):
            row[values == v] = row[values == v].mean()
    z = abs(ranks[:, 0].mean() - ranks[:, 2].mean()) / np.sqrt(k * (k + 1) / (6 * n))
    siegel = friedman_posthoc(x, method="siegel")
    assert siegel.statistics[0, 2] == pytest.approx(z, rel=1e-12)
    assert siegel.pvalues[0, 2] == pytest.approx(2 * special.ndtr(-z), rel=1e-12)
    # Miller's and Nemenyi's tests use the same z: chi-squared(k - 1) and the studentized range
    assert friedman_posthoc(x, method="miller").pvalues[0, 2] == pytest.approx(
        float(__import__("scipy").stats.chi2.sf(z**2, k - 1)), rel=1e-12)
    assert friedman_nemenyi(x).nemenyi_pvalues[0, 2] < friedman_posthoc(x, method="miller").pvalues[0, 2]
    # the average ranks follow friedman_nemenyi's direction (1 = best, higher scores better)
    np.testing.assert_allclose(siegel.average_ranks, friedman_nemenyi(x).average_ranks, rtol=1e-15)
    frame = siegel.pvalues_frame()
    assert list(frame.columns) == list(frame.index) == ["method 1", "method 2", "method 3", "method 4"]
    np.testing.assert_array_equal(frame.to_numpy(), siegel.pvalues)


def test_friedman_posthoc_refuses_single_step_outside_conover():
    from predstab.compare import friedman_posthoc

    with pytest.raises(ValueError, match="single-step"):
        friedman_posthoc(POSTHOC_SCORES, method="quade", p_adjust="single-step")
    with pytest.raises(ValueError, match="method"):
        friedman_posthoc(POSTHOC_SCORES, method="nemenyi")
    # the engine's own else (the public function's validation refuses first)
    from predstab.compare._posthoc import _upper_statistics

    ranks = np.tile([1.0, 2.0, 3.0], (4, 1))
    with pytest.raises(ValueError, match="^`method` must be one of 'conover', 'durbin', 'miller', 'siegel', "
                                         "'quade'; got 'nemenyi'.$"):
        _upper_statistics(ranks, ranks, "nemenyi", None)


def test_friedman_posthoc_prints_every_pair():
    from predstab.compare import friedman_posthoc

    res = friedman_posthoc(POSTHOC_SCORES[:, :3], method="siegel", p_adjust="holm")
    lines = str(res).splitlines()
    assert lines[0] == " Siegel post-hoc test after Friedman's (p-values adjusted: holm)"
    assert lines[2] == "3 methods over 12 data sets; pairwise p-values:"
    # statistic and Holm-adjusted p of each pair, 4 significant digits as R prints them
    assert lines[3:] == ["  method 1 vs method 2: statistic = 2.245, p = 0.04949",
                         "  method 1 vs method 3: statistic = 3.572, p = 0.001062",
                         "  method 2 vs method 3: statistic = 1.327, p = 0.1846"]
    z = abs(np.diff(res.average_ranks[[0, 1]]))[0] / np.sqrt(3 * 4 / (6 * 12))
    assert res.statistics[0, 1] == pytest.approx(z, rel=1e-12)
    assert str(friedman_posthoc(POSTHOC_SCORES, method="quade")).splitlines()[0].endswith("(unadjusted)")


@pytest.mark.parametrize(("method", "name"), [("conover", "Conover"), ("durbin", "Durbin"),
                                              ("miller", "Miller"), ("siegel", "Siegel"), ("quade", "Quade")])
def test_friedman_posthoc_names_its_test(method, name):
    from predstab.compare import friedman_posthoc

    res = friedman_posthoc(POSTHOC_SCORES, method=method, p_adjust="bonferroni")
    header = f" {name} post-hoc test after Friedman's (p-values adjusted: bonferroni)"
    assert str(res).splitlines()[0] == header
    assert (res.method, res.p_adjust, res.n_datasets, res.names) == (
        method, "bonferroni", 12, ("method 1", "method 2", "method 3", "method 4"))
