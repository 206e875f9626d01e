"""predstab.compare follows the package's conventions: declared parameters, one result layer.

Every public function declares its parameters with ``@validate_params`` and every invalid
value generated from the declarations raises an error naming the parameter; every result
compares with ``==`` without raising, has a short repr, an R-style ``str`` and a one-row
``to_frame()`` with ``ci_low`` / ``ci_high`` where it has an interval.
"""

import inspect
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

from predstab import compare
from predstab._core._results import Result
from predstab._core._validation import InvalidParameterError

matplotlib.use("Agg")

A = [40, 42, 44, 45, 46, 47, 48, 49, 50, 51]
B = [5, 8, 10, 12, 30, 33, 35, 38, 40, 420]
RANKS = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 60)
PA = np.where(RNG.random(60) < 0.7, Y, 1 - Y)
PB = np.where(RNG.random(60) < 0.8, Y, 1 - Y)
TABLE = RNG.normal(1.0, 0.3, size=(6, 4))


def _acc(t, p):
    return float(np.mean(t == p))


# function -> (positional arguments, keyword arguments) of a valid call
CALLS = {
    "mcnemar": (([[146, 4], [14, 36]],), {}),
    "paired_bootstrap": ((Y, PA, PB), {"metric": _acc, "n_resamples": 20, "random_state": 0}),
    "bootstrap_ci": ((A,), {"n_resamples": 50, "random_state": 0}),
    "mean_permutation_test": ((A, B), {"n_resamples": 50, "random_state": 0}),
    "ttest": ((A, B), {}),
    "wilcoxon": ((A, B), {}),
    "corrected_resampled_ttest": ((A, B), {"n_train": 90, "n_test": 10}),
    "cv5x2_ttest": ((np.arange(10.0).reshape(5, 2), np.arange(10.0).reshape(5, 2) ** 1.1), {}),
    "cv5x2_ftest": ((np.arange(10.0).reshape(5, 2), np.arange(10.0).reshape(5, 2) ** 1.1), {}),
    "friedman_nemenyi": ((4 - RANKS,), {}),
    "bonferroni_dunn": ((4 - RANKS,), {"control": 1}),
    "seeds_needed": ((0.5,), {}),
    "power_ttest": ((0.5, 10), {}),
    "power_ttest_n": ((0.5,), {}),
    "detectable_effect": ((10,), {}),
    "win_rate_test": ((55, 100), {}),
    "games_needed": ((0.6,), {}),
    "iqm": ((A,), {}),
    "mean_ci": ((A,), {}),
    "stratified_bootstrap_ci": ((TABLE,), {"n_resamples": 30, "random_state": 0}),
    "expected_max_normal": ((5,), {}),
    "probability_of_improvement": ((TABLE, TABLE[::-1] * 0.9), {"n_resamples": 20, "random_state": 0}),
    "performance_profile": ((TABLE, [0.5, 1.0]), {}),
    "variance_components": ((TABLE,), {}),
}
FUNCTIONS = sorted(n for n in compare.__all__ if inspect.isfunction(getattr(compare, n)))


def test_every_public_function_is_called_here_and_declares_its_parameters():
    assert sorted(CALLS) == FUNCTIONS
    for name in FUNCTIONS:
        func = getattr(compare, name)
        declared = getattr(func, "_parameter_constraints", None)
        assert declared, name
        options = [p.name for p in inspect.signature(func).parameters.values()
                   if p.kind == p.KEYWORD_ONLY and p.name not in ("ax",)]
        assert set(options) <= set(declared), (name, set(options) - set(declared))


def _call(name, **change):
    args, kwargs = CALLS[name]
    func = getattr(compare, name)
    signature = inspect.signature(func).parameters
    params = list(signature)
    args = list(args)
    for key, value in change.items():
        if key in params[:len(args)]:
            args[params.index(key)] = value
        elif signature[key].kind is inspect.Parameter.POSITIONAL_ONLY:  # mcnemar(table, b)
            args += [None] * (params.index(key) - len(args)) + [value]
        else:
            kwargs = {**kwargs, key: value}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_invalid_values_from_the_declarations_name_the_parameter(name):
    import matplotlib.pyplot as plt

    _call(name)  # the valid call runs
    for param, constraints in getattr(compare, name)._parameter_constraints.items():
        bad_values = [v for c in constraints for v in c.invalid_values()
                      if not any(other.is_satisfied_by(v) for other in constraints)]
        for bad in bad_values:
            with pytest.raises(InvalidParameterError, match=f"`{param}`"):
                _call(name, **{param: bad})
    plt.close("all")


def test_counts_are_integers_everywhere():
    # 3.0 is not a count, as in every other predstab function (predstab._core._utils.check_count)
    for call in (lambda: compare.win_rate_test(3.0, 10), lambda: compare.expected_max_normal(3.0),
                 lambda: compare.paired_bootstrap(Y, PA, PB, metric=_acc, n_resamples=30.0),
                 lambda: compare.mean_permutation_test(A, B, n_resamples=99.0)):
        with pytest.raises(InvalidParameterError, match="must be an integer"):
            call()


def _results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = compare.friedman_nemenyi(4 - RANKS)
        return {
            "McNemarResult": compare.mcnemar([[146, 4], [14, 36]]),
            "McNemarResult (Bowker)": compare.mcnemar([[24, 10, 10], [5, 30, 7], [5, 14, 14]],
                                                      method="asymptotic"),
            "TestResult": compare.ttest(A, B),
            "TestResult (F)": compare.cv5x2_ftest(*CALLS["cv5x2_ftest"][0]),
            "WilcoxonResult": compare.wilcoxon(A, B),
            "PairedBootstrapResult": _call("paired_bootstrap"),
            "BootstrapResult": _call("bootstrap_ci"),
            "FriedmanNemenyiResult": fn,
            "BonferroniDunnResult": compare.bonferroni_dunn(4 - RANKS, control=2),
            "WinRateResult": compare.win_rate_test(55, 100),
            "GamesNeeded": compare.games_needed(0.6),
            "MeanCI": compare.mean_ci(A),
            "StratifiedBootstrapResult": _call("stratified_bootstrap_ci"),
            "ProbabilityOfImprovement": _call("probability_of_improvement"),
            "VarianceComponents": compare.variance_components(TABLE, baseline=TABLE * 0.9),
        }


RESULTS = _results()


def test_every_public_result_class_is_covered():
    classes = {n for n in compare.__all__ if inspect.isclass(getattr(compare, n))}
    assert classes == {type(r).__name__ for r in RESULTS.values()}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_result_convention(name):
    r = RESULTS[name]
    assert isinstance(r, Result)
    again = _results()[name]
    assert r == again and not (r != again)           # arrays compared, never a ValueError
    assert r != 1 and r is not None
    text = repr(r)
    assert len(text) < 300 and "array(" not in text and text.startswith(type(r).__name__ + "(")
    lines = str(r).splitlines()
    assert len(lines) >= 3 and "=" in str(r)
    frame = r.to_frame()
    assert isinstance(frame, pd.DataFrame)
    if name == "PairedBootstrapResult":            # the CLI writes these three rows (summary_frame)
        assert r.summary_frame()["quantity"].tolist() == ["A", "B", "B - A"]
    assert len(frame) == 1, name
    ci = getattr(r, "confidence_interval", None)
    if ci is not None:
        row = frame.iloc[-1]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(ci), nan_ok=True)
    assert not any(c in frame.columns for c in ("level", "conf_level", "lower", "upper"))


def test_results_differ_when_an_array_differs():
    a = compare.friedman_nemenyi(4 - RANKS)
    b = compare.friedman_nemenyi(4 - RANKS[::-1])   # same ranks per method, rows reordered
    assert a.statistic == b.statistic and a != b    # the per-data-set ranks differ


def test_str_is_r_print_htest():
    # print(mcnemar.test(matrix(c(24, 5, 5, 10, 30, 14, 10, 7, 14), 3)))
    assert str(RESULTS["McNemarResult (Bowker)"]).splitlines() == [
        "", "\tMcNemar's Chi-squared test", "", "data:  table",
        "McNemar's chi-squared = 5.6667, df = 3, p-value = 0.129"]
    # print(t.test(B, A)) layout (B minus A); the numbers by Welch's formulas, 5 and 4 digits
    from scipy import stats

    a, b = np.array(A, float), np.array(B, float)
    va, vb = a.var(ddof=1) / 10, b.var(ddof=1) / 10
    t = (b.mean() - a.mean()) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / 9 + vb ** 2 / 9)
    p = 2 * stats.t.sf(abs(t), df)
    lines = str(compare.ttest(A, B)).splitlines()
    assert lines[1] == "\tWelch Two Sample t-test"
    assert lines[4] == f"t = {t:.5g}, df = {df:.5g}, p-value = {p:.4g}"
    assert lines[4] == "t = 0.42355, df = 9.014, p-value = 0.6818"
    assert lines[5] == "alternative hypothesis: true difference in means is not equal to 0"
    assert lines[6] == "95 percent confidence interval:"
