"""Long-format ratings (object, rater, value) to an (objects x raters) matrix.

The recipe of docs/incomplete-designs.md is ``DataFrame.pivot``; these tests show what pandas
does on its own (duplicates refused by ``pivot`` but averaged by ``pivot_table``; missing ratings
kept) and what :func:`predstab.ratings_from_long` adds.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from predstab import icc_reml, ratings_from_long
from validation._table import REFERENCE

CASE = REFERENCE / "lmer" / "cases" / "l_24x6_blocks.csv"


def _long_from(matrix: pd.DataFrame) -> pd.DataFrame:
    """The long form of a matrix, written independently of pivot: one row per observed cell."""
    rows = [(f"o{i:02d}", rater, matrix.iloc[i][rater]) for i in range(len(matrix))
            for rater in matrix.columns if not np.isnan(matrix.iloc[i][rater])]
    return pd.DataFrame(rows, columns=["object", "rater", "value"]).sample(frac=1.0, random_state=0)


def test_the_pivot_recipe_rebuilds_the_matrix_with_its_missing_ratings():
    matrix = pd.read_csv(CASE)  # 24 objects x 6 raters, each object rated by 3
    long = _long_from(matrix)
    assert len(long) == 72
    wide = long.pivot(index="object", columns="rater", values="value")
    assert wide.shape == (24, 6) and int(wide.isna().sum().sum()) == 72
    np.testing.assert_array_equal(wide.to_numpy(), matrix.to_numpy())  # same cells, missing kept
    pd.testing.assert_frame_equal(ratings_from_long(long), wide)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(icc_reml(wide).value, icc_reml(matrix).value)


def test_pandas_pivot_refuses_duplicates_but_pivot_table_averages_them_silently():
    long = pd.DataFrame({"object": [1, 1, 1, 2, 2], "rater": ["a", "b", "b", "a", "b"],
                         "value": [1.0, 2.0, 4.0, 3.0, 5.0]})
    with pytest.raises(ValueError, match="duplicate entries"):
        long.pivot(index="object", columns="rater", values="value")
    averaged = long.pivot_table(index="object", columns="rater", values="value")
    assert averaged.loc[1, "b"] == 3.0  # (2 + 4) / 2, without a word
    with pytest.raises(ValueError, match=r"rates 1 \(object, rater\) pair\(s\) more than once \(2 rows\), "
                                         r"e.g. \(1, 'b'\)"):
        ratings_from_long(long)


def test_missing_values_and_raters_who_rated_nothing_are_kept():
    long = pd.DataFrame({"object": ["x", "x", "y", "y", "z"], "rater": ["r1", "r2", "r1", "r3", "r1"],
                         "value": [1.0, np.nan, 2.0, np.nan, 3.0]})
    wide = ratings_from_long(long)
    assert wide.columns.tolist() == ["r1", "r2", "r3"]  # r3 only rated missing values: still a column
    assert wide.loc["x", "r1"] == 1.0 and np.isnan(wide.loc["x", "r2"]) and np.isnan(wide.loc["z", "r3"])
    assert int(wide.notna().sum().sum()) == 3 and wide.shape == (3, 3)


def test_ratings_without_an_object_or_a_rater_are_refused():
    long = pd.DataFrame({"object": [1, None, 2], "rater": ["a", "a", "b"], "value": [1.0, 2.0, 3.0]})
    # pandas would make a NaN row of it; predstab names the row
    with pytest.raises(ValueError, match=r"1 row\(s\) without an object or a rater \(first at index 1\)"):
        ratings_from_long(long)


def test_other_column_names_and_bad_names():
    long = pd.DataFrame({"item": [1, 2, 1, 2], "judge": ["a", "a", "b", "b"], "score": [1.0, 2.0, 2.0, 1.0]})
    wide = ratings_from_long(long, object="item", rater="judge", value="score")
    assert wide.to_numpy().tolist() == [[1.0, 2.0], [2.0, 1.0]]
    with pytest.raises(ValueError, match=r"`value` must name a column of `data`; got 'value'"):
        ratings_from_long(long, object="item", rater="judge")
    with pytest.raises(ValueError, match="three different columns"):
        ratings_from_long(long, object="item", rater="item", value="score")
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame"):
        ratings_from_long(long.to_numpy())
