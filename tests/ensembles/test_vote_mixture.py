"""Majority votes of two classes beyond half the pool (issue 37, item 5): the empirical-Bayes
estimate of the vote distribution (``predstab.ensembles._vote_mixture``) against exact values
computed here from known vote shares, and the estimator's own defining conditions."""

import numpy as np
import pytest
from scipy import stats

from predstab.ensembles import _closed_form as cf
from predstab.ensembles import _vote_mixture as vm


def one_hot(votes):
    return np.stack([~votes, votes], axis=2).astype(float)


def exact_kappa(q, n):
    """Fleiss' kappa of forests of n trees whose trees vote class 1 with probability q_i."""
    pi = stats.binom.sf(n // 2, n, q)  # a strict majority; a tie goes to the first class
    agree = pi**2 + (1 - pi) ** 2
    share = pi.mean()
    return 1 - (1 - agree.mean()) / (1 - share**2 - (1 - share) ** 2)


def kappa_of(preds, n):
    stats_ = cf.closed_form_stats(preds, None, np.asarray(n, dtype=float), classifier=True, voting="hard",
                                  rng=np.random.default_rng(0))
    return cf.curve_from_stats(stats_, np.asarray(n, dtype=float), "fleiss")


@pytest.mark.slow  # 150 pools: about 5 s on a quiet machine
def test_beyond_half_the_pool_the_class_curve_is_nearly_unbiased():
    """Pools of 100 trees, 24 objects with known shares (a third near a tie): the mean over 150
    pools of Fleiss' kappa at 60 and 100 trees is within 3 standard errors (and 0.02) of the exact
    value. The plug-in used before (the pool's shares taken as exact) was 0.024-0.027 too high
    here (300 pools; standard error 0.002), 20 standard errors on optRF's SNP data."""
    q = np.r_[np.linspace(0.03, 0.3, 8), np.linspace(0.42, 0.58, 8), np.linspace(0.7, 0.97, 8)]
    n = [60, 100]
    rng = np.random.default_rng(7)
    curves = np.array([kappa_of(one_hot(rng.random((len(q), 100)) < q[:, None]), n) for _ in range(150)])
    truth = np.array([exact_kappa(q, m) for m in n])
    bias = curves.mean(axis=0) - truth
    se = curves.std(axis=0, ddof=1) / np.sqrt(len(curves))
    assert np.all(np.abs(bias) < 3 * se), (bias, se)
    assert np.all(np.abs(bias) < 0.02)


def test_up_to_half_the_pool_the_disjoint_forests_are_kept():
    preds = one_hot(np.random.default_rng(1).random((6, 10)) < np.linspace(0.1, 0.9, 6)[:, None])
    ones = preds[..., 1].sum(axis=1)
    agree, pi = cf.class_agreement(preds, None, np.array([2.0, 5.0, 6.0, 25.0]), "hard",
                                   np.random.default_rng(0))
    exact = vm.two_class_vote_agreement(ones, 10, [2, 5])
    np.testing.assert_allclose(agree[:2], exact[0], rtol=1e-12)
    np.testing.assert_allclose(pi[:2], exact[1], rtol=1e-12)
    mixture = vm.two_class_vote_mixture(ones, 10, [6, 25])
    np.testing.assert_allclose(agree[2:], mixture[0], rtol=1e-12)
    np.testing.assert_allclose(pi[2:], mixture[1], rtol=1e-12)
    # the bootstrap world (population=True) stays Binomial votes with the pool's shares
    agree, pi = cf.class_agreement(preds, None, np.array([6.0]), "hard", np.random.default_rng(0),
                                   population=True)
    p1 = stats.binom.sf(3, 6, ones / 10)
    np.testing.assert_allclose(pi[0, :, 1], p1, rtol=1e-12)


def test_mixing_weights_are_the_maximum_likelihood():
    """The EM's fixed point: no share of the grid would raise the likelihood (the directional
    derivative of the log likelihood, mean_i L(k_i, q) / f(k_i) - 1, is at most ~0 everywhere
    and ~0 where the weights sit)."""
    ones = np.array([0, 0, 1, 3, 5, 5, 6, 9, 10, 10, 10, 4])
    post, inverse, weights = vm.share_posterior(ones, 10)
    like = stats.binom.pmf(ones[:, None], 10, vm.SHARES[None, :])
    gradient = (like / (like @ weights)[:, None]).mean(axis=0) - 1
    assert gradient.max() < 2e-3
    assert abs(gradient[weights > 1e-3]).max() < 2e-3
    assert abs(weights.sum() - 1) < 1e-9
    # each object's posterior: the weights times its likelihood, normalised
    expected = like * weights
    np.testing.assert_allclose(post[inverse], expected / expected.sum(axis=1, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(post.sum(axis=1), 1.0, rtol=1e-12)


def test_a_point_mass_gives_the_binomial_votes_of_its_share():
    """Every object with 5 of 10 votes: the estimated mixing distribution concentrates at 0.5, so
    the forests' votes are Binomial(n, 0.5): two forests of 2 trees agree with 0.25^2 + 0.75^2."""
    agree, pi = vm.two_class_vote_mixture(np.full(30, 5), 10, [1, 2, 3])
    p1 = stats.binom.sf(np.array([1, 2, 3]) // 2, [1, 2, 3], 0.5)
    np.testing.assert_allclose(pi[:, 0, 1], p1, atol=2e-3)
    np.testing.assert_allclose(agree[:, 0], p1**2 + (1 - p1) ** 2, atol=2e-3)
    assert pi.shape == (3, 30, 2) and np.all(agree == agree[:, :1])


@pytest.mark.parametrize("size", [6, 50])
def test_unanimous_objects_stay_unanimous(size):
    agree, pi = vm.two_class_vote_mixture(np.array([0, size, 0, size]), size, [size, 4 * size])
    np.testing.assert_allclose(agree, 1.0, atol=1e-9)
    np.testing.assert_allclose(pi[:, :, 1], [[0, 1, 0, 1]] * 2, atol=1e-9)
