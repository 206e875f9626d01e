"""predstab.compare follows the package's conventions: declared parameters, one result layer.

Every public function declares its parameters with ``@validate_params`` and every invalid
value generated from the declarations raises an error naming the parameter; every result
compares with ``==`` without raising, has a short repr, an R-style ``str`` and a one-row
``to_frame()`` with ``ci_low`` / ``ci_high`` where it has an interval; bad input names the
parameter; every public name has a docstring and its home in a private module.
"""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import compare
from predstab._core._results import Result
from predstab._core._validation import InvalidParameterError
from tests.compare._examples import CALLS, PA, PB, RANKS, SA, SB, TABLE, A, B, Y, accuracy

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
                 lambda: compare.paired_bootstrap(Y, PA, PB, metric=accuracy, n_resamples=30.0),
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
            "FriedmanPosthocResult": compare.friedman_posthoc(4 - RANKS, method="conover"),
            "WinRateResult": compare.win_rate_test(55, 100),
            "GamesNeeded": compare.games_needed(0.6),
            "MeanCI": compare.mean_ci(A),
            "StratifiedBootstrapResult": _call("stratified_bootstrap_ci"),
            "ProbabilityOfImprovement": _call("probability_of_improvement"),
            "PerformanceProfileResult": _call("performance_profile_ci"),
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
    if name == "PerformanceProfileResult":         # a curve: one row per threshold
        assert frame["tau"].tolist() == r.taus.tolist()
        assert frame["ci_low"].tolist() == list(r.confidence_interval.low)
        return
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


# (call, exception, text that names the parameter)
BAD_INPUT = {
    "ttest level": (lambda: compare.ttest(SA, SB, confidence_level=1.5), ValueError, "`confidence_level`"),
    "ttest paired+equal_var": (lambda: compare.ttest(SA, SB, paired=True, equal_var=True), ValueError,
                               "`equal_var`"),
    "ttest paired lengths": (lambda: compare.ttest(SA, SB[:-1], paired=True), ValueError, "same shape"),
    "ttest nan": (lambda: compare.ttest([1.0, np.nan, 2.0], SB), ValueError, "`a`"),
    "ttest one value": (lambda: compare.ttest([1.0], SB), ValueError, "at least 2"),
    "ttest text": (lambda: compare.ttest(["a", "b"], SB), TypeError, "`a`"),
    "wilcoxon correct": (lambda: compare.wilcoxon(SA, SB, correction=1), TypeError, "`correction`"),
    "wilcoxon 2-D": (lambda: compare.wilcoxon([SA], [SB]), ValueError, "1-dimensional"),
    "corrected n_train": (lambda: compare.corrected_resampled_ttest(SA, SB, n_train=0, n_test=10),
                          ValueError, "`n_train`"),
    "corrected n_test": (lambda: compare.corrected_resampled_ttest(SA, SB, n_train=10, n_test=-1),
                         ValueError, "`n_test`"),
    "permutation n": (lambda: compare.mean_permutation_test(SA, SB, n_resamples=0), ValueError,
                      "`n_resamples`"),
    "permutation paired lengths": (lambda: compare.mean_permutation_test(SA, SB[:3], paired=True), ValueError,
                                   "same length"),
    "permutation rng": (lambda: compare.mean_permutation_test(SA, SB, random_state="seed"), TypeError,
                        "`random_state`"),
    "permutation empty": (lambda: compare.mean_permutation_test([], SB), ValueError, "`a`"),
    "mean_ci level": (lambda: compare.mean_ci(SA, confidence_level=0), ValueError, "`confidence_level`"),
    "mean_ci short": (lambda: compare.mean_ci([1.0]), ValueError, "`x`"),
    "stratified 1-D": (lambda: compare.stratified_bootstrap_ci(SA), ValueError, "`scores`"),
    "stratified statistic": (lambda: compare.stratified_bootstrap_ci([SA, SB], statistic="iqm"), TypeError,
                             "`statistic`"),
    "win rate level": (lambda: compare.win_rate_test(5, 10, confidence_level=2), ValueError,
                       "`confidence_level`"),
    "win rate count 3.0": (lambda: compare.win_rate_test(3.0, 10), ValueError, "`wins`"),
    "expected max text": (lambda: compare.expected_max_normal("5"), TypeError, "`k`"),
    "friedman higher": (lambda: compare.friedman_nemenyi([SA, SB], higher_is_better="yes"), TypeError,
                        "`higher_is_better`"),
    "bootstrap rng": (lambda: compare.paired_bootstrap(
        [0, 1, 0], [0, 1, 1], [0, 1, 0], metric=lambda t, p: 0.0,
        random_state=np.random.RandomState(0)), TypeError, "`random_state`"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_names_parameter(case):
    call, exc, match = BAD_INPUT[case]
    with pytest.raises(exc, match=match):
        call()


def test_public_api_docstrings_and_homes():
    for name in compare.__all__:
        obj = getattr(compare, name)
        assert obj.__doc__, name
        assert obj.__module__.startswith("predstab.compare._"), name


def test_to_frame_reports_intervals():
    f = compare.mean_ci(A).to_frame()
    assert f.shape[0] == 1 and f["ci_low"].iloc[0] == pytest.approx(43.681, abs=5e-4)
    f = compare.ttest(A, B).to_frame()
    assert {"statistic", "pvalue", "estimate", "ci_low", "ci_high"} <= set(f.columns)
    f = compare.win_rate_test(55, 100).to_frame()
    assert f["ci_high"].iloc[0] == pytest.approx(0.649679770760328, rel=1e-10)  # binom.test conf.int
    v = compare.variance_components(np.arange(12.0).reshape(3, 4), baseline=np.zeros((3, 4))).to_frame()
    assert "paired" not in v.columns and v.shape == (1, 10)


def test_results_are_frozen():
    import dataclasses

    r = compare.mcnemar([[1, 2], [3, 4]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pvalue = 0.5


def test_no_warnings_on_regular_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare.mcnemar([[146, 4], [14, 36]])
        compare.friedman_nemenyi(4 - RANKS)
        compare.ttest(A, B)
