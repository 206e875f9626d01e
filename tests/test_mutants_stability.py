"""Checks of ``StabilityResult.per_object_frame`` written to kill mutmut's surviving mutants.

(A mutation run of ``_stability.py`` was under way when this file was written; see
docs/mutation.md.) The frame's layout is pinned: its column and index names, the row labels
of a DataFrame input, and the order -- least stable first, ties in input order (a stable
sort: with more than 16 tied objects numpy's default quicksort would reorder them).
"""

import numpy as np
import pandas as pd
import pytest

from predstab import PredstabDataWarning, phi


def predictions():
    # 40 objects x 5 refits of class predictions: most objects split 2:3, every 7th 3:2 in
    # another pattern, object 5 unanimous -- many exact ties
    p = np.tile(np.array([[0, 0, 1, 1, 1]]), (40, 1))
    p[::7] = [0, 1, 0, 1, 0]
    p[5] = [1, 1, 1, 1, 1]
    return p


def test_per_object_frame_layout_and_stable_order():
    p = predictions()
    y = np.array([0, 1] * 10)
    res = phi(p, y, scale="categorical")
    frame = res.per_object_frame()
    assert frame.columns.tolist() == ["stability", "ci_low", "ci_high", "observed_instability",
                                      "n_predictions"]
    assert frame.index.name == "object"
    order = np.argsort(res.per_object, kind="stable")
    assert frame.index.tolist() == order.tolist()
    assert frame["stability"].tolist() == res.per_object[order].tolist()
    assert frame["ci_high"].tolist() == np.asarray(res.per_object_high)[order].tolist()
    assert frame["observed_instability"].tolist() == np.asarray(res.per_object_observed)[order].tolist()
    assert frame["n_predictions"].tolist() == [5] * 40
    assert frame.index[-1] == 5  # the unanimous object is the most stable
    unsorted = res.per_object_frame(sort=False)
    assert unsorted.index.tolist() == list(range(40)) and unsorted.index.name == "object"


def test_per_object_frame_keeps_row_labels_and_puts_nan_last():
    p = predictions().astype(float)
    p[3, 1:] = np.nan  # one prediction left: the object is dropped (NaN stability)
    labels = [f"plot{i}" for i in range(40)]
    with pytest.warns(PredstabDataWarning, match=r"excluded .* \(0-based rows 3\)"):
        res = phi(pd.DataFrame(p, index=labels), np.array([0.0, 1.0] * 10))
    frame = res.per_object_frame()
    assert frame.index[-1] == "plot3" and np.isnan(frame["stability"].iloc[-1])
    kept = [i for i in np.argsort(res.per_object, kind="stable") if i != 3]
    assert frame.index[:-1].tolist() == [labels[i] for i in kept]
    assert res.per_object_frame(sort=False).index.tolist() == labels
