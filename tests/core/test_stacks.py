"""Stacks of rating matrices (..., n_objects, n_raters): equal to a loop over the items (issue 26.1).

Every agreement coefficient takes a stack, as numpy.linalg does, and returns its result class
with arrays of shape (...). The reference here is the independent loop over the items with
the 2-D function, compared to 1e-12, on random stacks with missing cells and degenerate items.
"""

import dataclasses
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    cronbach_alpha,
    fleiss_kappa,
    gwet_ac1,
    icc,
    icc_table,
    kendall_w,
    krippendorff_alpha,
    light_kappa,
    percent_agreement,
)
from predstab._core._results import _equal
from predstab._core._utils import ConfidenceInterval

TOL = 1e-12


def _loop(func, stack, **kwargs):
    flat = stack.reshape((-1,) + stack.shape[-2:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [func(item, **kwargs) for item in flat]


def _stacked(func, stack, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(stack, **kwargs)


def assert_equal_to_loop(func, stack, **kwargs):
    """Every field of the stacked result equals the field of each item's 2-D result.

    Number fields are arrays of shape (...), except the options of the call (kept as given).
    """
    res = _stacked(func, stack, **kwargs)
    items = _loop(func, stack, **kwargs)
    shape = stack.shape[:-2]
    options = {n for n, p in inspect.signature(func).parameters.items() if p.kind is p.KEYWORD_ONLY}
    assert type(res) is type(items[0])
    assert res.stack_shape == shape
    for f in dataclasses.fields(res):
        got = getattr(res, f.name)
        want = [getattr(r, f.name) for r in items]
        if isinstance(want[0], ConfidenceInterval):
            pairs = [(got.low, [w.low for w in want]), (got.high, [w.high for w in want])]
        else:
            pairs = [(got, want)]
        for got_field, want_field in pairs:
            if f.name in options and all(_equal(w, want_field[0]) for w in want_field):
                assert all(_equal(got_field, w) for w in want_field), f.name
            elif isinstance(want_field[0], (int, float, np.integer, np.floating)) and not isinstance(
                    want_field[0], (bool, np.bool_)):
                assert got_field.shape == shape, f.name
                np.testing.assert_allclose(got_field.ravel(), np.array(want_field, dtype=float),
                                           rtol=TOL, atol=TOL, err_msg=f.name)
            else:
                for i, w in enumerate(want_field):
                    idx = np.unravel_index(i, shape)
                    if isinstance(got_field, np.ndarray) and (
                            got_field.dtype == object and got_field.shape == shape
                            or isinstance(w, np.ndarray) and got_field.shape == shape + w.shape):
                        g = got_field[idx]
                    else:
                        g = got_field  # one value shared by every item
                    if isinstance(w, np.ndarray) and w.dtype.kind == "f":
                        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f.name)
                    else:
                        assert _equal(g, w), (f.name, i, g, w)
    return res


def _numeric_stack(seed, shape=(40,), n=12, k=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape + (n, k)) + 2 * rng.normal(size=shape + (n, 1))
    flat = x.reshape((-1, n, k))
    flat[1] = 3.0  # constant item: ICC 1 with a degenerate warning
    flat[2] = flat[2][:, :1]  # raters identical, objects differ: ICC 1, F infinite
    flat[3, 4, 1] = np.nan  # missing cells: listwise per item
    flat[4, :2, 0] = np.nan
    flat[5] *= 1e200  # extreme magnitude: rescaled per item
    flat[6] = np.round(flat[6])  # ties
    flat[7, :, 1] = flat[7, :, 0] + 1.0  # a rater shifted: consistency 1, agreement < 1
    flat[8] = np.arange(k)[None, :] + np.zeros((n, 1))  # equal row means, raters differ: ICC NaN / < 0
    if len(flat) > 10:
        flat[9] = 0.0  # all zeros: constant, in the vectorised path
        flat[10] *= 1e-200  # tiny magnitude: rescaled, item by item
    return x


@pytest.mark.parametrize("options", [
    dict(),
    dict(unit="average"),
    dict(model="twoway"),
    dict(model="twoway", unit="average", r0=0.3),
    dict(model="twoway", type="agreement"),
    dict(model="twoway", type="agreement", unit="average", confidence_level=0.9),
    dict(model="oneway", r0=0.5),
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_icc_stack_equals_loop(options):
    res = assert_equal_to_loop(icc, _numeric_stack(0), **options)
    assert res.value[1] == 1.0 and res.value[2] == 1.0 and res.statistic[2] == np.inf
    assert res.n_objects[3] == 11 and res.n_objects[4] == 10


def test_icc_stack_of_several_axes():
    x = _numeric_stack(1, shape=(3, 5, 2), n=7, k=4)
    res = assert_equal_to_loop(icc, x, model="twoway", type="agreement")
    assert res.value.shape == (3, 5, 2)
    single = icc(x[2, 3, 1], model="twoway", type="agreement")
    assert abs(res.value[2, 3, 1] - single.value) <= TOL


def test_icc_stack_integer_and_masked_input():
    rng = np.random.default_rng(2)
    x = rng.integers(1, 6, size=(10, 8, 3))
    assert_equal_to_loop(icc, x)
    masked = np.ma.masked_array(x.astype(float), mask=rng.random(x.shape) < 0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = icc(masked)
        want = [icc(masked[i]).value for i in range(10)]
    np.testing.assert_allclose(res.value, want, rtol=TOL, atol=TOL)


def test_icc_stack_warns_once_per_kind_with_item_count():
    x = np.random.default_rng(3).normal(size=(10, 6, 3))
    x[[2, 7]] = 1.0
    x[4, 0, 0] = np.nan
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        icc(x)
    assert [(w.category, str(w.message)[:41]) for w in record] == [
        (PredstabDegenerateWarning, "2 of 10 items: Both expected and observed"),
        (PredstabDataWarning, "1 of 10 items: 1 of 6 objects have a miss")]
    assert all(w.filename == __file__ for w in record)  # they point at the caller's line
    # equal row means with differing raters: d_e = 0 < d_o, undefined
    y = np.tile(np.arange(3.0), (5, 4, 1))
    with pytest.warns(PredstabUndefinedWarning, match=r"^5 of 5 items: Expected variance is zero"):
        assert np.isnan(icc(y, unit="average").value).all()


def test_icc_stack_error_names_the_item():
    x = np.random.default_rng(4).normal(size=(2, 3, 4, 2))
    x[1, 2, :, 0] = np.nan
    with pytest.raises(ValueError, match=r"item \(1, 2\) of `ratings`: `ratings` has a missing value in"):
        icc(x)
    with pytest.raises(ValueError, match="at least one item"):
        icc(np.zeros((0, 4, 3)))
    for func in (icc, fleiss_kappa, krippendorff_alpha, cohen_kappa):  # empty items: the 2-D message
        with pytest.raises(ValueError, match=r"item \(0,\) of `ratings`: `ratings` must not be empty"):
            func(np.zeros((3, 0, 2)))


def test_icc_stack_print_and_frame():
    x = _numeric_stack(5, shape=(20,))
    res = _stacked(icc, x)
    value = res.value
    text = str(res)
    assert text.splitlines()[0] == " ICCResult, ICC(1): 20 items, stack shape (20,)"
    finite = value[~np.isnan(value)]
    assert (f"value = min {predstab._core._results.r_signif(finite.min())} / median "
            f"{predstab._core._results.r_signif(np.median(finite))} / max 1") in text
    frame = res.to_frame()
    assert frame.shape[0] == 20 and frame.index.name == "item"
    np.testing.assert_array_equal(frame["value"].to_numpy(), value)
    np.testing.assert_array_equal(frame["ci_low"].to_numpy(), res.confidence_interval.low)
    assert len(repr(res)) < 300
    # a 2-D call prints as before (irr's layout), no summary
    assert str(icc(x[0])).startswith(" Single Score Intraclass Correlation")


def test_icc_table_stack_equals_loop():
    x = _numeric_stack(6, shape=(10,))
    table = _stacked(icc_table, x)
    loop = _loop(icc_table, x)
    assert table.index.nlevels == 2
    for i, want in enumerate(loop):
        pd.testing.assert_frame_equal(table.loc[i], want, rtol=TOL, atol=TOL)


def _categorical_stack(seed, shape=(25,), n=10, k=4, n_categories=3, missing=True):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_categories, size=shape + (n, 1))
    x = np.where(rng.random(shape + (n, k)) < 0.7, truth, rng.integers(0, n_categories, size=shape + (n, k)))
    x = x.astype(float)
    flat = x.reshape((-1, n, k))
    flat[1] = 1.0  # one category everywhere: the degenerate convention
    flat[2] = flat[2][:, :1]  # raters agree perfectly
    if missing:
        flat[3, 2, 1] = np.nan
        flat[4, 0, :2] = np.nan
        flat[5, 3:, 3] = np.nan
    return x


@pytest.mark.parametrize("options", [dict(), dict(exact=True), dict(detail=True)])
def test_fleiss_kappa_stack_equals_loop(options):
    assert_equal_to_loop(fleiss_kappa, _categorical_stack(7, missing=False), **options)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_stack_equals_loop(level):
    x = _categorical_stack(8)
    if level == "ratio":
        x = x + 1.0
    assert_equal_to_loop(krippendorff_alpha, x, scale=level)


@pytest.mark.parametrize("func", [percent_agreement, gwet_ac1, brennan_prediger, conger_kappa, fleiss_kappa,
                                  krippendorff_alpha])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_cac_stack_equals_loop(func, weights):
    assert_equal_to_loop(func, _categorical_stack(9, shape=(12,)), weights=weights)


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_cohen_kappa_stack_equals_loop(weights):
    x = _categorical_stack(10, shape=(4, 5), k=2, missing=False)
    assert_equal_to_loop(cohen_kappa, x, weights=weights)


def test_light_kappa_stack_equals_loop():
    assert_equal_to_loop(light_kappa, _categorical_stack(11, shape=(15,), missing=False))


@pytest.mark.parametrize("detail", [True, False])
def test_cronbach_alpha_stack_equals_loop(detail):
    x = _numeric_stack(12, shape=(15,), n=15, k=4)
    x.reshape((-1, 15, 4))[5] /= 1e200  # the extreme item back in the ordinary range
    assert_equal_to_loop(cronbach_alpha, x, detail=detail)


@pytest.mark.parametrize("correct", [False, True])
def test_kendall_w_stack_equals_loop(correct):
    x = _numeric_stack(13, shape=(15,), n=9, k=4)
    assert_equal_to_loop(kendall_w, np.round(x.reshape((-1, 9, 4))[[0, 1, 2, 6, 7, 8, 9, 10]], 1),
                         correction=correct)


def test_stack_of_lists_and_two_dimensional_input_unchanged():
    x = _categorical_stack(14, shape=(3,), missing=False)
    assert _equal(fleiss_kappa(x.tolist()).value, fleiss_kappa(x).value)
    # 2-D calls return scalars, as before
    res = fleiss_kappa(x[0])
    assert isinstance(res.value, float) and res.stack_shape is None


@pytest.mark.parametrize("exact", [False, True])
def test_fleiss_kappa_vectorised_blocks_equal_loop(monkeypatch, exact):
    # integer codes 3..7 counted by blocks of 7 items (the block size made small), items using
    # different subsets of the categories, a one-category item (kappa 1), non-integer labels
    import predstab._core._stack as stack_module

    monkeypatch.setattr(stack_module, "_BLOCK_CELLS", 7 * 8 * 5)
    x = 3 + _categorical_stack(15, shape=(5, 6), n=8, k=3, n_categories=5, missing=False).astype(np.int16)
    x[0, 0] = 4
    res = assert_equal_to_loop(fleiss_kappa, x, exact=exact)
    assert res.value[0, 0] == 1.0 and isinstance(res.categories, np.ndarray)
    assert res.categories[0, 0] == (4,)
    assert_equal_to_loop(fleiss_kappa, x / 2, exact=exact)  # labels 1.5, 2, ...: the loop


def test_vectorised_cores_handle_complete_items():
    # the vectorised paths really run (a core returning None would fall back to the loop, which
    # the tests above could not tell apart): their values against the 2-D functions
    from predstab.agreement._fleiss import _fleiss_core
    from predstab.agreement._krippendorff import _krippendorff_core

    x = _categorical_stack(16, shape=(30,), missing=False)
    for core, func, kwargs in [(lambda items: _fleiss_core(False, items), fleiss_kappa, {}),
                               (lambda items: _fleiss_core(True, items), fleiss_kappa, {"exact": True}),
                               (lambda items: _krippendorff_core("nominal", items), krippendorff_alpha, {}),
                               (lambda items: _krippendorff_core("interval", items), krippendorff_alpha,
                                {"scale": "interval"})]:
        fields, caught = core(x)
        want = _loop(func, x, **kwargs)
        np.testing.assert_allclose(fields["value"], [w.value for w in want], rtol=TOL, atol=TOL)
        np.testing.assert_allclose(fields["expected"], [w.expected for w in want], rtol=TOL, atol=TOL)
        assert caught.kinds[PredstabDegenerateWarning][0] == 1  # item 1: one category everywhere


@pytest.mark.parametrize("q", [3, 62, 64])
def test_used_categories_of_many_codes(q):
    # the categories of each item, from the patterns of used codes (as bits up to 62 codes)
    from predstab._core._stack import used_categories

    used = np.random.default_rng(q).random((200, q)) < 0.5
    used[:, 0] = True
    got = used_categories(used, 2, np.dtype(np.int64), (20, 10))
    assert got.shape == (20, 10)
    assert list(got.ravel()) == [tuple((2 + np.flatnonzero(u)).tolist()) for u in used]


@pytest.mark.parametrize("func", [icc, fleiss_kappa, krippendorff_alpha, gwet_ac1, cronbach_alpha, icc_table])
@pytest.mark.parametrize("dask", [False, True], ids=["numpy", "dask"])
def test_stack_warnings_point_at_the_caller(func, dask):
    # one warning per kind, "k of n items: ...", at the line of the call (vectorised, loop, Dask)
    x = np.random.default_rng(17).integers(0, 3, size=(6, 8, 3)).astype(float)
    x[[1, 4]] = 2.0  # two constant items: the degenerate convention
    if dask:
        da = pytest.importorskip("dask.array")
        x = da.from_array(x, chunks=(2, 8, 3))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        func(x)
    convention = (PredstabDegenerateWarning, PredstabUndefinedWarning)
    mine = [w for w in record if issubclass(w.category, convention)]
    assert len({w.category for w in mine}) == len(mine) >= 1
    assert all(str(w.message).startswith("2 of 6 items: ") for w in mine), [str(w.message) for w in mine]
    assert all(w.filename == __file__ for w in mine), [(w.filename, w.lineno) for w in mine]


# --------------------------------------------------------------------------- phi / psi
def _against(func, baseline):
    """``func`` with its baseline fixed, with the keyword-only options of phi / psi (so that
    assert_equal_to_loop knows which fields echo the call's options)."""
    def measure(predictions, /, *, scale=None, categories=None, confidence_level=0.95,
                object_interval="auto", interval_target="population", baseline_error=False):
        return func(predictions, baseline, scale=scale, categories=categories,
                    confidence_level=confidence_level, object_interval=object_interval,
                    interval_target=interval_target, baseline_error=baseline_error)
    return measure


@pytest.mark.parametrize("func", [predstab.phi, predstab.psi], ids=["phi", "psi"])
@pytest.mark.parametrize("options", [dict(), dict(object_interval="chi2", interval_target="objects"),
                                     dict(baseline_error=True, confidence_level=0.9)],
                         ids=["default", "chi2-objects", "baseline-error"])
def test_phi_psi_metric_stack_equals_loop(func, options):
    rng = np.random.default_rng(5)
    stack = rng.normal(size=(3, 4, 8, 6)) + rng.normal(size=(3, 4, 8, 1))
    flat = stack.reshape((-1, 8, 6))
    flat[1] = flat[1][:, :1]  # every refit agrees: D_o = 0, stability 1
    flat[2, 3, :4] = np.nan  # an object left with two refits, and a missing cell
    flat[2, 5, 0] = np.nan
    flat[3] *= 1e200  # extreme magnitude against an ordinary baseline: the item's own rescaling
    res = assert_equal_to_loop(_against(func, rng.normal(size=40)), stack, **options)
    assert res.value.shape == (3, 4) and res.value.ravel()[1] == 1.0


@pytest.mark.parametrize("scale", ["categorical", "ordinal"])
def test_phi_class_stack_equals_loop(scale):
    stack = _categorical_stack(7, shape=(2, 5), n=9, k=6, missing=False).astype(int)
    y = np.random.default_rng(8).integers(0, 3, size=60)
    levels = [0, 1, 2] if scale == "ordinal" else None
    assert_equal_to_loop(_against(predstab.phi, y), stack, scale=scale, categories=levels)


def test_phi_stack_against_a_stack_of_baselines_is_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="one shared `training_observations`.*shape \\(2, 3, 5\\)"):
        predstab.phi(rng.normal(size=(2, 4, 5)), rng.normal(size=(2, 3, 5)))
