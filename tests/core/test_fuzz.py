"""Fuzzing: random shapes, dtypes and missing-value patterns into every public function.

Each call must either return a result or raise the documented ``ValueError`` /
``TypeError`` with a message that names the parameter in backticks; the only warnings
allowed are predstab's own (``PredstabWarning`` subclasses: no stray numpy
``RuntimeWarning`` from a division by zero), and a NaN value must come with a
``PredstabUndefinedWarning`` (never a silently undefined number). Seeded and bounded:
a fixed number of inputs per function.
"""

import re
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import PredstabUndefinedWarning, PredstabWarning
from predstab import compare as cmp

N_INPUTS = 60
_LETTERS = np.array(list("abcde"), dtype=object)


def random_shape(rng):
    n, k = int(rng.integers(1, 7)), int(rng.integers(1, 6))
    shapes = [(n, k), (n, k), (n, k), (n,), (0,), (0, k), (n, 0), (1, k), (n, 1), (2, 2, 2), ()]
    return shapes[int(rng.integers(len(shapes)))]


def _with_missing(rng, arr, missing):
    if arr.size and arr.ndim:
        p = rng.choice([0.0, 0.2, 0.6, 1.0])
        mask = rng.random(arr.shape) < p
        arr = arr.astype(object) if arr.dtype.kind not in "fO" else arr.copy()
        arr[mask] = missing
    return arr


def random_array(rng, shape=None):
    """One of many kinds of array-like a user might pass."""
    shape = random_shape(rng) if shape is None else shape
    numbers = np.round(rng.normal(size=shape) * 3, int(rng.integers(0, 3)))
    kind = int(rng.integers(16))
    if kind == 0:
        return numbers
    if kind == 1:
        return _with_missing(rng, numbers, np.nan)
    if kind == 2:
        return _with_missing(rng, numbers, rng.choice([np.inf, -np.inf]))
    if kind == 3:
        return rng.integers(0, 4, size=shape)
    if kind == 4:
        return rng.integers(0, 3, size=shape).astype(rng.choice([np.int8, np.uint8, np.int32]))
    if kind == 5:
        return rng.random(shape) < 0.5
    if kind == 6:
        return _LETTERS[rng.integers(0, 3, size=shape)] if shape else "a"
    if kind == 7:  # mixed numbers, text and missing values
        arr = np.array(rng.integers(0, 3, size=shape), dtype=object)
        return _with_missing(rng, _with_missing(rng, arr, "x"), None)
    if kind == 8:
        return numbers + 1j
    if kind == 9:
        return np.zeros(shape, dtype="datetime64[D]")
    if kind == 10:  # ragged list of lists
        return [[1.0, 2.0, 3.0], [1.0, 2.0]] if rng.random() < 0.5 else [[1, 2], [3]]
    if kind == 11:
        return rng.choice(np.array([None, 3.5, "text", {"a": 1}], dtype=object))
    # pandas: nullable and categorical dtypes
    two = np.atleast_2d(rng.integers(0, 3, size=shape if len(shape) == 2 else (4, 3)))
    frame = pd.DataFrame(two, columns=[f"r{j}" for j in range(two.shape[1])])
    if kind == 12:
        frame = frame.astype("Int64")
        if frame.size:
            frame.iloc[0, 0] = pd.NA
        return frame
    if kind == 13:
        return frame.astype("Float64") / 2
    if kind == 14:
        return frame.astype(str).astype("category")
    return (frame > 0).astype("boolean")


def _names_a_parameter(message):
    return re.search(r"`[^`]+`", message) is not None


def check(call):
    """Run ``call()``; the outcome must be a result or a documented, parameter-naming error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except (ValueError, TypeError) as exc:
            assert _names_a_parameter(str(exc)), f"{type(exc).__name__} names no parameter: {exc}"
            result = None
    stray = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught
             if not issubclass(w.category, PredstabWarning)]
    assert not stray, stray
    value = getattr(result, "value", None)
    if isinstance(value, float) and np.isnan(value):
        assert any(issubclass(w.category, PredstabUndefinedWarning) for w in caught), \
            "NaN returned without a PredstabUndefinedWarning"
    return result


def _scale(rng):
    return rng.choice(np.array([None, "metric", "categorical", "ordinal"], dtype=object))


def _pair(rng):
    """Predictions and a baseline: half the time unrelated, half the time the predictions' own values."""
    pred = random_array(rng)
    if rng.random() < 0.5 or not isinstance(pred, np.ndarray):
        return pred, random_array(rng)
    return pred, pred.ravel()


def _levels(rng):
    return [None, [0, 1, 2, 3], ["a", "b", "c"], [0, 1], [], "abc"][int(rng.integers(6))]


TARGETS = {
    "icc": lambda rng: predstab.icc(random_array(rng)),
    "icc(A,k)": lambda rng: predstab.icc(random_array(rng), model="twoway", type="agreement",
                                         unit="average"),
    "icc_table": lambda rng: predstab.icc_table(random_array(rng)),
    "fleiss_kappa": lambda rng: predstab.fleiss_kappa(random_array(rng)),
    "fleiss_kappa(exact, detail)": lambda rng: predstab.fleiss_kappa(random_array(rng), exact=True,
                                                                     detail=True),
    **{f"krippendorff_alpha({level})": partial(lambda rng, level: predstab.krippendorff_alpha(
        random_array(rng), scale=level), level=level)
       for level in ("nominal", "ordinal", "interval", "ratio")},
    "krippendorff_alpha(levels)": lambda rng: predstab.krippendorff_alpha(
        random_array(rng), scale=rng.choice(["nominal", "ordinal"]), categories=_levels(rng)),
    "phi": lambda rng: predstab.phi(*_pair(rng), scale=_scale(rng), categories=_levels(rng)),
    "psi": lambda rng: predstab.psi(*_pair(rng), scale=_scale(rng), categories=_levels(rng)),
    "calculate_phi": lambda rng: predstab.calculate_phi(*_pair(rng),
                                                        rng.choice(["metric", "categorical", "ordinal"]),
                                                        _levels(rng)),
    "calculate_psi": lambda rng: predstab.calculate_psi(*_pair(rng),
                                                        rng.choice(["metric", "categorical", "ordinal"]),
                                                        _levels(rng)),
    "selection_stability": lambda rng: predstab.selection_stability(
        random_array(rng), fraction=float(rng.choice([0.3, 0.5, 2.0])),
        select_for=rng.choice(np.array(["high", "low", "zero", 0, "a", True], dtype=object))),
    "importance_stability": lambda rng: predstab.importance_stability(random_array(rng), fraction=0.4),
    "fit_2pl": lambda rng: predstab.fit_2pl(random_array(rng), random_array(rng)),
    "compare.ttest": lambda rng: cmp.ttest(random_array(rng), random_array(rng),
                                           paired=bool(rng.random() < 0.5)),
    "compare.wilcoxon": lambda rng: cmp.wilcoxon(random_array(rng), random_array(rng)),
    "compare.mean_ci": lambda rng: cmp.mean_ci(random_array(rng)),
    "compare.iqm": lambda rng: cmp.iqm(random_array(rng)),
    "compare.mean_permutation_test": lambda rng: cmp.mean_permutation_test(
        random_array(rng), random_array(rng), n_resamples=99, random_state=0),
    "compare.friedman_nemenyi": lambda rng: cmp.friedman_nemenyi(random_array(rng)),
    "compare.variance_components": lambda rng: cmp.variance_components(random_array(rng)),
    "compare.mcnemar": lambda rng: cmp.mcnemar(random_array(rng), random_array(rng)),
}


@pytest.mark.parametrize("name", list(TARGETS))
def test_random_input_gives_a_result_or_a_documented_error(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for i in range(N_INPUTS):
        state = rng.bit_generator.state
        try:
            check(lambda: TARGETS[name](rng))
        except AssertionError as exc:
            raise AssertionError(f"{name}, input {i} (bit generator state {state}): {exc}") from None


@pytest.mark.parametrize("name", ["icc", "fleiss_kappa", "krippendorff_alpha(interval)", "phi",
                                  "selection_stability"])
def test_the_fuzzer_reaches_both_results_and_errors(name):
    """Guard against a fuzzer that only ever produces errors (which would test nothing)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    outcomes = {check(lambda: TARGETS[name](rng)) is None for _ in range(N_INPUTS)}
    assert outcomes == {True, False}


# ---------------------------------------------------------------- functions that fit estimators
# X and y go to scikit-learn, whose validation messages ("Input y contains NaN.", "Found input
# variables with inconsistent numbers of samples") are passed on unchanged, or with the seed
# prefixed when a refit fails. Accepted: a ValueError/TypeError of any message; not accepted:
# any other exception, or a stray warning.

def _tree():
    from sklearn.tree import DecisionTreeRegressor

    return DecisionTreeRegressor(max_depth=2)


def _forest():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=3, max_depth=2)


_X = np.arange(12.0).reshape(6, 2)
ESTIMATOR_TARGETS = {
    "repeated_predictions(y)": lambda rng: predstab.repeated_predictions(
        _tree(), _X, random_array(rng), _X[:2], n_repeats=2, baseline=None),
    "repeated_predictions(X, X_test)": lambda rng: predstab.repeated_predictions(
        _tree(), random_array(rng), np.arange(6.0), random_array(rng), n_repeats=2, baseline=None),
    "TreePool.fit(y)": lambda rng: predstab.TreePool(_forest(), n_learners=4, random_state=0).fit(
        _X, random_array(rng), _X[:2]),
    "TreePool.fit(X, X_test)": lambda rng: predstab.TreePool(_forest(), n_learners=4, random_state=0).fit(
        random_array(rng), np.arange(6.0), random_array(rng)),
}


def check_estimator_call(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except (ValueError, TypeError):
            pass
    # scikit-learn's own warnings (feature names) are the estimator's business
    stray = [f"{w.category.__name__}: {w.message}" for w in caught
             if not issubclass(w.category, PredstabWarning) and "sklearn" not in w.filename]
    assert not stray, stray


@pytest.mark.parametrize("name", list(ESTIMATOR_TARGETS))
def test_random_training_data_gives_a_result_or_a_value_or_type_error(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for i in range(20):
        try:
            check_estimator_call(lambda: ESTIMATOR_TARGETS[name](rng))
        except AssertionError as exc:
            raise AssertionError(f"{name}, input {i}: {exc}") from None


# ------------------------------------------------------------------------------------ plots

PLOT_TARGETS = {
    "plot_stability_curve": lambda rng: predstab.plotting.plot_stability_curve(random_array(rng),
                                                                               random_array(rng)),
    "plot_per_object": lambda rng: predstab.plotting.plot_per_object(random_array(rng)),
}


@pytest.mark.parametrize("name", list(PLOT_TARGETS))
def test_random_input_to_plots(name):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(sum(map(ord, name)))
    try:
        for i in range(25):
            try:
                check(lambda: PLOT_TARGETS[name](rng))
            except AssertionError as exc:
                raise AssertionError(f"{name}, input {i}: {exc}") from None
            plt.close("all")
    finally:
        plt.close("all")


# ------------------------------------------------------------------------------ bad options

_M = np.random.default_rng(0).normal(size=(8, 5))
_C = np.random.default_rng(0).integers(0, 3, size=(8, 5))
OPTION_CALLS = {
    "icc": (predstab.icc, (_M,), {}),
    "icc_table": (predstab.icc_table, (_M,), {}),
    "fleiss_kappa": (predstab.fleiss_kappa, (_C,), {}),
    "krippendorff_alpha": (predstab.krippendorff_alpha, (_C,), {}),
    "phi": (predstab.phi, (_M, _M.ravel()), {}),
    "psi": (predstab.psi, (_C, _C.ravel()), {}),
    "selection_stability": (predstab.selection_stability, (_M,), {}),
    "importance_stability": (predstab.importance_stability, (_M,), {}),
    "make_stability_scorer": (predstab.make_stability_scorer, (), {}),
    "TwoPL.recommend": (predstab.fit_2pl([10, 50, 100, 250, 500], [0.5, 0.8, 0.9, 0.95, 0.97]).recommend,
                        (), {}),
    "compare.ttest": (cmp.ttest, (_M[:, 0], _M[:, 1]), {}),
    "compare.wilcoxon": (cmp.wilcoxon, (_M[:, 0], _M[:, 1]), {}),
    "compare.mean_ci": (cmp.mean_ci, (_M[:, 0],), {}),
    "compare.mean_permutation_test": (cmp.mean_permutation_test, (_M[:, 0], _M[:, 1]),
                                      {"n_resamples": 50}),
    "compare.friedman_nemenyi": (cmp.friedman_nemenyi, (_M,), {}),
    "compare.variance_components": (cmp.variance_components, (_M,), {}),
    "compare.corrected_resampled_ttest": (cmp.corrected_resampled_ttest, (_M[:, 0], _M[:, 1]),
                                          {"n_train": 90, "n_test": 10}),
    "compare.power_ttest": (cmp.power_ttest, (0.5, 10), {}),
    "compare.seeds_needed": (cmp.seeds_needed, (0.5,), {}),
    "compare.win_rate_test": (cmp.win_rate_test, (7, 10), {}),
    "compare.stratified_bootstrap_ci": (cmp.stratified_bootstrap_ci, (_M,), {"n_resamples": 50}),
}
BAD_OPTIONS = [None, -1, 0, 1, 1.5, -0.5, "bogus", True, np.nan, np.inf, [1, 2], {}, "high", 1e9]


# TwoPL.recommend with odd values (rec_thresh 1e-9, ...) walks far along the curve: ~3 s alone
_SLOW_OPTION_CALLS = {"TwoPL.recommend"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW_OPTION_CALLS else n
                                  for n in OPTION_CALLS])
def test_bad_option_values_give_a_result_or_an_error_naming_the_option(name):
    """scikit-learn's "bad parameters raise": every keyword option, every odd value."""
    import inspect

    func, args, base = OPTION_CALLS[name]
    options = [p.name for p in inspect.signature(func).parameters.values() if p.kind == p.KEYWORD_ONLY]
    assert options
    for option in options:
        for bad in BAD_OPTIONS:
            kwargs = {**base, option: bad}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", predstab.PredstabDataWarning)
                    check(lambda kwargs=kwargs: func(*args, **kwargs))
            except AssertionError as exc:
                raise AssertionError(f"{name}({option}={bad!r}): {exc}") from None


# ------------------------------------------------------------------------------ command line

_CELLS = ["1", "2", "0.5", "-3", "NA", "", "a", "b", "inf", "-inf", "nan", "TRUE", "FALSE", '"x,y"', "1e400",
          " 3", "é", "1,5"]


def _random_csv(rng):
    """Mostly well-formed CSVs of small integers; sometimes text, NA, inf, ragged lines, bad headers."""
    k = int(rng.integers(2, 5))
    header = ",".join(["r1", "r2", "r3", "r4"][:k])
    if rng.random() < 0.2:
        header = ",".join(rng.choice(["r1", "r2", "", "y", "r1"], size=k))
    pool = _CELLS if rng.random() < 0.4 else ["0", "1", "2", "3"]
    lines = [header]
    for _ in range(int(rng.integers(0, 9))):
        width = k + int(rng.integers(-1, 2)) if rng.random() < 0.05 else k
        lines.append(",".join(rng.choice(pool, size=width)))
    return "\n".join(lines) + "\n"


def _cli_args(rng, folder):
    a, b = str(folder / "a.csv"), str(folder / "b.csv")
    choices = [
        ["agree", a, "--measure", str(rng.choice(["icc", "fleiss", "alpha"])),
         "--scale", str(rng.choice(["nominal", "ordinal", "interval", "ratio"]))],
        ["agree", a, "--measure", "alpha", "--scale", "ordinal", "--categories", "1,2,a"],
        ["agree", a, "--measure", "icc", "--table"],
        ["stability", a, "--training-observations", b, "--scale",
         str(rng.choice(["metric", "categorical", "ordinal"])), "--categories", "1,2,0.5"],
        ["stability", a, "--prediction-space", b, "--scale", str(rng.choice(["metric", "categorical"]))],
        ["compare", a, "--test", "friedman"],
        ["compare", a, "--test", "mcnemar", "--a", "r1", "--b", "r2"],
        ["compare", a, "--test", "permutation", "--a", "r1", "--b", "r2"],
    ]
    return choices[int(rng.integers(len(choices)))]


def test_cli_on_random_files_exits_0_or_2_with_one_error_line(tmp_path, capsys):
    """Never an internal error (exit 1) or a traceback: bad files are the user's input errors."""
    from predstab.cli import main

    rng = np.random.default_rng(2026)
    codes = set()
    for i in range(120):
        (tmp_path / "a.csv").write_text(_random_csv(rng), encoding="utf-8")
        (tmp_path / "b.csv").write_text(_random_csv(rng), encoding="utf-8")
        args = _cli_args(rng, tmp_path)
        code = main(args)
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if ": error:" in line or "internal error" in line]
        assert code in (0, 2) and "Traceback" not in err, (i, args, err)
        assert len(errors) == (code == 2), (i, args, err)
        codes.add(code)
    assert codes == {0, 2}  # the generator reaches both outcomes


@pytest.mark.parametrize("option, value", [("measures", 1), ("measures", {}), ("rec_thresh", np.inf),
                                           ("rec_thresh", -1.0), ("round_to", [1]), ("n_repeats", 1.5),
                                           ("grid", "bogus"), ("target", np.nan)])
def test_tune_num_learners_bad_options(option, value):
    """Found by the option fuzzer (offline: fitting makes it slow): rec_thresh=inf used to loop forever."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(size=40)
    kwargs = {"grid": (2, 4, 8), "n_repeats": 2, "n_resamples": 0, option: value}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabWarning)
        with pytest.raises((ValueError, TypeError), match=f"`{option}`"):
            predstab.tune_num_learners(RandomForestRegressor(max_depth=2), X[:30], y[:30], X[30:], **kwargs)


# --------------------------------------- degenerate and extreme numeric matrices (issue 23)

def _hard_matrix(rng):
    """A numeric matrix of a class that broke the measures: extreme magnitude, equal row means,
    a constant column, identical columns, a masked array."""
    n, k = int(rng.integers(3, 9)), int(rng.integers(2, 6))
    x = np.round(rng.normal(size=(n, 1)) * 2 + rng.normal(size=(n, k)), int(rng.integers(0, 3)))
    kind = int(rng.integers(6))
    if kind == 0:
        return x * 10.0 ** float(rng.choice([-1, 1]) * rng.uniform(150, 300))
    if kind == 1:  # every row a permutation of one row: equal row means (and totals)
        row = rng.integers(0, 6, size=k).astype(float)
        return np.array([rng.permutation(row) for _ in range(n)])
    if kind == 2:
        x[:, int(rng.integers(k))] = 3.0
        return x
    if kind == 3:
        return np.repeat(x[:, :1], k, axis=1)
    if kind == 4:
        return np.ma.masked_array(x, mask=rng.random(x.shape) < 0.2)
    return np.full((n, k), float(rng.integers(0, 3)))


HARD_TARGETS = {
    "icc": lambda x: predstab.icc(x),
    "icc(k)": lambda x: predstab.icc(x, unit="average"),
    "icc(C,k)": lambda x: predstab.icc(x, model="twoway", unit="average"),
    "icc(A,1)": lambda x: predstab.icc(x, model="twoway", type="agreement"),
    "krippendorff_alpha(interval)": lambda x: predstab.krippendorff_alpha(x, scale="interval"),
    "robinson_a": predstab.robinson_a,
    "iota": predstab.iota,
    "finn": lambda x: predstab.finn(x, n_categories=7),
    "mean_correlation": predstab.mean_correlation,
    "mean_spearman": predstab.mean_spearman,
    "cronbach_alpha": predstab.cronbach_alpha,
    "cronbach_alpha(detail=False)": lambda x: predstab.cronbach_alpha(x, detail=False),
    "phi(metric)": lambda x: predstab.phi(x, np.ravel(x)[::2], scale="metric"),
    "psi(metric)": lambda x: predstab.psi(x, np.ravel(x)[::2], scale="metric"),
    "rater_bias": lambda x: predstab.rater_bias(np.round(np.asarray(x)[:, :2] * 0)),
    "compare.ttest(paired)": lambda x: cmp.ttest(np.asarray(x)[:, 0], np.asarray(x)[:, 1], paired=True),
}


@pytest.mark.parametrize("name", list(HARD_TARGETS))
def test_degenerate_and_extreme_matrices_follow_the_convention(name):
    # no numpy warning, no exception but a documented one, NaN only with a PredstabUndefinedWarning,
    # and a finite value stays in the measure's range (ICC(k) was -3.4e30, alpha -inf)
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(N_INPUTS):
        x = _hard_matrix(rng)
        result = check(lambda x=x: HARD_TARGETS[name](x))
        value = getattr(result, "value", None)
        # (finn and t are not bounded; alpha from pairwise-complete covariances can exceed 1, as psych's)
        bounded = not name.startswith(("compare", "finn")) and not (
            name.startswith("cronbach") and isinstance(x, np.ma.MaskedArray))
        if isinstance(value, float) and np.isfinite(value) and bounded:
            assert -1e6 < value <= 1 + 1e-12, (name, x, value)


def _random_x_test(rng):
    width = int(rng.choice([1, 2, 2, 3]))
    x = rng.normal(size=(int(rng.integers(1, 5)), width))
    kind = int(rng.integers(4))
    if kind == 1:
        return np.asfortranarray(x)
    if kind == 2:
        return x[:, ::-1] if width > 1 else x  # a strided view
    if kind == 3:
        return pd.DataFrame(x, columns=[f"c{j}" for j in range(width)])
    return x


def test_random_x_test_gives_the_forest_s_own_predictions_or_an_error_naming_x_test():
    # issue 23 item 1: the cache called tree_.predict unchecked (fewer columns read past the array)
    rng = np.random.default_rng(23)
    n_ok = n_refused = 0
    for _ in range(30):
        X_test = _random_x_test(rng)
        pool = predstab.TreePool(_forest(), n_learners=4, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # scikit-learn: X has feature names
            try:
                pool.fit(_X, np.arange(6.0), X_test)
            except ValueError as exc:
                assert "`X_test`" in str(exc), exc
                with pytest.raises(ValueError):  # the forest's own predict refuses it too
                    pool.ensemble_.predict(X_test)
                n_refused += 1
                continue
            np.testing.assert_allclose(pool.test_predictions_.mean(axis=1), pool.ensemble_.predict(X_test),
                                       rtol=1e-12)
            n_ok += 1
    assert n_ok and n_refused


# ------------------------------------------------------------------------- weight matrices

WEIGHTED_TARGETS = {
    "fleiss_kappa": lambda x, w: predstab.fleiss_kappa(x, weights=w),
    "krippendorff_alpha": lambda x, w: predstab.krippendorff_alpha(x, weights=w),
    "gwet_ac1": lambda x, w: predstab.gwet_ac1(x, weights=w),
    "conger_kappa": lambda x, w: predstab.conger_kappa(x, weights=w),
    "cohen_kappa": lambda x, w: predstab.cohen_kappa(x[:, :2], weights=w),
}


def _random_weights(rng, q):
    w = rng.random((q, q))
    kind = int(rng.integers(6))
    if kind < 2:  # a valid agreement matrix
        w = (w + w.T) / 2
    elif kind == 2:
        w = (w + w.T) * 2
    elif kind == 3:
        w = (w + w.T) / 2 - 0.7
    elif kind == 4 and q > 1:
        w = w[:-1]
    np.fill_diagonal(w, 1.0 if kind != 5 else 0.9)
    return w


@pytest.mark.parametrize("name", list(WEIGHTED_TARGETS))
def test_random_weight_matrices_give_a_coefficient_at_most_1_or_an_error_naming_weights(name):
    # issue 23 item 5: weights above 1 gave Fleiss' kappa 7.92; an asymmetric matrix two kappas
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(N_INPUTS // 2):
        x = rng.integers(0, 3, size=(int(rng.integers(3, 8)), 3))
        x[0], x[1] = [0, 1, 2], [2, 2, 0]  # every category used (also in the first two raters): 3 x 3 fits
        w = _random_weights(rng, 3)
        result = check(lambda x=x, w=w: WEIGHTED_TARGETS[name](x, w))
        valid = w.shape == (3, 3) and (w >= 0).all() and (w <= 1).all() and (np.diag(w) == 1).all() \
            and ((w == w.T).all() or name not in ("conger_kappa", "cohen_kappa"))  # issue 35 item 12
        assert (result is not None) == valid, (w, result)
        if result is not None and np.isfinite(result.value):
            assert result.value <= 1 + 1e-12


# ------------------------------------------- what an input means (issue 32: one gate for every input)
# The classes of input the gate decides (predstab._core._gate), generated for every measure of the
# registry: members stacked in rows (np.stack), continuous values given to a measure of categories,
# pandas' nullable dtypes, masked arrays. Each measure warns, or reads the input as the gate says.

from tests._registry import MEASURES  # noqa: E402


def _agreeing_matrix(rng, kind, n_objects, n_replicates):
    """Objects x replicates on which the replicates agree: numbers near each object's own value,
    or (nominal, ordinal) the object's category in about 9 of 10 cells."""
    if kind in ("nominal", "ordinal"):
        x = np.repeat(rng.integers(0, 4, size=(n_objects, 1)), n_replicates, axis=1)
        flips = rng.random(x.shape) < 0.1
        x[flips] = rng.integers(0, 4, size=int(flips.sum()))
        return x
    return rng.normal(loc=5, size=(n_objects, 1)) + 0.2 * rng.normal(size=(n_objects, n_replicates))


def _outcome(call):
    """``(warning categories, error)`` of a call: the error must name a parameter."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
            error = None
        except (ValueError, TypeError) as exc:
            assert _names_a_parameter(str(exc)), exc
            error = exc
    return [w.category for w in caught], error


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_members_stacked_in_rows_warn_in_every_measure(measure):
    rng = np.random.default_rng(sum(map(ord, measure.name)))
    for _ in range(5):
        n_replicates = int(rng.integers(3, 7))
        x = _agreeing_matrix(rng, measure.kind, int(rng.integers(3 * n_replicates, 60)), n_replicates)
        stacked = x.T  # np.stack([m.predict(X) for m in members]): members in rows
        categories, error = _outcome(lambda stacked=stacked: measure.func(stacked))
        assert error is not None or predstab.PredstabOrientationWarning in categories, (measure.name, stacked)
        categories, error = _outcome(lambda x=x: measure.func(x))
        assert predstab.PredstabOrientationWarning not in categories, measure.name


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_stacks_of_more_members_than_objects_warn_in_every_measure(measure):
    # neither side 3 x the other: the shape cannot tell, the two-way layout does (issue 32 item 1).
    # From 6 objects: with 4 objects and at most 7 members the F test has too little to tell at
    # p < 1e-4 (4 of these 195 stacks had 4 objects and passed unseen; documented in _gate)
    rng = np.random.default_rng(sum(map(ord, measure.name)) + 1)
    for _ in range(5):
        n_objects = int(rng.integers(6, 15))
        x = _agreeing_matrix(rng, measure.kind, n_objects, int(rng.integers(n_objects + 1, 3 * n_objects)))
        stacked = x.T  # more members (rows) than objects (columns)
        categories, error = _outcome(lambda stacked=stacked: measure.func(stacked))
        assert error is not None or predstab.PredstabOrientationWarning in categories, (measure.name, stacked)
        categories, error = _outcome(lambda x=x: measure.func(x))
        assert predstab.PredstabOrientationWarning not in categories, measure.name


_NOMINAL = [m for m in MEASURES if m.kind == "nominal" and "selection" not in m.name]


@pytest.mark.parametrize("measure", _NOMINAL, ids=lambda m: m.name)
def test_continuous_values_in_a_measure_of_categories_warn(measure):
    rng = np.random.default_rng(sum(map(ord, measure.name)))
    for _ in range(5):
        x = _agreeing_matrix(rng, "interval", int(rng.integers(30, 80)), int(rng.integers(2, 6)))
        categories, error = _outcome(lambda x=x: measure.func(x))
        warned = any(issubclass(c, PredstabWarning) and not issubclass(c, PredstabUndefinedWarning)
                     for c in categories)
        assert error is not None or warned, (measure.name, x)
    # class labels: no such warning
    labels = _agreeing_matrix(rng, "nominal", 40, 4)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*looks continuous")
        measure.func(labels)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_nullable_frames_and_masked_arrays_read_as_their_numbers(measure):
    rng = np.random.default_rng(sum(map(ord, measure.name)))
    x = _agreeing_matrix(rng, measure.kind, 30, 4)
    if measure.kind not in ("nominal", "ordinal"):
        x = np.round(x, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabWarning)
        want = measure.func(x)
        nullable = pd.DataFrame(x).astype("Int64" if x.dtype.kind == "i" else "Float64")
        np.testing.assert_allclose(measure.func(nullable), want, rtol=1e-12)
        unmasked = np.ma.masked_array(x, mask=np.zeros(x.shape, dtype=bool))
        np.testing.assert_allclose(measure.func(unmasked), want, rtol=1e-12)
        aps = "phi" in measure.name or "psi" in measure.name
        if measure.name.startswith(("selection", "importance")) or (aps and measure.kind == "ordinal"):
            # a ranking needs every value: a missing one is refused (test_bad_input); the registry's
            # ordinal phi / psi take their categories from the values (NaN too): metric and categorical
            # phi / psi read the masked cell below
            return
        masked = np.ma.masked_array(x.astype(float), mask=np.zeros(x.shape, dtype=bool))
        masked.mask[2, 1] = True
        masked.data[2, 1] = 1e9  # never read
        with_missing = x.astype(float)
        with_missing[2, 1] = np.nan
        # the baseline of phi / psi given as it is, not pooled from the masked array by np.asarray
        baseline = {"baseline": x.ravel()} if aps else {}
        np.testing.assert_allclose(measure.func(masked, **baseline), measure.func(with_missing, **baseline),
                                   rtol=1e-12)


_MASKED_SCORES = np.ma.masked_array([0.8, 0.7, 0.9, 0.75, 5.0, 0.85], mask=[0, 0, 0, 0, 1, 0])
_SCORES = np.array([0.82, 0.74, 0.93, 0.8, 0.79, 0.88])
MASKED_COMPARE = {
    "ttest": lambda a, b: cmp.ttest(a, b), "ttest(paired)": lambda a, b: cmp.ttest(a, b, paired=True),
    "wilcoxon": cmp.wilcoxon, "mean_ci": lambda a, b: cmp.mean_ci(a), "iqm": lambda a, b: cmp.iqm(a),
    "mean_permutation_test": lambda a, b: cmp.mean_permutation_test(a, b, n_resamples=99, random_state=0),
    "corrected_resampled_ttest": lambda a, b: cmp.corrected_resampled_ttest(a, b, n_train=90, n_test=10),
    "bootstrap_ci": lambda a, b: cmp.bootstrap_ci(a, n_resamples=99, random_state=0),
    "paired_bootstrap": lambda a, b: cmp.paired_bootstrap(b, a, b, metric=lambda t, p: float(np.mean(t - p)),
                                                          n_resamples=99, random_state=0),
    "probability_of_improvement": lambda a, b: cmp.probability_of_improvement(a, b, n_resamples=99,
                                                                              random_state=0),
    "cv5x2_ttest": lambda a, b: cmp.cv5x2_ttest(np.ma.concatenate([a, a[:4]]), np.r_[b, b[:4]]),
    "friedman_nemenyi": lambda a, b: cmp.friedman_nemenyi(np.ma.column_stack([a, b, b + 0.01])),
    "variance_components": lambda a, b: cmp.variance_components(np.ma.column_stack([a, b])),
    "stratified_bootstrap_ci": lambda a, b: cmp.stratified_bootstrap_ci(np.ma.column_stack([a, b]),
                                                                        n_resamples=99, random_state=0),
}


@pytest.mark.parametrize("name", list(MASKED_COMPARE))
def test_masked_scores_are_refused_by_every_comparison(name):
    # predstab.compare needs complete scores: a masked score is missing, refused as NaN is, never read
    with pytest.raises(ValueError, match=r"masked value|NaN"):
        MASKED_COMPARE[name](_MASKED_SCORES, _SCORES)
    # the same arrays without a masked cell are their numbers
    unmasked = np.ma.masked_array(_MASKED_SCORES.data, mask=False)
    check(lambda: MASKED_COMPARE[name](unmasked, _SCORES))


# measures whose value depends on the order of the categories: each must read an ordered pandas
# Categorical in its own order (issue 32's walk: cohen_kappa, rater_bias and fleiss_levin_paik read
# the labels' sorted order), i.e. give the value of its integer codes
def _two(r):
    return r[:, :2] if isinstance(r, np.ndarray) else r.iloc[:, :2]


ORDERED = {
    "cohen_kappa(linear)": lambda r: predstab.cohen_kappa(_two(r), weights="linear").value,
    "rater_bias": lambda r: predstab.rater_bias(_two(r)).value,
    "fleiss_levin_paik": lambda r: predstab.fleiss_levin_paik(_two(r)).statistic,
    "krippendorff_alpha(ordinal)": lambda r: predstab.krippendorff_alpha(r, scale="ordinal").value,
    "gwet_ac1(linear)": lambda r: predstab.gwet_ac1(r, weights="linear").value,
    "brennan_prediger(quadratic)": lambda r: predstab.brennan_prediger(r, weights="quadratic").value,
    "conger_kappa(ordinal)": lambda r: predstab.conger_kappa(r, weights="ordinal").value,
    "fleiss_kappa(linear)": lambda r: predstab.fleiss_kappa(r, weights="linear").value,
}


@pytest.mark.parametrize("name", list(ORDERED))
def test_ordered_categoricals_are_read_in_their_order(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(8):
        # 3 levels in a random order of their labels (so that sorting the labels would reorder them)
        levels = list(rng.permutation(["low", "mid", "high"]))
        n, k = int(rng.integers(12, 40)), int(rng.integers(2, 5))
        codes = np.clip(rng.integers(0, 3, size=(n, 1)) + rng.integers(-1, 2, size=(n, k)), 0, 2)
        codes[:3, :2] = [[0, 1], [1, 2], [2, 0]]  # every level used, off-diagonal pairs both ways
        frame = pd.DataFrame(np.array(levels, dtype=object)[codes]).astype(
            pd.CategoricalDtype(levels, ordered=True))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PredstabWarning)
            want, got = ORDERED[name](codes), ORDERED[name](frame)
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{name} {levels}")
