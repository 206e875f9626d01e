"""Registry-driven checks that every measure keeps the same promises (scikit-learn's test_common.py).

For every measure in ``tests/_registry.py``: permuting objects or replicates changes
nothing; relabelling nominal categories (or a monotone / affine / scale change, where the
level of measurement allows it) changes nothing; identical replicates give the
documented maximum; values stay in the documented range; the degenerate-data convention
of ``predstab._core._convention`` holds, and the value comes out of that one shared function.
"""

import warnings

import numpy as np
import pytest

import predstab
from predstab._core import _convention
from predstab._core._exceptions import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
)
from predstab.agreement import _common
from predstab.stability import _stability
from tests._registry import MEASURES, RELABEL, lower_bound, sample, transform

IDS = [m.name for m in MEASURES]
# permutations only reorder sums: agreement to rounding (relative 1e-10) is all that can be asked
RTOL, ATOL = 1e-10, 1e-12


def _call(measure, x, **kw):
    """The measure's value; predstab's data warnings (few replicates) are expected, any other is not."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", PredstabDataWarning)
        return measure.func(x, **kw)


def _cases(measure, n_cases=4, seed=0):
    rng = np.random.default_rng(seed)
    for n, k in [(12, 5), (7, 2), (30, 3), (5, 9)][:n_cases]:
        yield rng, sample(measure.kind, rng, n, k)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_permuting_objects_changes_nothing(measure):
    for rng, x in _cases(measure):
        expected = _call(measure, x)
        assert np.isfinite(expected)
        got = _call(measure, x[rng.permutation(x.shape[0])])
        np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_permuting_replicates_changes_nothing(measure):
    for rng, x in _cases(measure):
        expected = _call(measure, x)
        got = _call(measure, x[:, rng.permutation(x.shape[1])])
        np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_invariant_under_the_transformations_its_level_allows(measure):
    for rng, x in _cases(measure):
        expected = _call(measure, x)
        for kind in measure.invariances:
            new, mapping = transform(kind, x, rng)
            target = None if mapping is None else mapping.get(0)
            got = _call(measure, new, target=target)
            # an affine map rescales sums of squares by a^2 with a in [0.1, 10]: 1e-9 relative
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, err_msg=kind)


@pytest.mark.parametrize("measure", [m for m in MEASURES if RELABEL in m.invariances],
                         ids=[m.name for m in MEASURES if RELABEL in m.invariances])
def test_relabelling_to_other_numbers_changes_nothing(measure):
    """Category codes are names: 0/1/2 and 7/-3/100 must give the same nominal statistic."""
    for rng, x in _cases(measure):
        expected = _call(measure, x)
        codes = rng.choice(np.array([7, -3, 100, 55]), size=4, replace=False)
        got = _call(measure, codes[x], target=int(codes[0]))
        np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_identical_replicates_give_the_documented_maximum(measure):
    rng = np.random.default_rng(1)
    for n, k in [(10, 2), (8, 6)]:
        column = sample(measure.kind, rng, n, 1)
        if measure.ties_matter:
            column = rng.permutation(n).reshape(-1, 1) * 1.5
        x = np.repeat(column, k, axis=1)
        value = _call(measure, x)
        expected = 1.0 if np.isinf(measure.high) else measure.high
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_values_stay_in_the_documented_range(measure):
    rng = np.random.default_rng(2)
    for _ in range(25):
        n, k = int(rng.integers(4, 15)), int(rng.integers(2, 7))
        x = sample(measure.kind, rng, n, k, n_categories=int(rng.integers(2, 5)))
        value = _call(measure, x)
        assert lower_bound(measure, k) - 1e-12 <= value <= measure.high + 1e-12, (value, x)


# ---------------------------------------------------------------------- degenerate-data convention


@pytest.mark.parametrize("measure", [m for m in MEASURES if m.collapsed is not None],
                         ids=[m.name for m in MEASURES if m.collapsed is not None])
def test_all_values_equal_gives_one_with_a_degenerate_warning(measure):
    x, baseline = measure.collapsed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = measure.func(x, baseline=baseline)
    assert value == 1.0
    degenerate = [w for w in caught if issubclass(w.category, PredstabDegenerateWarning)]
    assert degenerate, [str(w.message) for w in caught]
    assert not [w for w in caught if issubclass(w.category, PredstabUndefinedWarning)]
    # the message is the one of the shared convention, not a local variant
    assert all(str(w.message).startswith("Both expected and observed") for w in degenerate)


@pytest.mark.parametrize("measure", [m for m in MEASURES if m.undefined is not None],
                         ids=[m.name for m in MEASURES if m.undefined is not None])
def test_no_expected_but_some_observed_disagreement_gives_nan_with_a_warning(measure):
    x, baseline = measure.undefined
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = measure.func(x, baseline=baseline)
    assert np.isnan(value)
    undefined = [w for w in caught if issubclass(w.category, PredstabUndefinedWarning)]
    assert undefined, [str(w.message) for w in caught]
    assert all(str(w.message).startswith("Expected ") for w in undefined)
    assert not [w for w in caught if issubclass(w.category, PredstabDegenerateWarning)]


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_every_degenerate_case_is_tested_or_explained(measure):
    """A measure without a collapsed or undefined case says why that case cannot occur."""
    if measure.collapsed is None or measure.undefined is None:
        assert measure.why_not


# every agreement module reaches the convention through predstab.agreement._common.convention_ratio
_MODULES = (_common, _stability)


@pytest.fixture
def spy(monkeypatch):
    """Replace the shared convention in every module that imports it; record what it returns."""
    calls = []

    def recording(d_o, d_e, **kw):
        value = _convention.one_minus_ratio(d_o, d_e, **kw)
        calls.append((d_o, d_e, value))
        return value

    for module in _MODULES:
        assert module.one_minus_ratio is _convention.one_minus_ratio
        monkeypatch.setattr(module, "one_minus_ratio", recording)
    return calls


def test_the_registry_covers_every_module_that_uses_the_convention():
    import pkgutil

    users = set()
    for info in pkgutil.walk_packages(predstab.__path__, prefix="predstab."):
        if info.ispkg or info.name.rsplit(".", 1)[1].startswith("__") or info.name.endswith("._convention"):
            continue
        module = __import__(info.name, fromlist=["_"])
        if getattr(module, "one_minus_ratio", None) is _convention.one_minus_ratio:
            users.add(module)
    assert users == set(_MODULES)


@pytest.mark.parametrize("measure", MEASURES, ids=IDS)
def test_the_value_comes_from_the_shared_convention(measure, spy):
    rng = np.random.default_rng(3)
    cases = [sample(measure.kind, rng, 9, 4)]
    cases += [c[0] for c in (measure.collapsed, measure.undefined) if c is not None]
    for x in cases:
        spy.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = measure.func(x)
        assert spy, "the measure did not call predstab._core._convention.one_minus_ratio"
        assert any(v == value or (np.isnan(v) and np.isnan(value)) for _, _, v in spy), (value, spy)


# ------------------------------------------------- where the peers differ on degenerate data


def _long(x):
    import pandas as pd

    return pd.DataFrame([(i, j, x[i, j]) for i in range(x.shape[0]) for j in range(x.shape[1])],
                        columns=["target", "rater", "score"])


def test_peers_return_nan_or_raise_where_the_convention_gives_one():
    """A constant matrix: predstab says 1 (with a warning); pingouin NaN, krippendorff raises,
    statsmodels NaN. Identical replicates of differing objects: everyone says 1."""
    constant = np.full((5, 3), 4.0)
    with pytest.warns(PredstabDegenerateWarning):
        assert predstab.icc(constant).value == 1.0
    with pytest.warns(PredstabDegenerateWarning):
        assert predstab.krippendorff_alpha(constant, scale="interval").value == 1.0
    with pytest.warns(PredstabDegenerateWarning):
        assert predstab.fleiss_kappa(constant).value == 1.0

    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(inter_rater.fleiss_kappa(inter_rater.aggregate_raters(constant)[0]))
    pingouin = pytest.importorskip("pingouin")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert pingouin.intraclass_corr(_long(constant), "target", "rater", "score")["ICC"].isna().all()
    krippendorff = pytest.importorskip("krippendorff")
    with pytest.raises(ValueError, match="more than one value"):
        krippendorff.alpha(reliability_data=constant.T, level_of_measurement="interval")

    identical = np.repeat(np.arange(5.0)[:, None], 3, axis=1)
    assert predstab.icc(identical).value == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = pingouin.intraclass_corr(_long(identical), "target", "rater", "score")["ICC"]
    np.testing.assert_allclose(peer, 1.0, rtol=1e-12)
    assert krippendorff.alpha(reliability_data=identical.T, level_of_measurement="interval") == 1.0


_DEGENERATE = [m for m in MEASURES if m.collapsed is not None or m.undefined is not None]


@pytest.mark.parametrize("measure", _DEGENERATE, ids=[m.name for m in _DEGENERATE])
def test_convention_warnings_point_at_the_callers_line(measure):
    """warn_outside: the warning names the user's file, not a predstab module."""
    for case in (measure.collapsed, measure.undefined):
        if case is None:
            continue
        x, baseline = case
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            measure.func(x, baseline=baseline)
        convention = (PredstabDegenerateWarning, PredstabUndefinedWarning)
        ours = [w for w in caught if issubclass(w.category, convention)]
        assert ours
        # the registry's lambdas (tests/_registry.py) are the callers here
        assert all(w.filename.endswith("_registry.py") for w in ours), [(w.filename, w.lineno) for w in ours]
