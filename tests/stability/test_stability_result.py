"""StabilityResult: its fields, frames and APS's print, the per-object frame (layout, row labels,
least stable first with ties in input order, dropped objects last) and the public names.
"""

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab import (
    PredstabDataWarning,
    StabilityResult,
    phi,
)
from tests.stability._phi_psi import (
    predictions,
)


def test_result_fields_frames_and_str():
    rng = np.random.default_rng(10)
    pred = pd.DataFrame(rng.normal(size=(6, 5)) * np.arange(1, 7)[:, None],
                        index=[f"obj{i}" for i in range(6)])
    res = phi(pred, rng.normal(size=40) * 3)
    assert isinstance(res, StabilityResult)
    assert (res.kind, res.scale, res.n_objects, res.n_replicates) == ("phi", "metric", 6, 5)
    frame = res.to_frame()
    assert frame.loc[0, "value"] == res.value and list(frame.columns)[:2] == ["kind", "scale"]
    per = res.per_object_frame()
    assert per.index[0] == "obj5"  # the noisiest object is the least stable
    assert per["stability"].is_monotonic_increasing
    assert per.loc["obj0", "n_predictions"] == 5
    assert list(res.per_object_frame(sort=False).index) == list(pred.index)
    text = str(res).split("\n")
    assert text[1] == "Data-based prediction stability (phi) " and text[2] == "-" * 37
    assert text[3] == f"Prediction stability: {res.value:6.5g} "
    with pytest.raises(TypeError, match="`sort`"):
        res.per_object_frame(sort="yes")
    with pytest.raises(AttributeError):
        res.value = 1.0  # frozen


def test_per_object_frame_layout_and_stable_order():
    p = predictions()
    y = np.array([0, 1] * 10)
    res = phi(p, y, scale="categorical")
    frame = res.per_object_frame()
    assert frame.columns.tolist() == ["stability", "ci_low", "ci_high", "observed_instability",
                                      "n_predictions"]  # shape_outlier: object_interval="checked" only
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


def test_public_api_exports():
    for name in ("phi", "psi", "calculate_phi", "calculate_psi"):
        assert getattr(predstab, name).__module__ == "predstab.stability._stability"
    assert predstab.StabilityResult.__module__ == "predstab.stability._result"
