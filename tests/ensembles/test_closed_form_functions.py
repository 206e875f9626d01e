"""Value-pinning checks of predstab.ensembles._closed_form on small hand-made arrays (issue 12, item 8).

Every closed form is a pure function of per-learner predictions (objects x learners[, classes]),
an optional out-of-bag mask and a generator, so it is checked here against independent
computations written in the test: numpy / scipy re-derivations of the formulas in the
docstrings (per-object variance decomposition, Binomial sums), brute-force enumeration of every
pair of disjoint forests of a pool, and the resampled pools of the same multinomial counts.
Forests of one learner make the random-ordering U-statistic deterministic (every ordering cuts
the pool into the same single learners), so those are pinned exactly.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from predstab import ConfidenceInterval, PredstabDegenerateWarning, PredstabUndefinedWarning
from predstab.ensembles import _closed_form as cf
from predstab.ensembles import _vote_mixture as vm
from tests.ensembles._pools import (
    jackknife_scaled,
    percentile_band,
)

# the closed forms handle 0 / 0 (objects without votes) themselves: no numpy warning reaches a user
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


RNG = np.random.default_rng(20)


# 6 objects x 8 trees: object effects plus tree noise of unequal size per object
T = (np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 4.0])[:, None]
     + RNG.normal(size=(6, 8)) * np.array([0.5, 1.0, 1.5, 0.8, 1.2, 2.0])[:, None])


# out-of-bag mask: row 4 has one voter (dropped), row 5 none (dropped)
MASK = np.array([[1, 0, 1, 1, 0, 1, 0, 1],
                 [0, 1, 1, 0, 1, 0, 1, 1],
                 [1, 1, 0, 1, 1, 1, 0, 0],
                 [1, 0, 0, 1, 0, 0, 1, 0],
                 [0, 0, 0, 1, 0, 0, 0, 0],
                 [0, 0, 0, 0, 0, 0, 0, 0]], dtype=bool)


# ----------------------------------------------------------------------------- independent helpers
def inverse_count(n, rate):
    """E[1 / K | K > 0], K ~ Binomial(n, rate), by a loop over k (scalar n and rate)."""
    num = sum(stats.binom.pmf(k, n, rate) / k for k in range(1, n + 1))
    return num / (1 - stats.binom.pmf(0, n, rate))


def metric_stats(t, n, plug_in=False):
    """W, B and D_o(n) of the TreePool Notes, test objects."""
    size = t.shape[1]
    var = t.var(axis=1, ddof=1)
    w = var.mean()
    b = max(t.mean(axis=1).var(ddof=1) - (0.0 if plug_in else w / size), 0.0)
    return w, b, w / np.asarray(n, dtype=float)


def oob_stats(t, mask, n, plug_in=False):
    """The out-of-bag form: per row the voters' mean and variance, rows with < 2 voters dropped."""
    size = t.shape[1]
    rows = [i for i in range(len(t)) if mask[i].sum() > 1]
    mu = np.array([t[i, mask[i]].mean() for i in rows])
    var = np.array([t[i, mask[i]].var(ddof=1) for i in rows])
    count = np.array([mask[i].sum() for i in rows])
    d_o = np.array([np.mean([var[j] * inverse_count(int(m), count[j] / size) for j in range(len(rows))])
                    for m in n])
    noise = 0.0 if plug_in else np.mean(var / count)
    return var.mean(), max(mu.var(ddof=1) - noise, 0.0), d_o


def one_hot(labels, n_classes):
    return np.eye(n_classes)[labels]


def forest_label(scores, voting):
    """Class of a forest from its learners' predictions (learners x classes); ties: first class."""
    s = one_hot(scores.argmax(axis=1), scores.shape[1]) if voting == "hard" else scores
    return int(s.sum(axis=0).argmax())


def brute_force_disjoint(preds, n, voting):
    """agree[i], pi[i, c] averaged over every ordered pair of disjoint forests of n learners."""
    n_obj, size, n_classes = preds.shape
    agree, pi = np.zeros(n_obj), np.zeros((n_obj, n_classes))
    pairs = 0
    for first in itertools.combinations(range(size), n):
        rest = [j for j in range(size) if j not in first]
        for second in itertools.combinations(rest, n):
            pairs += 1
            for i in range(n_obj):
                a = forest_label(preds[i, list(first)], voting)
                b = forest_label(preds[i, list(second)], voting)
                agree[i] += a == b
                pi[i, a] += 1
    return agree / pairs, pi / pairs


def pairs_of_single_learners(preds, mask, voting):
    """Forests of one learner: agreement over all pairs of voting learners, their class shares."""
    n_obj, size, n_classes = preds.shape
    agree, pi = [], []
    for i in range(n_obj):
        voters = [j for j in range(size) if mask is None or mask[i, j]]
        labels = [forest_label(preds[i, [j]], voting) for j in voters]
        same = [labels[a] == labels[b] for a in range(len(labels)) for b in range(len(labels)) if a != b]
        agree.append(np.mean(same))
        pi.append(np.bincount(labels, minlength=n_classes) / len(labels))
    return np.array(agree), np.array(pi)


def ordering_average(preds, mask, orders, ns, voting):
    """The disjoint-forest U-statistic of given orderings, one forest at a time (direct sums).

    Each ordering is cut into forests of n learners; at each object the voting forests' pairs
    are compared (orderings with fewer than two voting forests left out) and their class shares
    averaged (orderings without a voting forest left out)."""
    n_obj, size, n_classes = preds.shape
    agree, pairs = np.zeros((len(ns), n_obj)), np.zeros((len(ns), n_obj))
    pi, seen = np.zeros((len(ns), n_obj, n_classes)), np.zeros((len(ns), n_obj))
    for order in orders:
        for k, n in enumerate(ns):
            groups = [order[g * n:(g + 1) * n] for g in range(size // n)]
            for i in range(n_obj):
                labels = []
                for group in groups:
                    voters = [j for j in group if mask is None or mask[i, j]]
                    if voters:
                        labels.append(forest_label(preds[i, voters], voting))
                m = len(labels)
                if m > 1:
                    same = [labels[a] == labels[b] for a in range(m) for b in range(m) if a != b]
                    agree[k, i] += np.mean(same)
                    pairs[k, i] += 1
                if m > 0:
                    pi[k, i] += np.bincount(labels, minlength=n_classes) / m
                    seen[k, i] += 1
    return agree / pairs, pi / seen[..., None]


def class_pool(n_obj=5, size=6, n_classes=3, seed=1):
    return np.random.default_rng(seed).dirichlet(np.ones(n_classes), size=(n_obj, size))


def votes_pool(ones_share, size, seed=2):
    """Two-class one-hot predictions: learner j votes class 1 at object i with prob ones_share[i]."""
    votes = np.random.default_rng(seed).random((len(ones_share), size)) < np.asarray(ones_share)[:, None]
    return np.stack([~votes, votes], axis=2).astype(float)


# ----------------------------------------------------------------------------- the result object
def test_result_prints_an_r_style_table_and_one_row_per_size():
    band = ConfidenceInterval(np.array([0.125, 0.5]), np.array([0.5, 1.0]))
    res = cf.ClosedFormResult(measure="fleiss", n_learners=np.array([2.0, 10.0]),
                              curve=np.array([0.25, 0.75]), confidence_interval=band,
                              errors=np.zeros((5, 2)), n_resamples=5, confidence_level=0.9, pool_size=12,
                              voting="hard")
    assert str(res).splitlines() == [
        " Closed-form stability of ensembles drawn from a pool of learners", "",
        " measure = Fleiss' kappa", "    pool = 12 learners", "  voting = hard",
        "    band = 90% percentile bootstrap over learners, 5 resamples",
        "  covers = learners only: these test objects and this training set, variation from the learners", "",
        "  n_learners    value   90% band (learners only)",
        "           2     0.25   0.125 to 0.5",
        "          10     0.75   0.5 to 1"]
    np.testing.assert_array_equal(res.low, [0.125, 0.5])
    np.testing.assert_array_equal(res.high, [0.5, 1.0])
    frame = res.to_frame()
    assert list(frame.columns) == ["measure", "n_learners", "value", "ci_low", "ci_high", "pool_size",
                                   "ci_covers"]
    assert frame["ci_covers"].tolist() == ["learners only", "learners only"]
    assert frame["measure"].tolist() == ["fleiss", "fleiss"] and frame["pool_size"].tolist() == [12, 12]
    np.testing.assert_array_equal(frame["n_learners"], [2.0, 10.0])
    np.testing.assert_array_equal(frame["value"], [0.25, 0.75])
    np.testing.assert_array_equal(frame["ci_low"], [0.125, 0.5])
    np.testing.assert_array_equal(frame["ci_high"], [0.5, 1.0])
    bare = cf.ClosedFormResult(measure="psi", n_learners=np.array([3.0]), curve=np.array([0.5]),
                               confidence_interval=ConfidenceInterval(np.array([np.nan]), np.array([np.nan])),
                               errors=None, n_resamples=0, confidence_level=0.95, pool_size=4)
    assert str(bare).splitlines()[2:] == [" measure = psi", "    pool = 4 learners", "",
                                          "  n_learners    value", "           3      0.5"]
    nan2 = np.array([np.nan, np.nan])
    big = cf.ClosedFormResult(measure="icc", n_learners=np.array([12345.0, 37.234567]),
                              curve=np.array([0.987654, 0.5]),
                              confidence_interval=ConfidenceInterval(nan2, nan2),
                              errors=None, n_resamples=0, confidence_level=0.95, pool_size=20000)
    # sizes (also fractional ones, as n_star) to 6 significant digits, values to 4
    assert str(big).splitlines()[-2:] == ["       12345   0.9877", "     37.2346      0.5"]
    assert res.voting == "hard" and bare.voting is None


# ----------------------------------------------------------------------------- expected disagreement
def test_expected_disagreement_metric_and_classes():
    assert cf.expected_disagreement([1.0, 2.0, np.nan, 4.0], classes=False) == pytest.approx(
        np.var([1.0, 2.0, 4.0], ddof=1), rel=1e-15)
    assert cf.expected_disagreement([0.1, 0.5, 0.3], classes=False) == pytest.approx(0.04, rel=1e-12)
    # a constant baseline is exactly 0 (np.var of 0.1's is 2e-33, not 0)
    assert np.var([0.1, 0.1, 0.1], ddof=1) != 0.0
    assert cf.expected_disagreement([0.1, 0.1, np.nan, 0.1], classes=False) == 0.0
    # classes: chance that two draws differ, missing (None, NaN) dropped: shares 2/3, 1/3
    values = np.array(["a", "b", None, "a", np.nan], dtype=object)
    assert cf.expected_disagreement(values, classes=True) == pytest.approx(1 - (2 / 3) ** 2 - (1 / 3) ** 2)
    assert cf.expected_disagreement(np.array([[1, 2], [3, 3]]), classes=True) == pytest.approx(
        1 - 0.25**2 - 0.25**2 - 0.5**2)
    assert cf.expected_disagreement(np.array(["x", "x", None], dtype=object), classes=True) == 0.0


# ----------------------------------------------------------------------------- metric moments
def test_block_rows_bounds():
    assert [cf._block_rows(n, 8) for n in (10, 512, 600, 8 * 8192, 10**6)] == [64, 64, 75, 8192, 8192]
    # about 4 MB (2**22 bytes) of float64 per block: 524 objects of 1,000 members, 64 at least
    assert [cf._block_rows(10**5, size) for size in (1000, 100, 10**5)] == [524, 5242, 64]


def test_metric_moments_test_objects_and_out_of_bag():
    mu, var, count = cf.metric_moments(T)
    np.testing.assert_allclose(mu, T.mean(axis=1), rtol=1e-14)
    np.testing.assert_allclose(var, T.var(axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_array_equal(count, np.full(6, 8.0))
    mu, var, count = cf.metric_moments(T, MASK)
    rows = range(4)  # rows 4 (one voter) and 5 (none) are dropped
    np.testing.assert_allclose(mu, [T[i, MASK[i]].mean() for i in rows], rtol=1e-14)
    np.testing.assert_allclose(var, [T[i, MASK[i]].var(ddof=1) for i in rows], rtol=1e-12)
    np.testing.assert_array_equal(count, [5, 5, 5, 3])


def test_metric_moments_accumulate_float32_predictions_in_float64():
    t32 = (1e4 + T).astype(np.float32)  # float32 keeps 7 digits: means of 1e4 + noise to ~1e-3
    exact = t32.astype(np.float64)
    mu, var, count = cf.metric_moments(t32)
    np.testing.assert_allclose(mu, exact.mean(axis=1), rtol=1e-14)
    np.testing.assert_allclose(var, exact.var(axis=1, ddof=1), rtol=1e-10)
    mu, var, count = cf.metric_moments(t32, MASK)
    np.testing.assert_allclose(mu, [exact[i, MASK[i]].mean() for i in range(4)], rtol=1e-14)
    np.testing.assert_allclose(var, [exact[i, MASK[i]].var(ddof=1) for i in range(4)], rtol=1e-10)


def test_metric_moments_bootstrap_sums_over_blocks_and_threads():
    # 150 objects: blocks of 64 rows; the sums over objects of the resampled pools' var*, mu* - ref
    # and (mu* - ref)^2, ref the first object's pool mean
    rng = np.random.default_rng(3)
    t = rng.normal(size=(150, 1)) * 3 + rng.normal(size=(150, 7))
    counts = rng.multinomial(7, np.full(7, 1 / 7), size=4)
    ref = t[0].mean()
    expected = np.zeros((3, 4))
    for b, c in enumerate(counts):
        m = t[:, np.repeat(np.arange(7), c)]
        expected[:, b] = [m.var(axis=1, ddof=1).sum(), (m.mean(axis=1) - ref).sum(),
                          ((m.mean(axis=1) - ref) ** 2).sum()]
    for n_jobs in (None, 2):
        mu, var, count, sums = cf.metric_moments(t, None, counts, n_jobs=n_jobs)
        np.testing.assert_allclose(mu, t.mean(axis=1), rtol=1e-13)
        np.testing.assert_allclose(var, t.var(axis=1, ddof=1), rtol=1e-12)
        np.testing.assert_allclose(sums, expected, rtol=1e-5, atol=1e-3)  # float32 products
    # out of bag, block by block too
    mask = rng.random((150, 7)) < 0.5
    mu, var, count = cf.metric_moments(t, mask)
    rows = np.flatnonzero(mask.sum(axis=1) > 1)
    np.testing.assert_allclose(mu, [t[i, mask[i]].mean() for i in rows], rtol=1e-13)
    np.testing.assert_allclose(var, [t[i, mask[i]].var(ddof=1) for i in rows], rtol=1e-12)
    np.testing.assert_array_equal(count, mask[rows].sum(axis=1))


def test_mean_inverse_count_exact_and_expansion():
    rates = np.array([0.37, 0.5, 0.37, 0.9])
    out = cf.mean_inverse_count(np.array([1.0, 3.0, 12.0]), rates)
    expected = [[inverse_count(n, r) for r in rates] for n in (1, 3, 12)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    # up to 20,000 learners the exact Binomial sum, beyond the second-order expansion
    lam = 20000 * 0.37
    exact = cf.mean_inverse_count(np.array([20000.0]), np.array([0.37]))[0, 0]
    assert exact == pytest.approx(1 / lam + 0.63 / lam**2, rel=1e-7)
    assert exact != pytest.approx(1 / lam + 0.63 / lam**2, rel=1e-11)
    big = cf.mean_inverse_count(np.array([20001.0, 50000.0]), np.array([0.37, 0.5]))
    lam = np.array([20001.0, 50000.0])[:, None] * np.array([0.37, 0.5])
    np.testing.assert_allclose(big, 1 / lam + (1 - np.array([0.37, 0.5])) / lam**2, rtol=1e-14)


# ----------------------------------------------------------------------------- metric closed forms
def test_metric_stats_test_objects_and_plug_in():
    n = np.array([1.0, 3.0, 40.0])
    stats_ = cf.closed_form_stats(T, None, n, classifier=False, voting=None, rng=None)
    w, b, d_o = metric_stats(T, n)
    assert stats_["w"] == pytest.approx(w, rel=1e-13) and stats_["b"] == pytest.approx(b, rel=1e-13)
    np.testing.assert_allclose(stats_["d_o"], d_o, rtol=1e-13)
    plug = cf.closed_form_stats(T, None, n, classifier=False, voting=None, rng=None, population=True)
    assert plug["b"] == pytest.approx(metric_stats(T, n, plug_in=True)[1], rel=1e-13)
    assert plug["b"] > stats_["b"]


def test_metric_stats_out_of_bag():
    n = np.array([1.0, 4.0, 25.0])
    for plug_in in (False, True):
        stats_ = cf.closed_form_stats(T, MASK, n, classifier=False, voting=None, rng=None, population=plug_in)
        w, b, d_o = oob_stats(T, MASK, n, plug_in)
        assert stats_["w"] == pytest.approx(w, rel=1e-13) and stats_["b"] == pytest.approx(b, rel=1e-12)
        np.testing.assert_allclose(stats_["d_o"], d_o, rtol=1e-12)


def test_between_variance_is_floored_at_zero():
    # object means closer than the pool's noise: B = 0, so ICC(1) = 0 at every size
    t = np.array([[0.0, 2.0, -2.0, 1.0], [0.1, -2.0, 2.0, -1.0], [-0.1, 1.0, -1.0, 0.5]])
    assert t.mean(axis=1).var(ddof=1) < t.var(axis=1, ddof=1).mean() / 4
    stats_ = cf.closed_form_stats(t, None, np.array([2.0, 8.0]), classifier=False, voting=None, rng=None)
    assert stats_["b"] == 0.0
    np.testing.assert_array_equal(cf.curve_from_stats(stats_, np.array([2.0, 8.0]), "icc"), [0.0, 0.0])


def test_metric_curves_from_the_variance_decomposition():
    n = np.array([1.0, 2.0, 5.0, 100.0])
    w, b, d_o = metric_stats(T, n)
    curves = cf.closed_form_curves(T, None, n, {"icc": None, "phi": 2.5, "psi": 0.7}, classifier=False,
                                   voting=None)
    np.testing.assert_allclose(curves["icc"], b / (b + w / n), rtol=1e-13)
    np.testing.assert_allclose(curves["phi"], 1 - w / n / 2.5, rtol=1e-13)
    np.testing.assert_allclose(curves["psi"], 1 - w / n / 0.7, rtol=1e-13)
    # the expected ICC(1) of forests of n trees: between-object variance over total, where a
    # forest's prediction at object i has variance var_i / n about its (pool) mean
    wo, bo, d_oo = oob_stats(T, MASK, n)
    oob = cf.closed_form_curves(T, MASK, n, {"icc": None}, classifier=False, voting=None)
    np.testing.assert_allclose(oob["icc"], bo / (bo + d_oo), rtol=1e-12)


# ----------------------------------------------------------------------------- curve_from_stats
def test_curve_from_stats_measures_and_degenerate_cases():
    n = np.array([1.0, 4.0])
    s = {"d_o": np.array([0.5, 0.125]), "b": 1.5, "w": 0.5}
    np.testing.assert_allclose(cf.curve_from_stats(s, n, "icc"), [0.75, 1.5 / 1.625], rtol=1e-15)
    np.testing.assert_allclose(cf.curve_from_stats(s, n, "phi", 2.0), [0.75, 1 - 0.0625], rtol=1e-15)
    # B tiny against D_o: b / (b + d_o) keeps its digits (1 - d_o / (b + d_o) would give 0)
    tiny = cf.curve_from_stats({"d_o": np.array([0.5]), "b": 1e-20}, n[:1], "icc")[0]
    assert tiny == pytest.approx(2e-20, rel=1e-12, abs=0)
    # a scalar d_o broadcasts over the sizes
    np.testing.assert_allclose(cf.curve_from_stats({"d_o": 0.25, "b": 0.75}, n, "icc"), [0.75, 0.75])
    shares = {"d_o": np.array([0.3, 0.1]), "share": np.array([[0.5, 0.5], [0.25, 0.75]])}
    np.testing.assert_allclose(cf.curve_from_stats(shares, n, "fleiss"), [1 - 0.3 / 0.5, 1 - 0.1 / 0.375])
    with pytest.raises(ValueError, match="`measure`"):
        cf.curve_from_stats(s, n, "kappa")
    # no spread at all: 1 with the convention's warning, once per curve
    flat = {"d_o": np.array([0.0, 0.0]), "b": 0.0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(cf.curve_from_stats(flat, n, "icc", warn=True), [1.0, 1.0])
    assert [w.category for w in caught] == [PredstabDegenerateWarning] and "ICC(1)" in str(caught[0].message)
    # learners disagree but the baseline has none: NaN, undefined
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cf.curve_from_stats(s, n, "psi", 0.0, warn=True)
    assert np.isnan(out).all()
    assert [w.category for w in caught] == [PredstabUndefinedWarning] and "psi" in str(caught[0].message)
    # one class only: Fleiss' D_e = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cf.curve_from_stats({"d_o": np.array([0.0, 0.0]), "share": np.array([[1.0, 0.0]] * 2)}, n,
                                  "fleiss", warn=True)
    np.testing.assert_array_equal(out, [1.0, 1.0])
    assert [w.category for w in caught] == [PredstabDegenerateWarning]
    assert "Fleiss' kappa" in str(caught[0].message)
    # a partly degenerate curve warns for its first degenerate size; without warn, silent
    mixed = {"d_o": np.array([0.5, 0.0]), "b": 0.0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(cf.curve_from_stats(mixed, n, "icc", warn=True), [0.0, 1.0])
        np.testing.assert_array_equal(cf.curve_from_stats(mixed, n, "icc"), [0.0, 1.0])
        cf.curve_from_stats(s, n, "icc", warn=True)  # nothing degenerate: no warning
    assert [w.category for w in caught] == [PredstabDegenerateWarning]


def test_constant_learners_give_one_with_a_warning():
    t = np.full((5, 4), 2.5)
    with pytest.warns(PredstabDegenerateWarning):
        curves = cf.closed_form_curves(t, None, [1, 3], {"icc": None}, classifier=False, voting=None)
    np.testing.assert_array_equal(curves["icc"], [1.0, 1.0])


# ----------------------------------------------------------------------------- hypergeometric pieces
def test_hypergeom_pmf_and_window():
    k = np.arange(-2, 9)[:, None]
    successes = np.array([0, 3, 5, 9])[None, :]
    out = vm._hypergeom_pmf(k, 10, successes, 6)
    np.testing.assert_allclose(out, stats.hypergeom.pmf(k, 10, successes, 6), rtol=1e-10, atol=1e-300)
    assert out[0, 1] == 0.0 and out[-1, 1] == 0.0  # outside the support exactly 0
    values, inside = vm._window(np.array([2.4, 7.6]), 0.1, 0, 8)  # width ceil(1.2) + 2 = 4
    np.testing.assert_array_equal(values, [np.arange(-2, 7), np.arange(4, 13)])
    np.testing.assert_array_equal(inside, [values[0] >= 0, values[1] <= 8])
    values, inside = vm._window(np.array([5.0]), 0.25, 0, 8)  # 12 sd = 3: width 5
    np.testing.assert_array_equal(values, [np.arange(0, 11)])
    np.testing.assert_array_equal(inside, [np.arange(0, 11) <= 8])


def test_split_agreement_by_enumeration():
    for n in (1, 2, 3):
        g = vm._split_agreement(n)
        for ones in range(2 * n + 1):
            votes = [1] * ones + [0] * (2 * n - ones)
            same = [(sum(votes[j] for j in half) > n // 2)
                    == (sum(votes[j] for j in range(2 * n) if j not in half) > n // 2)
                    for half in itertools.combinations(range(2 * n), n)]
            assert g[ones] == pytest.approx(np.mean(same), rel=1e-12, abs=1e-14)
    with pytest.raises(ValueError):
        g[0] = 0.5  # the cached array is shared by every call: read-only


def test_two_class_votes_are_the_average_over_every_split():
    preds = votes_pool([0.1, 0.4, 0.5, 0.6, 0.9, 1.0], 8)
    ones = preds[..., 1].sum(axis=1)
    agree, pi = vm.two_class_vote_agreement(ones, 8, [1, 2, 3, 4])
    for k, n in enumerate((1, 2, 3, 4)):
        exact_agree, exact_pi = brute_force_disjoint(preds, n, "hard")
        np.testing.assert_allclose(agree[k], exact_agree, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(pi[k], exact_pi, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- class agreement
def test_orderings_by_number_of_objects():
    assert [cf._orderings(m) for m in (0, 1, 50, 51, 999, 1000, 5000)] == [200, 200, 200, 197, 11, 10, 10]


@pytest.mark.parametrize("voting", ["soft", "hard"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_forests_of_one_learner_compare_every_pair(voting, n_classes):
    preds = class_pool(n_classes=n_classes)
    preds[0, 2] = 1 / n_classes  # an exact tie goes to the first class
    agree, pi = cf.disjoint_forests(preds, None, [1], voting, np.random.default_rng(0), 3)
    exact_agree, exact_pi = pairs_of_single_learners(preds, None, voting)
    np.testing.assert_allclose(agree[0], exact_agree, rtol=1e-12)
    np.testing.assert_allclose(pi[0], exact_pi, rtol=1e-12)
    # out of bag: only the learners that did not see the row vote; rows with < 2 voters drop out
    mask = np.array([[1, 1, 0, 1, 0, 1], [0, 1, 1, 1, 1, 1], [1, 0, 1, 0, 0, 0],
                     [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 1, 0]], dtype=bool)
    agree, pi = cf.class_agreement(preds, mask, np.array([1.0]), voting, np.random.default_rng(0), n_perm=2)
    exact_agree, exact_pi = pairs_of_single_learners(preds[:4], mask[:4], voting)
    np.testing.assert_allclose(agree[0], exact_agree, rtol=1e-12)
    np.testing.assert_allclose(pi[0], exact_pi, rtol=1e-12)
    # chunks of the orderings (one at a time) give the same
    again = cf.disjoint_forests(preds[:4], mask[:4], [1], voting, np.random.default_rng(1), 3, max_elements=1)
    np.testing.assert_allclose(again[0][0], exact_agree, rtol=1e-12)
    np.testing.assert_allclose(again[1][0], exact_pi, rtol=1e-12)


def test_out_of_bag_forests_without_a_voter_are_left_out():
    # forests of 2 learners out of bag: at object 0 only learners 0 and 1 vote
    preds = votes_pool([0.5, 0.5], 4, seed=0)
    preds[0, :, :] = [[1, 0], [0, 1], [0, 1], [1, 0]]
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)
    agree, pi = cf.disjoint_forests(preds, mask, [2], "hard", np.random.default_rng(0), 60)
    # a forest holding learner 0 or 1 and a non-voter votes for that one learner's class; a pair of
    # voting forests holds learners 0 and 1 apart (they disagree), else one forest has both (a tie
    # 1-1: class 0) and the other does not vote, and no pair is seen
    assert agree[0, 0] == 0.0
    assert 0.0 < pi[0, 0, 0] < 1.0 and pi[0, 0].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("voting", ["soft", "hard"])
def test_random_orderings_average_over_every_split(voting):
    preds = class_pool(n_obj=4, size=6)
    agree, pi = cf.class_agreement(preds, None, np.array([2.0, 3.0]), voting, np.random.default_rng(5),
                                   n_perm=600)
    for k, n in enumerate((2, 3)):
        exact_agree, exact_pi = brute_force_disjoint(preds, n, voting)
        np.testing.assert_allclose(agree[k], exact_agree, atol=0.06)  # 600 orderings
        np.testing.assert_allclose(pi[k], exact_pi, atol=0.06)
        assert np.mean(agree[k]) == pytest.approx(np.mean(exact_agree), abs=0.03)


@pytest.mark.parametrize("voting", ["soft", "hard"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_random_orderings_are_uniform_permutations_cut_into_forests(voting, n_classes):
    # the same orderings (uniform permutations from the generator) by hand, in and out of bag
    preds = class_pool(n_obj=4, size=7, n_classes=n_classes, seed=6)
    mask = np.random.default_rng(7).random((4, 7)) < 0.6
    mask[0] = [1, 0, 0, 0, 0, 0, 1]  # forests without a voter
    mask[1] = [0, 0, 0, 0, 1, 0, 0]  # one voter: no pair of forests (NaN), no forest when left over
    orders = np.random.default_rng(5).permuted(np.tile(np.arange(7), (40, 1)), axis=1)
    channels = 1 if n_classes == 2 else n_classes
    for m in (None, mask):
        agree, pi = cf.disjoint_forests(preds, m, [2, 3], voting, np.random.default_rng(5), 40)
        with np.errstate(invalid="ignore"):
            exact_agree, exact_pi = ordering_average(preds, m, orders, [2, 3], voting)
        np.testing.assert_allclose(agree, exact_agree, rtol=1e-12)
        np.testing.assert_allclose(pi, exact_pi, rtol=1e-12)
        # the orderings drawn in chunks of 2 (the last one short): the same 5 orderings
        chunked = cf.disjoint_forests(preds, m, [2, 3], voting, np.random.default_rng(5), 5,
                                      max_elements=2 * 4 * 8 * channels)
        with np.errstate(invalid="ignore"):
            exact_agree, exact_pi = ordering_average(preds, m, orders[:5], [2, 3], voting)
        np.testing.assert_allclose(chunked[0], exact_agree, rtol=1e-12)
        np.testing.assert_allclose(chunked[1], exact_pi, rtol=1e-12)
    assert np.isnan(agree[:, 1]).all() and not np.isnan(pi[:, 1]).any()


@pytest.mark.parametrize("n_classes", [3, 4])
def test_hard_votes_of_several_classes_count_as_running_totals_of_one_hot_votes(n_classes):
    # the integer counts of hard votes (_hard_class_counts) are those of running totals of float
    # one-hot votes (the general path), ties to the first class and out-of-bag rows included
    rng = np.random.default_rng(n_classes)
    shares = np.r_[0.4, 0.4, np.full(n_classes - 2, 0.2 / (n_classes - 2))]
    votes = rng.choice(n_classes, size=(6, 60), p=shares)
    votes[0] = np.arange(60) % n_classes  # exact ties in every forest of n_classes learners
    one_hot = np.eye(n_classes)[votes]
    mask = rng.random((6, 60)) < 0.5
    mask[1] = False  # no voter at all
    mask[2, 3:] = False  # forests without a voter
    orders = rng.permuted(np.tile(np.arange(60), (4, 1)), axis=1)
    ns = [1, 2, n_classes, 7, 30]
    for m in (None, mask):
        general = cf._forest_class_counts(one_hot if m is None else one_hot * m[..., None], m, orders, ns,
                                          n_classes, "hard")
        counted = cf._hard_class_counts(votes, m, orders, ns, n_classes)
        for n, want, got in zip(ns, general, counted, strict=True):
            np.testing.assert_array_equal(got, want)
            forests = got.sum(axis=2)  # every forest counted once, those without a voter not at all
            if m is None:
                assert got.shape == (6, 4, n_classes) and (forests == 60 // n).all()
            else:
                assert forests[1].max() == 0
    # by hand, object 0's votes sorted (60 / n_classes of each class) and cut into forests of
    # n_classes: 3 classes, the forests 0 0 1 -> 0 and 1 2 2 -> 2 straddle: 7, 6, 7 forests;
    # 4 classes, 0 0 0 1 -> 0, 1 1 2 2 -> 1 (a tie: the first class), 2 3 3 3 -> 3: 4, 4, 3, 4
    first = next(cf._hard_class_counts(votes[:1], None, np.argsort(votes[0], kind="stable")[None],
                                       [n_classes], n_classes))
    assert first[0, 0].tolist() == {3: [7, 6, 7], 4: [4, 4, 3, 4]}[n_classes]
    # every forest of the ordering 0 1 2 ... one vote per class: all ties, all the first class
    tied = next(cf._hard_class_counts(votes[:1], None, np.arange(60)[None], [n_classes], n_classes))
    assert tied[0, 0].tolist() == [60 // n_classes] + [0] * (n_classes - 1)


def test_class_agreement_wiring():
    # out of bag, in the bootstrap world, beyond half the pool, with a given number of orderings
    preds = class_pool(n_obj=5, size=6, seed=8)
    preds[4, :, 2] = 0.0  # class 2 never wins at object 4
    preds[4] /= preds[4].sum(axis=1, keepdims=True)
    mask = np.random.default_rng(3).random((5, 6)) < 0.7
    mask[3] = [0, 0, 1, 0, 0, 0]  # one voter: dropped
    n = np.array([1.0, 2.0, 4.0])
    agree, pi = cf.class_agreement(preds, None, n, "soft", np.random.default_rng(1), population=True,
                                   n_perm=30)
    orders = np.random.default_rng(1).integers(0, 6, (30, 6))
    exact = ordering_average(preds, None, orders, [1, 2], "soft")
    np.testing.assert_allclose(agree[:2], exact[0], rtol=1e-12)
    np.testing.assert_allclose(pi[:2], exact[1], rtol=1e-12)
    rng = np.random.default_rng(1)
    rng.integers(0, 6, (30, 6))
    extra = cf.class_probabilities(preds, None, n[2:], "soft", rng)
    np.testing.assert_allclose(pi[2:], extra, rtol=1e-12)
    np.testing.assert_allclose(agree[2:], (extra**2).sum(axis=2), rtol=1e-12)
    assert pi[2, 4, 2] == 0.0
    for voting in ("soft", "hard"):
        agree, pi = cf.class_agreement(preds, mask, n, voting, np.random.default_rng(2), n_perm=4)
        keep = mask.sum(axis=1) > 1
        orders = np.random.default_rng(2).permuted(np.tile(np.arange(6), (4, 1)), axis=1)
        exact = ordering_average(preds[keep], mask[keep], orders, [1, 2], voting)
        np.testing.assert_allclose(agree[:2], exact[0], rtol=1e-12)
        np.testing.assert_allclose(pi[:2], exact[1], rtol=1e-12)
        rng = np.random.default_rng(2)
        rng.permuted(np.tile(np.arange(6), (4, 1)), axis=1)
        extra = cf.class_probabilities(preds[keep], mask[keep], n[2:], voting, rng)
        np.testing.assert_allclose(pi[2:], extra, rtol=1e-12)
        # the statistics of the curves: D_o = 1 - mean agreement, the mean class shares
        stats_ = cf.closed_form_stats(preds, mask, n, classifier=True, voting=voting,
                                      rng=np.random.default_rng(2), n_perm=4)
        np.testing.assert_allclose(stats_["d_o"][:2], 1 - exact[0].mean(axis=1), rtol=1e-12)
        np.testing.assert_allclose(stats_["share"][:2], exact[1].mean(axis=1), rtol=1e-12)


def test_forests_drawn_with_replacement():
    # the bootstrap world: forests of learners drawn with replacement from the pool; forests
    # of one learner agree with chance sum_c q_c^2 (q the pool's class shares)
    preds = class_pool(n_obj=3, size=5)
    q = one_hot(preds.argmax(axis=2), 3).mean(axis=1)
    agree, pi = cf.disjoint_forests(preds, None, [1, 2], "hard", np.random.default_rng(2), 3000,
                                    with_replacement=True)
    np.testing.assert_allclose(pi[0], q, atol=0.02)
    np.testing.assert_allclose(agree[0], (q**2).sum(axis=1), atol=0.02)
    orders = np.random.default_rng(2).integers(0, 5, (3000, 5))
    exact_agree, exact_pi = ordering_average(preds, None, orders[:200], [1, 2], "hard")
    again = cf.disjoint_forests(preds, None, [1, 2], "hard", np.random.default_rng(2), 200,
                                with_replacement=True)
    np.testing.assert_allclose(again[0], exact_agree, rtol=1e-12)
    np.testing.assert_allclose(again[1], exact_pi, rtol=1e-12)


def test_class_probabilities_beyond_half_the_pool():
    preds = class_pool(n_obj=4, size=6, n_classes=2)
    preds[3] = [[0.5, 0.5]] * 6  # no spread, a tied mean: the first class
    rng = np.random.default_rng(0)
    n = np.array([5.0, 9.0])
    hard = cf.class_probabilities(preds, None, n, "hard", rng)
    q1 = (preds.argmax(axis=2) == 1).mean(axis=1)
    for k, m in enumerate((5, 9)):
        np.testing.assert_allclose(hard[k, :, 1], stats.binom.sf(m // 2, m, q1), rtol=1e-12)
        np.testing.assert_allclose(hard[k, :, 0], 1 - stats.binom.sf(m // 2, m, q1), rtol=1e-12)
    soft = cf.class_probabilities(preds, None, n, "soft", rng)
    mu, sd = preds[..., 1].mean(axis=1), preds[..., 1].std(axis=1, ddof=1)
    for k, m in enumerate((5, 9)):
        expected = np.where(sd > 0, stats.norm.cdf((mu - 0.5) / np.where(sd > 0, sd, 1) * np.sqrt(m)), 0.0)
        np.testing.assert_allclose(soft[k, :, 1], expected, rtol=1e-12)
        np.testing.assert_allclose(soft[k, :, 0], 1 - expected, rtol=1e-12)
    preds[2] = [[0.4, 0.6]] * 6  # no spread, class 1 ahead: certain
    assert cf.class_probabilities(preds, None, n, "soft", rng)[:, 2, 1].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="`voting`"):
        cf.class_probabilities(preds, None, n, "majority", rng)


def test_class_probabilities_out_of_bag_vote_with_fewer_learners():
    preds = class_pool(n_obj=3, size=8, n_classes=2, seed=4)
    mask = np.array([[1, 1, 1, 0, 0, 1, 0, 1], [1] * 8, [0, 1, 0, 1, 0, 1, 0, 0]], dtype=bool)
    ns = np.array([10.0, 1.0, 3.0])
    out = cf.class_probabilities(preds, mask, ns, "hard", np.random.default_rng(0))
    soft = cf.class_probabilities(preds, mask, ns, "soft", np.random.default_rng(0))
    for k, n in enumerate(ns):
        for i in range(3):
            voters = mask[i]
            q = (preds[i, voters].argmax(axis=1) == 1).mean()
            m = max(round(n * voters.mean()), 1)  # a forest of n votes with about n x oob rate learners
            assert out[k, i, 1] == pytest.approx(stats.binom.sf(m // 2, m, q), rel=1e-12)
            v = preds[i, voters, 1]
            m = max(n * voters.mean(), 1.0)
            z = (v.mean() - 0.5) / (v.std(ddof=1) / math.sqrt(m))
            assert soft[k, i, 1] == pytest.approx(stats.norm.cdf(z), rel=1e-12)


def test_class_probabilities_of_three_classes_by_simulation():
    preds = class_pool(n_obj=2, size=6)
    n = np.array([4.0, 7.0])
    hard = cf.class_probabilities(preds, None, n, "hard", np.random.default_rng(0), n_sim=20000)
    for i in range(2):  # exact: every Multinomial(4, q) vote count, first largest wins
        q = one_hot(preds[i].argmax(axis=1), 3).mean(axis=0)
        expected = np.zeros(3)
        for a in range(5):
            for b in range(5 - a):
                c = 4 - a - b
                expected[int(np.argmax([a, b, c]))] += stats.multinomial.pmf([a, b, c], 4, q)
        np.testing.assert_allclose(hard[0, i], expected, atol=0.015)
    # the same simulated forests by hand: Multinomial(n, q_i) votes, n_sim of them per object
    rng, sim = np.random.default_rng(1), np.random.default_rng(1)
    hard = cf.class_probabilities(preds, None, n, "hard", rng, n_sim=50)
    for k, m in enumerate((4, 7)):
        for i in range(2):
            q = one_hot(preds[i].argmax(axis=1), 3).mean(axis=0)
            draws = sim.multinomial(m, q, size=50)
            np.testing.assert_allclose(hard[k, i], np.bincount(draws.argmax(axis=1), minlength=3) / 50)
    # soft votes: Normal(mu_i, cov_i / n) mean probabilities
    soft = cf.class_probabilities(preds, None, n, "soft", np.random.default_rng(0), n_sim=20000)
    rng = np.random.default_rng(9)
    for i in range(2):
        draws = rng.multivariate_normal(preds[i].mean(axis=0), np.cov(preds[i].T) / 4, size=40000)
        np.testing.assert_allclose(soft[0, i], np.bincount(draws.argmax(axis=1), minlength=3) / 40000,
                                   atol=0.015)
    mask = np.ones((2, 6), dtype=bool)
    mask[1, :2] = False  # out of bag: 4 of 6 vote, a forest of n votes with 4 n / 6 of them
    soft = cf.class_probabilities(preds, mask, n, "soft", np.random.default_rng(2), n_sim=30)
    sim = np.random.default_rng(2)
    for k, m in enumerate((4, 7)):
        for i in range(2):
            p = preds[i, mask[i]]
            draws = sim.multivariate_normal(p.mean(axis=0), np.cov(p.T) / (m * mask[i].mean()), size=30,
                                            method="eigh")
            np.testing.assert_allclose(soft[k, i], np.bincount(draws.argmax(axis=1), minlength=3) / 30)


def test_class_agreement_switches_to_the_extrapolation_beyond_half_the_pool():
    preds = votes_pool([0.2, 0.5, 0.7, 0.95], 6)
    rng = np.random.default_rng(0)
    n = np.array([3.0, 4.0, 7.0])
    agree, pi = cf.class_agreement(preds, None, n, "hard", rng)
    exact = brute_force_disjoint(preds, 3, "hard")
    np.testing.assert_allclose(agree[0], exact[0], rtol=1e-10)
    np.testing.assert_allclose(pi[0], exact[1], rtol=1e-10, atol=1e-14)
    # majority votes of two classes beyond half the pool: empirical Bayes over the vote counts
    # (tests/ensembles/test_vote_mixture.py); three classes: the pool's shares taken as exact
    from predstab.ensembles._vote_mixture import two_class_vote_mixture

    extra = two_class_vote_mixture(preds[..., 1].sum(axis=1), 6, n[1:])
    np.testing.assert_allclose(pi[1:], extra[1], rtol=1e-12)
    np.testing.assert_allclose(agree[1:], extra[0], rtol=1e-12)
    three = np.concatenate([preds, np.zeros(preds.shape[:2] + (1,))], axis=2)
    agree, pi = cf.class_agreement(three, None, n, "hard", np.random.default_rng(0), n_perm=3)
    rng = np.random.default_rng(0)
    rng.permuted(np.tile(np.arange(6), (3, 1)), axis=1)
    extra = cf.class_probabilities(three, None, n[1:], "hard", rng)
    np.testing.assert_allclose(pi[1:], extra, rtol=1e-12)
    np.testing.assert_allclose(agree[1:], (extra**2).sum(axis=2), rtol=1e-12)
    # the bootstrap world of two-class majority votes: Binomial votes at every size
    agree, pi = cf.class_agreement(preds, None, n, "hard", rng, population=True)
    extra = cf.class_probabilities(preds, None, n, "hard", rng)
    np.testing.assert_allclose(pi, extra, rtol=1e-12)
    np.testing.assert_allclose(agree, (extra**2).sum(axis=2), rtol=1e-12)


def test_class_closed_form_stats_and_kappa():
    preds = votes_pool([0.2, 0.5, 0.7, 0.95, 0.05], 8)
    n = np.array([1.0, 2.0, 4.0])
    s = cf.closed_form_stats(preds, None, n, classifier=True, voting="hard", rng=np.random.default_rng(0))
    for k, m in enumerate((1, 2, 4)):
        agree, pi = brute_force_disjoint(preds, m, "hard")
        assert s["d_o"][k] == pytest.approx(1 - agree.mean(), rel=1e-10)
        np.testing.assert_allclose(s["share"][k], pi.mean(axis=0), rtol=1e-10)
        share = pi.mean(axis=0)
        kappa = cf.curve_from_stats(s, n, "fleiss")[k]
        assert kappa == pytest.approx(1 - (1 - agree.mean()) / (1 - np.sum(share**2)), rel=1e-10)


# ----------------------------------------------------------------------------- bands
def test_metric_bands_are_resampled_pools_about_the_plug_in():
    n = np.array([1.0, 3.0, 50.0])
    res = cf.closed_form_bands(T, None, n, {"icc": None, "phi": 3.0}, classifier=False, voting=None,
                               n_resamples=40, confidence_level=0.8, random_state=4)
    counts = np.random.default_rng(4).multinomial(8, np.full(8, 1 / 8), size=40)
    resampled = [T[:, np.repeat(np.arange(8), c)] for c in counts]

    def icc_of(t, plug_in):
        w, b, d_o = metric_stats(t, n, plug_in)
        return b / (b + d_o)

    def phi_of(t):
        return 1 - metric_stats(t, n)[2] / 3.0

    cases = (("icc", lambda t: icc_of(t, False), icc_of(T, True)), ("phi", phi_of, phi_of(T)))
    for measure, of, truth in cases:
        r = res[measure]
        errors = jackknife_scaled(np.stack([of(t) for t in resampled]) - truth, T, of)
        np.testing.assert_allclose(r.curve, of(T), rtol=1e-12)
        np.testing.assert_allclose(r.errors, errors, atol=1e-5)  # float32 products
        low, high = percentile_band(r.curve, errors, 0.8)
        np.testing.assert_allclose(r.low, low, atol=1e-5)
        np.testing.assert_allclose(r.high, high, atol=1e-5)
        settings = (r.measure, r.n_resamples, r.confidence_level, r.pool_size, r.voting)
        assert settings == (measure, 40, 0.8, 8, None)
        np.testing.assert_array_equal(r.n_learners, n)


def test_bands_are_capped_at_one():
    # one outlying learner: resampled pools without it have a much smaller W, so
    # curve + quantile(errors) exceeds 1 at the upper end
    t = np.tile(np.arange(5.0)[:, None], (1, 8)) + np.random.default_rng(1).normal(0, 0.05, (5, 8))
    t[:, 0] += 2.0
    n = np.array([1.0, 4.0])
    res = cf.closed_form_bands(t, None, n, {"phi": 1.0}, classifier=False, voting=None, n_resamples=200,
                               random_state=0)["phi"]
    counts = np.random.default_rng(0).multinomial(8, np.full(8, 1 / 8), size=200)
    def phi_of(m):
        return 1 - metric_stats(m, n)[2]

    phi = [phi_of(t[:, np.repeat(np.arange(8), c)]) for c in counts]
    curve = phi_of(t)
    errors = jackknife_scaled(np.stack(phi) - curve, t, phi_of)
    raw_high = curve + np.quantile(errors, 0.975, axis=0, method="weibull")
    assert raw_high[1] > 1
    low, high = percentile_band(curve, errors, 0.95)
    np.testing.assert_allclose(res.high, high, atol=1e-5)
    np.testing.assert_allclose(res.low, low, atol=1e-5)
    assert res.high[1] == 1.0


def test_out_of_bag_bands_are_resampled_pools():
    n = np.array([2.0, 6.0])
    res = cf.closed_form_bands(T, MASK, n, {"icc": None, "psi": 1.5}, classifier=False, voting=None,
                               n_resamples=12, random_state=9)
    counts = np.random.default_rng(9).multinomial(8, np.full(8, 1 / 8), size=12)
    cols = [np.repeat(np.arange(8), c) for c in counts]

    def icc_of(t, mask, plug_in=False):
        w, b, d_o = oob_stats(t, mask, n, plug_in)
        return b / (b + d_o)

    np.testing.assert_allclose(res["icc"].curve, icc_of(T, MASK), rtol=1e-12)
    errors = np.stack([icc_of(T[:, c], MASK[:, c]) for c in cols]) - icc_of(T, MASK, True)
    np.testing.assert_allclose(res["icc"].errors, errors, atol=1e-5)
    psi = np.stack([1 - oob_stats(T[:, c], MASK[:, c], n)[2] / 1.5 for c in cols])
    np.testing.assert_allclose(res["psi"].errors, psi - (1 - oob_stats(T, MASK, n)[2] / 1.5), atol=1e-5)
    low, high = percentile_band(res["icc"].curve, errors, 0.95)  # out of bag: no jackknife scaling
    np.testing.assert_allclose(res["icc"].low, low, atol=1e-5)
    np.testing.assert_allclose(res["icc"].high, high, atol=1e-5)


def test_class_bands_of_two_class_votes_are_resampled_pools():
    # two classes, hard votes, test objects: estimate, bootstrap world and resamples are all exact
    # (no random orderings): the estimate is the brute-force U-statistic, the resamples' values
    # their Binomial bootstrap worlds
    preds = votes_pool([0.2, 0.5, 0.7, 0.95, 0.4], 6)
    n = np.array([1.0, 2.0])
    res = cf.closed_form_bands(preds, None, n, {"fleiss": None}, classifier=True, voting="hard",
                               n_resamples=6, confidence_level=0.5, random_state=2)["fleiss"]
    counts = np.random.default_rng(2).multinomial(6, np.full(6, 1 / 6), size=6)

    def kappa(p, m):
        agree, pi = brute_force_disjoint(p, m, "hard")
        share = pi.mean(axis=0)
        return 1 - (1 - agree.mean()) / (1 - np.sum(share**2))

    def bootstrap_world(p, m):  # Binomial(m, q_i) votes, q_i the vote shares of pool p
        q = p[..., 1].mean(axis=1)
        pi1 = stats.binom.sf(m // 2, m, q)
        share = np.array([1 - pi1.mean(), pi1.mean()])
        return 1 - np.mean(1 - pi1**2 - (1 - pi1) ** 2) / (1 - np.sum(share**2))

    curve = np.array([kappa(preds, 1), kappa(preds, 2)])
    # each resampled pool's own bootstrap-world value minus the pool's
    errors = np.array([[bootstrap_world(preds[:, np.repeat(np.arange(6), c)], m) - bootstrap_world(preds, m)
                        for m in (1, 2)] for c in counts])
    np.testing.assert_allclose(res.curve, curve, rtol=1e-10)
    np.testing.assert_allclose(res.errors, errors, rtol=1e-9, atol=1e-12)
    low, high = percentile_band(curve, errors, 0.5)
    np.testing.assert_allclose(res.low, low, rtol=1e-9)
    np.testing.assert_allclose(res.high, high, rtol=1e-9)
    assert (res.voting, res.pool_size, res.n_resamples) == ("hard", 6, 6)


def test_bands_without_bootstrap_and_reproducibility():
    preds = class_pool(n_obj=6, size=8, n_classes=2, seed=7)
    n = np.array([2.0, 3.0])
    kw = {"classifier": True, "voting": "soft", "n_resamples": 8}
    a = cf.closed_form_bands(preds, None, n, {"fleiss": None}, random_state=3, **kw)["fleiss"]
    b = cf.closed_form_bands(preds, None, n, {"fleiss": None}, random_state=3, **kw)["fleiss"]
    c = cf.closed_form_bands(preds, None, n, {"fleiss": None}, random_state=4, **kw)["fleiss"]
    np.testing.assert_array_equal(a.errors, b.errors)
    np.testing.assert_array_equal(a.curve, b.curve)
    assert not np.array_equal(a.errors, c.errors) and not np.array_equal(a.curve, c.curve)
    bare = cf.closed_form_bands(T, None, n, {"icc": None}, classifier=False, voting=None,
                                n_resamples=0)["icc"]
    w, bb, d_o = metric_stats(T, n)
    np.testing.assert_allclose(bare.curve, bb / (bb + d_o), rtol=1e-13)
    assert bare.errors is None and bare.n_resamples == 0
    assert np.isnan(bare.low).all() and np.isnan(bare.high).all()
    m1 = cf.closed_form_bands(T, None, n, {"icc": None}, classifier=False, voting=None, n_resamples=5,
                              random_state=1)["icc"]
    m2 = cf.closed_form_bands(T, None, n, {"icc": None}, classifier=False, voting=None, n_resamples=5,
                              random_state=2)["icc"]
    assert not np.array_equal(m1.errors, m2.errors)


def test_undefined_bands_stay_quiet_apart_from_the_convention():
    # psi against a constant baseline: every curve and resample is NaN, so is the band; the one
    # warning is the convention's (no numpy warning about all-NaN quantiles)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = cf.closed_form_bands(T, None, [2.0, 3.0], {"psi": 0.0}, classifier=False, voting=None,
                                   n_resamples=5, random_state=0)["psi"]
    assert [w.category for w in caught] == [PredstabUndefinedWarning]
    assert np.isnan(res.curve).all() and np.isnan(res.low).all() and np.isnan(res.high).all()


def test_class_curves_from_the_generator():
    # two-class majority votes: exact, whatever the generator; soft votes: random orderings of
    # the pool from ``random_state`` (the same numbers for the same seed)
    preds = votes_pool([0.2, 0.5, 0.7, 0.95, 0.05], 8)
    n = np.array([1.0, 2.0, 4.0])
    hard = cf.closed_form_curves(preds, None, n, {"fleiss": None}, classifier=True, voting="hard")
    for k, m in enumerate((1, 2, 4)):
        agree, pi = brute_force_disjoint(preds, m, "hard")
        share = pi.mean(axis=0)
        assert hard["fleiss"][k] == pytest.approx(1 - (1 - agree.mean()) / (1 - np.sum(share**2)), rel=1e-10)
    probs = class_pool(n_obj=5, size=8, n_classes=2, seed=3)
    a = cf.closed_form_curves(probs, None, n, {"fleiss": None, "psi": 0.5}, classifier=True, voting="soft",
                              random_state=4)
    b = cf.closed_form_curves(probs, None, n, {"fleiss": None, "psi": 0.5}, classifier=True, voting="soft",
                              random_state=4)
    c = cf.closed_form_curves(probs, None, n, {"fleiss": None}, classifier=True, voting="soft",
                              random_state=5)
    np.testing.assert_array_equal(a["fleiss"], b["fleiss"])
    assert not np.array_equal(a["fleiss"], c["fleiss"])
    # forests of one learner: no randomness; D_o is the pairwise disagreement of single learners
    agree, _ = pairs_of_single_learners(probs, None, "soft")
    assert a["psi"][0] == pytest.approx(1 - (1 - agree.mean()) / 0.5, rel=1e-12)


@pytest.mark.parametrize("offset, scale", [(0.0, 0.1), (1e4, 1.0)])
def test_metric_bands_keep_their_precision(offset, scale):
    # small predictions (B < 1) and predictions with a large common offset (the bootstrap's
    # products run in float32 about each object's centre): the resampled pools' values by hand
    t = offset + scale * T
    n = np.array([2.0, 6.0])
    for mask in (None, MASK):
        res = cf.closed_form_bands(t, mask, n, {"icc": None}, classifier=False, voting=None, n_resamples=25,
                                   random_state=3)["icc"]
        counts = np.random.default_rng(3).multinomial(8, np.full(8, 1 / 8), size=25)
        errors = []
        for c in counts:
            cols = np.repeat(np.arange(8), c)
            if mask is None:
                w, b, d_o = metric_stats(t[:, cols], n)
            else:
                w, b, d_o = oob_stats(t[:, cols], mask[:, cols], n)
            errors.append(b / (b + d_o))
        if mask is None:
            w, b, d_o = metric_stats(t, n, plug_in=True)
        else:
            w, b, d_o = oob_stats(t, mask, n, plug_in=True)
        errors = np.array(errors) - b / (b + d_o)
        if mask is None:
            errors = jackknife_scaled(errors, t, lambda m: icc_of_stats(metric_stats(m, n)))
        np.testing.assert_allclose(res.errors, errors, atol=1e-4)


def test_band_defaults():
    res = cf.closed_form_bands(T, None, [2.0], {"icc": None}, classifier=False, voting=None,
                               random_state=0)["icc"]
    assert (res.n_resamples, res.confidence_level) == (200, 0.95) and res.errors.shape == (200, 1)
    assert res.voting is None  # metric predictions: no voting, whatever the caller passes
    soft = cf.closed_form_bands(T, None, [2.0], {"icc": None}, classifier=False, voting="soft", n_resamples=2)
    assert soft["icc"].voting is None
    counts = np.random.default_rng(0).multinomial(8, np.full(8, 1 / 8), size=200)
    errors = [icc_of_stats(metric_stats(T[:, np.repeat(np.arange(8), c)], 2.0)) for c in counts]
    truth = icc_of_stats(metric_stats(T, 2.0, plug_in=True))
    errors = jackknife_scaled((np.array(errors) - truth)[:, None], T,
                              lambda m: np.atleast_1d(icc_of_stats(metric_stats(m, 2.0))))
    low, high = percentile_band(res.curve, errors, 0.95)
    assert res.low[0] == pytest.approx(low[0], abs=1e-5)
    assert res.high[0] == pytest.approx(high[0], abs=1e-5)


def icc_of_stats(s):
    w, b, d_o = s
    return b / (b + d_o)


def fleiss_of(agree, pi):
    """Fleiss' kappa of the curves from agree[k, i] and pi[k, i, c] (NaN objects left out)."""
    d_o = 1 - np.nanmean(agree, axis=1)
    share = np.nanmean(pi, axis=1)
    return 1 - d_o / (1 - np.sum(share**2, axis=1))


def test_out_of_bag_class_bands_by_hand():
    # hard votes of two classes out of bag: every step draws from the one generator, in order --
    # the estimate's orderings, the bootstrap world's forests drawn with replacement, the
    # resampling counts, then max(5, orderings / 8) draws with replacement per resampled pool
    # (its own bootstrap world)
    preds = votes_pool([0.2, 0.5, 0.7, 0.9, 0.4], 6, seed=5)
    mask = np.random.default_rng(6).random((5, 6)) < 0.6
    mask[4] = [0, 0, 0, 1, 0, 0]  # one voter: dropped
    n = [1, 2]
    res = cf.closed_form_bands(preds, mask, np.array([1.0, 2.0]), {"fleiss": None}, classifier=True,
                               voting="hard", n_resamples=4, confidence_level=0.5, random_state=7)["fleiss"]
    rng = np.random.default_rng(7)
    keep = mask.sum(axis=1) > 1
    n_perm = cf._orderings(int(keep.sum()))
    assert n_perm == 200
    orders = rng.permuted(np.tile(np.arange(6), (n_perm, 1)), axis=1)
    curve = fleiss_of(*ordering_average(preds[keep], mask[keep], orders, n, "hard"))
    drawn = rng.integers(0, 6, (n_perm, 6))
    truth = fleiss_of(*ordering_average(preds[keep], mask[keep], drawn, n, "hard"))
    counts = rng.multinomial(6, np.full(6, 1 / 6), size=4)
    errors = []
    for c in counts:
        cols = np.repeat(np.arange(6), c)
        p, m = preds[:, cols], mask[:, cols]
        rows = m.sum(axis=1) > 1
        # the resampled pool's own bootstrap world: 25 sequences of learners drawn with replacement
        drawn = rng.integers(0, 6, (25, 6))
        with np.errstate(invalid="ignore"):
            errors.append(fleiss_of(*ordering_average(p[rows], m[rows], drawn, n, "hard")) - truth)
    np.testing.assert_allclose(res.curve, curve, rtol=1e-12)
    np.testing.assert_allclose(res.errors, errors, rtol=1e-10, atol=1e-12)
    low, high = percentile_band(curve, errors, 0.5)
    np.testing.assert_allclose(res.low, low, rtol=1e-10)
    np.testing.assert_allclose(res.high, high, rtol=1e-10)


# ----------------------------------------------------------------------------- mutation survivors (issue 24)
def test_curve_without_bootstrap_covers_nothing_in_its_table():
    nan2 = np.array([np.nan, np.nan])
    bare = cf.ClosedFormResult(measure="icc", n_learners=np.array([2.0, 5.0]), curve=np.array([0.5, 0.8]),
                               confidence_interval=ConfidenceInterval(nan2, nan2), errors=None, n_resamples=0,
                               confidence_level=0.95, pool_size=10)
    assert bare.to_frame()["ci_covers"].tolist() == ["", ""]


def test_out_of_bag_moments_report_progress_block_by_block():
    # 200 objects: blocks of 64 rows, the objects done after each block
    rng = np.random.default_rng(8)
    t = rng.normal(size=(200, 6))
    mask = rng.random((200, 6)) < 0.6
    done = []
    mu, var, count = cf.metric_moments(t, mask, progress=lambda d, total: done.append((d, total)))
    assert done == [(64, 200), (128, 200), (192, 200), (200, 200)]
    rows = np.flatnonzero(mask.sum(axis=1) > 1)
    np.testing.assert_allclose(mu, [t[i, mask[i]].mean() for i in rows], rtol=1e-13)
    np.testing.assert_array_equal(count, mask[rows].sum(axis=1))
    done.clear()  # test objects too
    mu, var, count = cf.metric_moments(t, progress=lambda d, total: done.append((d, total)))
    assert done == [(64, 200), (128, 200), (192, 200), (200, 200)]
    np.testing.assert_allclose(var, t.var(axis=1, ddof=1), rtol=1e-12)


def test_class_bands_report_progress_per_resampled_pool():
    preds = class_pool(n_obj=6, size=8, n_classes=2, seed=7)
    done = []
    res = cf.closed_form_bands(preds, None, [2.0], {"fleiss": None}, classifier=True, voting="soft",
                               n_resamples=3, random_state=3, progress=lambda d, m: done.append((d, m)))
    assert done == [(1, 3), (2, 3), (3, 3)]
    quiet = cf.closed_form_bands(preds, None, [2.0], {"fleiss": None}, classifier=True, voting="soft",
                                 n_resamples=3, random_state=3)
    np.testing.assert_array_equal(res["fleiss"].errors, quiet["fleiss"].errors)


def test_bands_of_two_learners_are_the_plain_bootstrap():
    # the jackknife needs 3 learners (it divides by P - 2): with 2 the errors are the resampled
    # pools' closed forms minus the pool's, unscaled, and no numpy warning is raised
    t = T[:, :2]
    n = np.array([1.0, 4.0])
    res = cf.closed_form_bands(t, None, n, {"phi": 3.0}, classifier=False, voting=None, n_resamples=6,
                               random_state=5)["phi"]
    counts = np.random.default_rng(5).multinomial(2, [0.5, 0.5], size=6)

    def phi_of(x):
        return 1 - metric_stats(x, n)[2] / 3.0

    errors = np.stack([phi_of(t[:, np.repeat(np.arange(2), c)]) for c in counts]) - phi_of(t)
    np.testing.assert_allclose(res.errors, errors, atol=1e-5)  # float32 products
    np.testing.assert_allclose(res.curve, phi_of(t), rtol=1e-12)


def test_bands_pass_n_jobs_to_the_pass_over_objects(monkeypatch):
    seen = []
    moments = cf.metric_moments

    def spy(*args, **kwargs):
        seen.append(kwargs.get("n_jobs"))
        return moments(*args, **kwargs)

    monkeypatch.setattr(cf, "metric_moments", spy)
    a = cf.closed_form_bands(T, None, [2.0], {"icc": None}, classifier=False, voting=None, n_resamples=4,
                             random_state=1, n_jobs=2)["icc"]
    monkeypatch.undo()
    b = cf.closed_form_bands(T, None, [2.0], {"icc": None}, classifier=False, voting=None, n_resamples=4,
                             random_state=1)["icc"]
    assert seen == [2]
    np.testing.assert_array_equal(a.errors, b.errors)  # the numbers do not depend on it


def test_shared_passes_read_the_pool_once_and_change_no_number(monkeypatch):
    # issue 37, item 6: tune_num_learners computes ICC, phi and psi with one generator; inside
    # shared_passes their moments-and-resampling pass and the jackknife pass run once
    preds = np.random.default_rng(4).normal(size=(300, 1))[:, [0] * 40] + np.random.default_rng(5).normal(
        size=(300, 40))
    n = np.array([1.0, 4.0, 20.0])
    d_e = {"icc": None, "phi": 2.5, "psi": 1.5}

    def bands(seed):
        return {m: cf.closed_form_bands(preds, None, n, {m: v}, classifier=False, voting=None, n_resamples=25,
                                        random_state=seed)[m] for m, v in d_e.items()}

    plain = bands(1)
    passes, jacks = [], []
    moments, jackknife = cf._metric_moments, cf._jackknife_pass
    monkeypatch.setattr(cf, "_metric_moments", lambda *a, **k: passes.append(1) or moments(*a, **k))
    monkeypatch.setattr(cf, "_jackknife_pass", lambda *a, **k: jacks.append(1) or jackknife(*a, **k))
    with cf.shared_passes():
        shared = bands(1)
        assert (len(passes), len(jacks)) == (1, 1)
        other = bands(2)  # other resampling counts: one more moments pass, the same jackknife
        assert (len(passes), len(jacks)) == (2, 1)
        mu, var, count = cf.metric_moments(preds)  # no counts: served by the first pass
        assert len(passes) == 2
    np.testing.assert_array_equal(mu, preds.mean(axis=1))
    np.testing.assert_allclose(var, preds.var(axis=1, ddof=1), rtol=1e-12)
    for m in d_e:
        for field in ("curve", "errors", "low", "high"):
            np.testing.assert_array_equal(getattr(shared[m], field), getattr(plain[m], field))
        assert not np.array_equal(other[m].errors, plain[m].errors)
    bands(1)  # outside the scope nothing is kept: three passes again
    assert (len(passes), len(jacks)) == (5, 4)


def test_jackknife_pass_threads_give_the_same_sums():
    preds = np.random.default_rng(6).gamma(2.0, size=(1000, 30))  # 16 blocks of 64 objects
    one, three = cf._metric_jackknife_stats(preds), cf._metric_jackknife_stats(preds, n_jobs=3)
    for key in ("w", "b"):
        np.testing.assert_array_equal(three[key], one[key])
    # the pool without learner 0, by hand
    rest = preds[:, 1:]
    w = rest.var(axis=1, ddof=1).mean()
    assert one["w"][0] == pytest.approx(w, rel=1e-12)
    assert one["b"][0] == pytest.approx(max(rest.mean(axis=1).var(ddof=1) - w / 29, 0.0), rel=1e-10)


@pytest.mark.parametrize(("measure", "d_e"), [("icc", None), ("phi", 2.5)])
def test_jackknife_curves_of_every_learner_at_once_are_each_learners_curve(measure, d_e):
    # issue 37, item 6: the curves without each learner are one call over rows (one per learner),
    # not one call per learner (1,000 calls of 3 measures cost 0.2 s of serial time); the same
    # elementwise operations, so the same bits as the curve of each learner's statistics alone
    preds = np.random.default_rng(6).normal(size=(200, 1))[:, [0] * 30] + np.random.default_rng(7).normal(
        size=(200, 30))
    n = np.array([1.0, 5.0, 40.0])
    errors = np.random.default_rng(8).normal(scale=1e-3, size=(50, 3))
    jack = cf._metric_jackknife_stats(preds)
    each = np.stack([cf.curve_from_stats({"d_o": w / n, "b": b, "w": w}, n, measure, d_e)
                     for w, b in zip(jack["w"], jack["b"], strict=True)])
    se_jack = np.sqrt(29 / 30 * np.sum((each - each.mean(axis=0)) ** 2, axis=0))
    se_boot = np.std(errors, axis=0, ddof=1)
    expected = errors * np.maximum(se_jack / se_boot, 1.0)
    got = cf._jackknife_calibrated(errors, preds, n, measure, d_e)
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert np.any(se_jack > se_boot)  # the scaling is exercised
    w = jack["w"][:, None]
    rows = {"d_o": w / n, "b": np.broadcast_to(jack["b"][:, None], (30, 3)), "w": w}
    np.testing.assert_array_equal(cf.curve_from_stats(rows, np.broadcast_to(n, (30, 3)), measure, d_e), each)
