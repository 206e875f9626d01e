"""One categorical matrix in every encoding predstab reads gives one phi (value-pinning checks
written for surviving mutants of stability/_scales.py).

The data: two objects x five refits, votes (T, F, T, T, T) and (F, F, F, T, F); the baseline
(T, F, F, T). Each object disagrees in 2 * 4 * 1 of 5 * 4 ordered pairs (0.4), the baseline's
expected disagreement is 1 - (0.5^2 + 0.5^2) = 0.5, so phi = 1 - 0.4 / 0.5 = 0.2.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import predstab

VOTES = np.array([[True, False, True, True, True], [False, False, False, True, False]])
BASE = np.array([True, False, False, True])


def _phi(pred, base, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", predstab.PredstabDataWarning)
        return predstab.phi(pred, base, **kw)


@pytest.mark.parametrize("encode, categories", [
    (lambda a: a, (False, True)),
    (lambda a: a.astype(np.uint64) + 1, (1, 2)),
    (lambda a: a.astype(np.int8) + 1, (1, 2)),
    (lambda a: np.where(a, "b", "a").astype(object), ("a", "b")),
    (lambda a: np.where(a, "b", "a"), ("a", "b")),
])
def test_every_encoding_gives_the_same_phi_and_python_categories(encode, categories):
    res = _phi(encode(VOTES), encode(BASE), scale="categorical")
    assert res.value == pytest.approx(0.2, abs=1e-12)
    np.testing.assert_allclose(res.per_object, [0.2, 0.2], atol=1e-12)
    assert res.categories == categories
    assert [type(c) for c in res.categories] == [type(c) for c in categories]


def test_categorical_columns_with_their_categories_in_other_orders_are_read_by_value():
    # rows are objects: (x, x, x) agrees, (y, y, x) and (x, y, x) disagree in 4 of 6 ordered pairs
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y", "x"], categories=["x", "y"]),
                          "b": pd.Categorical(["x", "y", "y"], categories=["y", "x"]),
                          "c": pd.Categorical(["x", "x", "x"], categories=["x", "y"])})
    base = pd.Series(pd.Categorical(["x", "y", "y", "x"], categories=["x", "y"]))
    res = _phi(frame, base)
    np.testing.assert_allclose(res.per_object, [1.0, 1 - (4 / 6) / 0.5, 1 - (4 / 6) / 0.5], atol=1e-12)
    assert res.value == pytest.approx(1 - (8 / 18) / 0.5, abs=1e-12)
    assert res.categories == ("x", "y")


def test_nullable_integer_predictions_with_a_missing_cell_drop_it():
    pred = pd.DataFrame(VOTES.astype(int) + 1).astype("Int64")
    pred.iloc[0, 4] = pd.NA  # object 0 keeps (2, 1, 2, 2): 2 * 3 * 1 of 4 * 3 pairs disagree
    res = _phi(pred, BASE.astype(int) + 1, scale="categorical")
    np.testing.assert_allclose(res.per_object, [1 - 0.5 / 0.5, 0.2], atol=1e-12)
