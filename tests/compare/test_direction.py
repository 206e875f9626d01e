"""One direction (issue 24, item 6): every comparison of predstab.compare is B minus A, or B over A.

A registry of every function that compares two models, each called on ``b = a + delta``
(B better by ``delta``): its estimate is ``+delta`` (or says "B is better": a probability of
improvement above 1/2, a positive z), and its one-sided alternatives agree: "greater" rejects,
"less" does not. ``probability_of_improvement(a, b)`` returned P(A > B), 0.0 for
``b = a + 0.05``, while ``ttest(a, b).estimate`` was +0.05: the first test below.
"""

import inspect
import warnings

import numpy as np
import pytest

from predstab import compare


def test_the_issue_example_probability_of_improvement_is_b_over_a():
    # issue 24, item 6: b = a + 0.05 (every run of B above every run of A); before the fix
    # probability_of_improvement(a, b) was 0.0
    a = np.array([0.80, 0.81, 0.82, 0.83, 0.815, 0.805])
    b = a + 0.05
    assert compare.ttest(a, b).estimate == pytest.approx(0.05, rel=1e-12)
    assert compare.probability_of_improvement(a, b, n_resamples=0).value == 1.0
    assert compare.probability_of_improvement(b, a, n_resamples=0).value == 0.0
    # ties count half: no improvement either way is 1/2
    assert compare.probability_of_improvement(a, a, n_resamples=0).value == 0.5


def _tables(x):
    """(5, 2) tables of the first ten scores, for the 5x2cv tests."""
    return x[:10].reshape(5, 2)


def _judgments(a, b):
    """0/1 judgments: A right where its score is above its median, B right where B's score is
    above A's median (B's scores are higher: B is right on more cases)."""
    cut = np.median(a)
    return (a > cut).astype(int), (b > cut).astype(int)


def _mean_prediction(y_true, prediction):
    return float(np.mean(prediction))


# name -> (call on (a, b, **options), the estimate, what it must be, whether it takes `alternative`)
# "what it must be": a number (the estimate equals it) or a predicate (it says "B is better")
def _directed(delta):
    return {
        "ttest": (lambda a, b, **kw: compare.ttest(a, b, **kw), lambda r: r.estimate, delta, True),
        "ttest(equal_var)": (lambda a, b, **kw: compare.ttest(a, b, equal_var=True, **kw),
                             lambda r: r.estimate, delta, True),
        "ttest(paired)": (lambda a, b, **kw: compare.ttest(a, b, paired=True, **kw),
                          lambda r: r.estimate, delta, True),
        "mean_permutation_test": (
            lambda a, b, **kw: compare.mean_permutation_test(a, b, random_state=0, **kw),
            lambda r: r.estimate, delta, True),
        "mean_permutation_test(paired)": (
            lambda a, b, **kw: compare.mean_permutation_test(a, b, paired=True, **kw), lambda r: r.estimate,
            delta, True),
        "wilcoxon": (lambda a, b, **kw: compare.wilcoxon(a, b, **kw), lambda r: r.statistic,
                     lambda v, a: v == a.size * (a.size + 1) / 2, True),   # V: every rank positive
        "corrected_resampled_ttest": (
            lambda a, b, **kw: compare.corrected_resampled_ttest(a, b, n_train=90, n_test=10, **kw),
            lambda r: r.estimate, delta, True),
        "cv5x2_ttest": (lambda a, b: compare.cv5x2_ttest(_tables(a), _tables(b)),
                        lambda r: (r.estimate, r.statistic > 0), None, False),
        "cv5x2_ftest": (lambda a, b: compare.cv5x2_ftest(_tables(a), _tables(b)), lambda r: r.estimate,
                        None, False),
        "paired_bootstrap": (
            lambda a, b: compare.paired_bootstrap(np.zeros(a.size), a, b, metric=_mean_prediction,
                                                  n_resamples=200, random_state=0),
            lambda r: (r.difference, r.confidence_interval.low > 0, r.score_b - r.score_a), None, False),
        "probability_of_improvement": (
            lambda a, b: compare.probability_of_improvement(a, b, n_resamples=0), lambda r: r.value,
            lambda v, a: v > 0.5, False),
        "mcnemar": (lambda a, b: compare.mcnemar(*_judgments(a, b)),
                    lambda r: (r.delta_pp, r.improvements - r.regressions),
                    lambda v, a: v[0] > 0 and v[1] > 0, False),
        "bonferroni_dunn": (lambda a, b: compare.bonferroni_dunn(np.column_stack([a, b]), control=0),
                            lambda r: r.z[0], lambda v, a: v > 0, False),   # B ranks better than control A
        "variance_components": (lambda a, b: compare.variance_components(np.column_stack([b, b]),
                                                                          baseline=np.column_stack([a, a])),
                                lambda r: r.paired.mean, delta, False),
    }


DIRECTED = sorted(_directed(0.0))


def _check(name, a, b, delta):
    call, estimate, want, _ = _directed(delta)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = estimate(call(a, b))
    if name in ("cv5x2_ttest", "cv5x2_ftest"):
        got = got[0] if isinstance(got, tuple) else got
        d = _tables(b) - _tables(a)
        assert got == pytest.approx(d.mean(), rel=1e-12) and got > 0
    elif name == "paired_bootstrap":
        assert got[0] == pytest.approx(delta, rel=1e-9) and got[1] and got[2] == got[0]
    elif callable(want):
        assert want(got, a), (name, got)
    else:
        assert got == pytest.approx(want, rel=1e-9), (name, got)


@pytest.mark.parametrize("name", DIRECTED)
def test_every_estimate_is_b_minus_a(name, shifted_scores):
    a, b, delta = shifted_scores
    _check(name, a, b, delta)
    if name == "cv5x2_ttest":  # Dietterich's t has the sign of its first difference, B - A
        assert compare.cv5x2_ttest(_tables(a), _tables(b)).statistic > 0


@pytest.mark.parametrize("name", DIRECTED)
def test_swapping_a_and_b_turns_the_direction(name, shifted_scores):
    a, b, delta = shifted_scores
    call, estimate, want, _ = _directed(delta)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forward, backward = estimate(call(a, b)), estimate(call(b, a))
    if name == "wilcoxon":          # V of B - A is all the ranks; of A - B none
        assert (forward, backward) == (a.size * (a.size + 1) / 2, 0.0)
    elif name == "probability_of_improvement":
        assert backward == pytest.approx(1 - forward, rel=1e-12) and backward < 0.5
    elif name == "mcnemar":
        assert backward[0] == -forward[0] and backward[1] == -forward[1]
    elif name == "cv5x2_ttest":
        assert backward[0] == pytest.approx(-forward[0], rel=1e-12) and not backward[1]
    elif name == "paired_bootstrap":
        assert backward[0] == pytest.approx(-forward[0], rel=1e-9) and not backward[1]
    else:
        assert backward == pytest.approx(-forward, rel=1e-9), name


ONE_SIDED = sorted(name for name, entry in _directed(0.0).items() if entry[3])


@pytest.mark.parametrize("name", ONE_SIDED)
def test_one_sided_alternatives_agree_with_the_direction(name, shifted_scores):
    # B better: "greater" (B - A > 0) rejects at 5 %, "less" does not; swapped, the other way round
    a, b, delta = shifted_scores
    call = _directed(delta)[name][0]
    greater, less = call(a, b, alternative="greater").pvalue, call(a, b, alternative="less").pvalue
    assert greater < 0.05 < 0.5 < less, (name, greater, less)
    assert call(b, a, alternative="less").pvalue == pytest.approx(greater, rel=1e-9, abs=1e-12)
    # the one-sided interval of a t-test lies above 0 for "greater"
    result = call(a, b, alternative="greater")
    if result.confidence_interval is not None:
        assert result.confidence_interval.low > 0 and result.confidence_interval.high == np.inf


def test_a_win_rate_and_the_power_functions_look_for_b_better(shifted_scores):
    a, b, _ = shifted_scores
    wins = int(np.sum(b > a))                 # B wins every game
    r = compare.win_rate_test(wins, a.size, alternative="greater")
    assert r.statistic == 1.0 and r.pvalue == pytest.approx(0.5 ** a.size, rel=1e-12)
    assert compare.win_rate_test(wins, a.size, alternative="less").pvalue == 1.0
    # one-sided power: d > 0 (B better) is what a one-sided test looks for
    up = compare.power_ttest(0.8, 10, alternative="one-sided")
    down = compare.power_ttest(-0.8, 10, alternative="one-sided")
    assert up > 0.5 > 0.05 > down
    assert compare.power_ttest(0.8, 10) == compare.power_ttest(-0.8, 10)   # two-sided: |d|


def test_the_registry_covers_every_function_that_compares_two_models():
    # every public function with a pair of positional arguments named a, b is in the registry
    pairs = set()
    for name in compare.__all__:
        func = getattr(compare, name)
        if not inspect.isfunction(func):
            continue
        params = inspect.signature(func).parameters
        if {"a", "b"} <= set(params):
            assert params["a"].kind is params["b"].kind is inspect.Parameter.POSITIONAL_ONLY, name
            pairs.add(name)
    covered = {name.split("(")[0] for name in DIRECTED}
    assert pairs == {"ttest", "mean_permutation_test", "wilcoxon", "corrected_resampled_ttest", "cv5x2_ttest",
                     "cv5x2_ftest", "paired_bootstrap", "probability_of_improvement", "mcnemar"}
    assert pairs <= covered
    # the comparisons without an (a, b) pair: a control (A) against the others, a baseline (A)
    assert {"bonferroni_dunn", "variance_components"} <= covered
