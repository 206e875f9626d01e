"""Every public result follows the one result convention of ``predstab._core._results``.

For every public class of ``predstab`` and ``predstab.compare`` (iterating ``__all__``): it is a
result with example calls in ``tests/_registry.RESULTS``, a result converted on another branch
(``PENDING_RESULTS``), or not a result (``NOT_RESULTS``). For every example: ``==`` with itself,
a deep copy and a recomputed result is True and never raises (also against other types); ``repr``
is under 300 characters and shows no array; ``str`` is an R-style block, not the repr;
``to_frame()`` is one row, with ``ci_low`` / ``ci_high`` equal to ``confidence_interval`` where
there is one.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core._results import Result
from tests._registry import CURVE_RESULTS, NOT_RESULTS, PENDING_RESULTS, RESULTS

IDS = [label for label, _, _ in RESULTS]


def _public_classes():
    import predstab.compare

    out = {}
    for module, prefix in ((predstab, ""), (predstab.compare, "compare.")):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                out[prefix + name] = obj
    return out


def _short(name):
    """The class name without the submodule prefix of the registry ("compare.MeanCI" -> "MeanCI")."""
    return name.rpartition(".")[2]


def test_every_public_class_is_a_registered_result_pending_or_not_a_result():
    classes = _public_classes()
    registered = {cls for _, cls, _ in RESULTS}
    unclassified = sorted(set(classes) - registered - PENDING_RESULTS - NOT_RESULTS)
    assert not unclassified, f"add example results of {unclassified} to tests/_registry.RESULTS"
    converted = sorted(n for n in PENDING_RESULTS if n in classes and issubclass(classes[n], Result))
    assert not converted, f"{converted} follow the convention now: move them to RESULTS"
    stale = sorted((PENDING_RESULTS | NOT_RESULTS) - set(classes))
    assert not stale, f"not public classes: {stale}"


@pytest.mark.parametrize("cls", sorted({cls for _, cls, _ in RESULTS}))
def test_registered_results_derive_from_result_and_are_frozen(cls):
    klass = _public_classes()[cls]  # "compare.X" names a class of predstab.compare
    assert issubclass(klass, Result)
    assert klass.__dataclass_params__.frozen
    example = next(factory for _, name, factory in RESULTS if name == cls)()
    first = dataclasses.fields(example)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(example, first, None)


@pytest.mark.parametrize("label, cls, factory", RESULTS, ids=IDS)
def test_equality_never_raises(label, cls, factory):
    res = factory()
    assert type(res).__name__ == _short(cls)
    assert res == res
    assert res == copy.deepcopy(res)
    assert res == factory()  # recomputed: the same numbers, new arrays
    assert not (res != factory())
    assert (res == 3) is False and (res == "text") is False and (res == None) is False  # noqa: E711
    other = next(f for _, c, f in RESULTS if c != cls)()
    assert res != other
    with pytest.raises(TypeError):
        hash(res)  # results hold arrays: unhashable, like lists


@pytest.mark.parametrize("label, cls, factory", RESULTS, ids=IDS)
def test_equality_sees_a_changed_field(label, cls, factory):
    res = factory()
    for f in dataclasses.fields(res):
        if not f.compare:  # caches and labels that do not define the result
            continue
        value = getattr(res, f.name)
        if isinstance(value, float) and np.isfinite(value):
            changed = dataclasses.replace(res, **{f.name: value + 1.0})
        elif isinstance(value, np.ndarray) and value.dtype.kind == "f" and np.isfinite(value).any():
            changed = dataclasses.replace(res, **{f.name: value + 1.0})
        else:
            continue
        assert res != changed, f.name


@pytest.mark.parametrize("label, cls, factory", RESULTS, ids=IDS)
def test_repr_is_short_and_shows_no_array(label, cls, factory):
    text = repr(factory())
    assert len(text) < 300, text
    assert text.startswith(f"{_short(cls)}(")
    assert "array(" not in text and "\n" not in text and "[" not in text, text


@pytest.mark.parametrize("label, cls, factory", RESULTS, ids=IDS)
def test_str_is_an_r_style_block(label, cls, factory):
    res = factory()
    text = str(res)
    assert text.strip() and text != repr(res)
    lines = text.splitlines()
    aps = len(lines) >= 3 and lines[0] == "" and set(lines[2].strip()) == {"-"}  # APS's print layout
    # base R's print.htest: an empty line, the tab-indented method, an empty line
    htest = len(lines) >= 3 and lines[0] == "" and lines[1].startswith("\t") and lines[2] == ""
    irr = len(lines) >= 3 and lines[1].strip() == ""  # irr's and psych's: the title, an empty line
    assert irr or lines[0].startswith("Nonlinear") or aps or htest, text
    assert "array(" not in text and "dtype" not in text


@pytest.mark.parametrize("label, cls, factory", RESULTS, ids=IDS)
def test_to_frame_is_one_row_with_the_interval_as_ci_low_ci_high(label, cls, factory):
    res = factory()
    frame = res.to_frame()
    if cls in CURVE_RESULTS:  # a curve: one row per point, the interval's arrays as columns
        axis, column = CURVE_RESULTS[cls]
        assert isinstance(frame, pd.DataFrame) and frame.shape[0] == len(getattr(res, axis)) > 1
        np.testing.assert_array_equal(frame[column], getattr(res, axis))
        np.testing.assert_array_equal(frame["ci_low"], res.confidence_interval.low)
        np.testing.assert_array_equal(frame["ci_high"], res.confidence_interval.high)
        return
    assert isinstance(frame, pd.DataFrame) and frame.shape[0] == 1
    assert "lower" not in frame.columns and "upper" not in frame.columns
    ci = getattr(res, "confidence_interval", None)
    if ci is not None:
        assert not callable(ci), "the confidence interval is an attribute, not a method"
        assert isinstance(ci, predstab.ConfidenceInterval)
        # equal, and NaN where the interval is NaN (e.g. psych's mean kappa over more than two raters)
        assert np.array_equal([frame.loc[0, "ci_low"], frame.loc[0, "ci_high"]], [ci.low, ci.high],
                              equal_nan=True)
    # every column is a scalar that repr shows (no arrays in a one-row frame)
    for column in frame.columns:
        assert np.ndim(frame.loc[0, column]) == 0, column
