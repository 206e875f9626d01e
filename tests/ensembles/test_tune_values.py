"""Values of the tuning's configuration, table and result, each against a computation written here."""

import dataclasses
import math

import numpy as np
import pytest

from predstab import TreePool
from predstab._core._validation import InvalidParameterError
from predstab.ensembles._tune_result import Recommendation, _plain_fields, runtime_model
from tests.ensembles._tuning import EST, XTE, XTR, YTR, _config, _tune

pytestmark = pytest.mark.filterwarnings("ignore::predstab.PredstabDataWarning")


# ------------------------------------------------------------------------- the configuration
@pytest.fixture(scope="module")
def pool():
    """A pool of 24 members' predictions of 30 objects, with out-of-bag rows and observations."""
    rng = np.random.default_rng(5)
    truth = rng.normal(size=(30, 1))
    test = truth + 0.5 * rng.normal(size=(30, 24))
    train = rng.normal(size=(40, 1)) + 0.5 * rng.normal(size=(40, 24))
    oob = rng.random((40, 24)) < 0.4
    return TreePool.from_predictions(test, oob=oob, oob_predictions=train, y=train.mean(axis=1))


def _pool_config(pool, **kwargs):
    return _config(pool, None, None, None, **({"method": "closed_form", "grid": (1, 2, 4)} | kwargs))


def test_a_given_pool_configuration_holds_its_size_and_its_rule(pool):
    config = _pool_config(pool, measures=("icc", "psi"))
    assert config.pool_size == 24 and not config.explicit_pool and config.pool is pool
    assert config.rule == "target"  # members' predictions: no fitted ensemble behind them


@pytest.mark.parametrize(("name", "value"), [("precision", 0.02), ("pool_size", 10)])
def test_a_given_pool_refuses_precision_and_pool_size_naming_the_value(pool, name, value):
    with pytest.raises(ValueError) as err:
        _pool_config(pool, **{name: value})
    assert str(err.value) == (f"`{name}` does not apply to a fitted TreePool (its size is its members'); "
                              f"got {value!r}.")


def test_a_given_pool_smaller_than_psis_fixed_baseline_is_refused(pool):
    with pytest.raises(ValueError) as err:
        _pool_config(pool, measures=("icc", "psi"), grid=(1, 2, 30))
    assert str(err.value) == ("psi's fixed baseline is a forest of max(grid) = 30 members; the pool has 24. "
                              "Use a smaller grid.")


@pytest.mark.parametrize(("name", "value", "text"), [
    ("target", 0.0, "`target` must be a float in (0, 1); got 0.0."),
    ("target", 1.0, "`target` must be a float in (0, 1); got 1.0."),
    ("round_to", "tens", "`round_to` must be one of ['hundred', 'none', 'ten', 'thousand']; got 'tens'."),
])
def test_the_configuration_checks_target_and_round_to_itself(name, value, text):
    # tune_num_learners' declared constraints check these first; the configuration checks them
    # again for calls that skip the declared checks (an engine calling with skip_nested_validation)
    with pytest.raises(ValueError) as err:
        _config(EST, XTR, YTR, XTE, **{name: value})
    assert str(err.value) == text


def test_a_single_test_row_is_named_x_test_for_the_selection():
    with pytest.raises(InvalidParameterError) as err:
        _config(EST, XTR, YTR, XTE[:1], measures=("icc", "selection"))
    assert str(err.value) == ("`X_test` must have at least 2 rows for the 'selection' measure (it selects "
                              "some but not all objects); got 1. Pass more rows or leave 'selection' out "
                              "of `measures`.")
    with pytest.raises(InvalidParameterError, match=r"^`X` must have at least 2 rows .* got 1\."):
        _config(EST, XTR[:1], YTR[:1], None, measures=("icc", "selection"))


# ------------------------------------------------------------------------- the result
def test_runtime_model_reads_missing_seconds_as_unknown():
    # None (a time not measured) is NaN as a float: no run-time model
    intercept, slope = runtime_model([2, 4, 8], [None, None, None])
    assert math.isnan(intercept) and math.isnan(slope)
    assert runtime_model([2, 4, 8], [1, 2, 4]) == pytest.approx((0.0, 0.5), abs=1e-12)


def test_explain_without_an_unrounded_value_says_nan():
    rec = Recommendation(measure="icc", value=500, unrounded=None, rule="optRF", rec_thresh=1e-6,
                         round_to="thousand", minimum=500, n_for_target=None, target=0.95, grid_max=8,
                         beyond_grid=False, expected_stability=float("nan"))
    assert rec.explain() == ("icc: 500 learners by optRF 1.2.1's rule (fitted gain per added learner below "
                             "1e-06 from nan learners; rounded to the nearest thousand, at least 500)")


@dataclasses.dataclass
class _Pair:
    first: object
    second: object


def test_plain_fields_turns_dataclasses_into_dicts_recursively():
    assert _plain_fields({"x": _Pair(1, _Pair(2, {"y": _Pair(3, 4)}))}) == {
        "x": {"first": 1, "second": {"first": 2, "second": {"y": {"first": 3, "second": 4}}}}}
    assert _plain_fields(_Pair) is _Pair  # a class stays a class


@pytest.fixture(scope="module")
def interval_result():
    """A pool result of the tiny data with a bootstrap interval of its recommendation."""
    res = _tune(method="pool", pool_size=24, measures=("icc",), n_resamples=10)
    assert res.recommendation is not None and np.isfinite(res.confidence_interval.low)
    return res


def test_a_result_without_timings_in_its_table_equals_its_copy(interval_result):
    untimed = dataclasses.replace(interval_result, table=interval_result.table.drop(columns="seconds"))
    assert untimed == dataclasses.replace(untimed)
    assert untimed == interval_result  # the seconds are left out of == either way


def test_printed_degenerate_points_and_distrusted_interval(interval_result):
    table = interval_result.table.copy()
    table["degenerate"] = ["icc", "", ""]
    message = "The 2PL fit of icc is poor."
    res = dataclasses.replace(interval_result, table=table, message=message)
    lines = str(res).splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["n_learners", "icc", "degenerate"])
    rows = [line.split() for line in lines[header + 1:header + 4]]
    assert [(r[0], r[-1]) for r in rows] == [("2", "icc"), ("4", "-"), ("8", "-")]
    at = next(i for i, line in enumerate(lines) if line.startswith("  95% bootstrap interval:"))
    assert lines[at + 1:at + 3] == [
        "  The interval assumes a 2PL that fits the curve (R^2 >= 0.9) and a curve that flattens within the "
        "grid; as said below, that fails here: do not trust it.",
        f"  {message}"]
