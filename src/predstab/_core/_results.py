"""The one result convention shared by every public result of predstab.

Every result is a frozen dataclass that derives from :class:`Result` and is declared with
the :func:`result` decorator (``@dataclass(frozen=True, eq=False, repr=False)``, so that the
base class's ``==`` and ``repr`` are kept):

- ``==`` compares field by field and never raises: arrays with :func:`numpy.array_equal`
  (NaN equal to NaN), pandas objects with ``.equals``, dicts and tuples element by element;
  results are unhashable (they hold arrays);
- ``repr`` is short (under 300 characters): the class name and its scalar fields, no arrays;
- ``str`` is an R-style titled block (``_str_lines``), as irr's and base R's print methods lay
  results out;
- ``to_frame()`` is one row: the scalar fields, with ``confidence_interval`` as ``ci_low`` /
  ``ci_high``;
- a confidence interval, where one exists, is the attribute ``confidence_interval``: a
  :class:`~predstab.ConfidenceInterval` ``(low, high)`` at the ``confidence_level`` the
  function was called with.

Examples
--------
>>> import numpy as np
>>> @result
... class Demo(Result):
...     value: float
...     per_object: np.ndarray
>>> a, b = Demo(0.5, np.array([1.0, np.nan])), Demo(0.5, np.array([1.0, np.nan]))
>>> a == b, a != Demo(0.5, np.array([1.0]))
(True, True)
>>> a
Demo(value=0.5, ...)
>>> a.to_frame().columns.tolist()
['value']
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np
import pandas as pd

from ._html import HtmlDisplay
from ._rnumbers import r_signif
from ._utils import ConfidenceInterval

__all__ = ["Result", "result", "ConfidenceInterval", "is_scalar_field", "r_pvalue", "r_signif", "r_round",
           "r_block", "r_rows"]

_REPR_LIMIT = 300


def _is_scalar(value) -> bool:
    return value is None or isinstance(value, (numbers.Number, str, np.bool_, np.number))


def is_scalar_field(value) -> bool:
    """True for what ``repr`` and ``to_frame`` show: numbers, strings, booleans, None."""
    return _is_scalar(value)


def _equal(a, b) -> bool:
    """Equality that never raises (arrays, frames, NaN, nested containers)."""
    if a is b:
        return True
    pandas = (pd.DataFrame, pd.Series, pd.Index)
    if isinstance(a, pandas) or isinstance(b, pandas):
        return type(a) is type(b) and bool(a.equals(b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and b.dtype.kind in "fciub":
            return bool(np.array_equal(a, b, equal_nan=True))
        return all(_equal(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist(), strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_equal(x, y) for x, y in zip(a, b, strict=True)))
    if isinstance(a, Result) or isinstance(b, Result):
        return a == b
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # an object whose == is ambiguous or fails: not equal
        return False


def _short(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, ConfidenceInterval):
        return f"({_short(value.low)}, {_short(value.high)})"
    return repr(value.item() if isinstance(value, np.generic) else value)


def result(cls):
    """Class decorator of every result: ``dataclass(frozen=True, eq=False, repr=False)``."""
    return dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)


class Result(HtmlDisplay):
    """Base of every public result: equality, a short repr, an R-style str, ``to_frame()``.

    Subclasses are declared with :func:`result`. They may set ``_frame_fields`` (the
    columns of ``to_frame``, in order; default: every scalar field) and override
    ``_str_lines()`` (the lines of ``str``; default: the title and one line per scalar field).
    """

    _frame_fields: tuple = ()
    _derived_fields: tuple = ()  # properties shown after the scalar fields (e.g. ``n_repeats``)
    _title: str = ""
    # attributes renamed in predstab 0.2.0, old -> new (CHANGELOG.md): reading an old name raises
    # an AttributeError that names the new one
    _renamed_attributes: dict = {}

    __hash__ = None  # results hold arrays: unhashable, like lists

    def __getattr__(self, name):
        # only reached when the normal lookup fails
        new = type(self)._renamed_attributes.get(name)
        if new is not None:
            raise AttributeError(f"{type(self).__name__}.{name} was renamed `{new}` in predstab 0.2.0 "
                                 "(see CHANGELOG.md).")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(_equal(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self) if f.compare)

    def _scalar_items(self):
        for f in dataclasses.fields(self):
            if f.name.startswith("_") or not f.repr:
                continue
            value = getattr(self, f.name)
            if _is_scalar(value) or isinstance(value, ConfidenceInterval):
                yield f.name, value
        for name in self._derived_fields:
            yield name, getattr(self, name)

    def __repr__(self) -> str:
        name = type(self).__name__
        parts = [f"{k}={_short(v)}" for k, v in self._scalar_items()]
        out = f"{name}("
        for k, part in enumerate(parts):
            candidate = out + ("" if k == 0 else ", ") + part
            if len(candidate) + 6 > _REPR_LIMIT:
                return out + ", ...)"
            out = candidate
        n_fields = len(dataclasses.fields(self)) + len(self._derived_fields)
        return out + (", ...)" if len(parts) < n_fields else ")")

    def _str_lines(self) -> list:
        lines = [f" {self._title or type(self).__name__}", ""]
        for k, v in self._scalar_items():
            shown = (f"{r_signif(v.low)} to {r_signif(v.high)}" if isinstance(v, ConfidenceInterval)
                     else r_signif(v) if isinstance(v, (float, np.floating))
                     else "NA" if v is None else v)  # R's NA, not Python's None
            lines.append(f"  {k} = {shown}")
        return lines

    @property
    def stack_shape(self):
        """``(...)`` of a result of a stack of matrices (``predstab._core._stack``); None for one matrix."""
        return self.__dict__.get("_stack_shape")

    def _stack_lines(self) -> list:
        # a stack of items: a summary of each number field, not every item
        shape = self.stack_shape
        n_items = math.prod(shape)
        label = getattr(self, "name", None) or getattr(self, "coefficient", None) or ""
        title = self._title or type(self).__name__
        lines = [f" {title}{', ' + label if isinstance(label, str) and label else ''}: "
                 f"{n_items} items, stack shape {shape}", ""]
        rows = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            parts = ([("ci_low", value.low), ("ci_high", value.high)]
                     if isinstance(value, ConfidenceInterval) else [(f.name, value)])
            for key, v in parts:
                if isinstance(v, np.ndarray) and v.shape == shape and v.dtype.kind in "fiu":
                    finite = v[~np.isnan(v)] if v.dtype.kind == "f" else v
                    stats = ("min NA / median NA / max NA" if finite.size == 0 else
                             f"min {r_signif(finite.min())} / median {r_signif(np.median(finite))} / "
                             f"max {r_signif(finite.max())}")
                    n_nan = v.size - finite.size
                    rows.append((key, stats + (f"  ({n_nan} NA)" if n_nan else "")))
        return lines + r_rows(rows, width=max(len(k) for k, _ in rows) if rows else 9)

    def __str__(self) -> str:
        return "\n".join(self._stack_lines() if self.stack_shape is not None else self._str_lines())

    def to_frame(self) -> pd.DataFrame:
        """The result as a one-row :class:`pandas.DataFrame` (``ci_low`` / ``ci_high`` for the interval).

        The result of a stack of matrices has one row per item, indexed by the item.
        """
        if self.stack_shape is not None:
            return self._stack_frame()
        names = self._frame_fields or tuple(k for k, v in self._scalar_items()
                                            if not isinstance(v, ConfidenceInterval))
        row = {n: getattr(self, n) for n in names}
        ci = getattr(self, "confidence_interval", None)
        if isinstance(ci, tuple) and len(ci) == 2:
            row["ci_low"], row["ci_high"] = float(ci[0]), float(ci[1])
        return pd.DataFrame({k: [v] for k, v in row.items()})

    def _stack_frame(self) -> pd.DataFrame:
        shape = self.stack_shape
        names = self._frame_fields or tuple(
            f.name for f in dataclasses.fields(self) if not f.name.startswith("_") and f.repr
            and not isinstance(getattr(self, f.name), ConfidenceInterval))
        columns = {}
        for n in names:
            v = getattr(self, n)
            if isinstance(v, np.ndarray) and v.shape == shape:
                columns[n] = v.ravel()
            elif _is_scalar(v):
                columns[n] = [v] * math.prod(shape)
        ci = getattr(self, "confidence_interval", None)
        if isinstance(ci, tuple) and len(ci) == 2:
            columns["ci_low"], columns["ci_high"] = (np.broadcast_to(b, shape).ravel().astype(float)
                                                     for b in ci)
        index = (pd.RangeIndex(shape[0], name="item") if len(shape) == 1 else
                 pd.MultiIndex.from_tuples(list(np.ndindex(shape)),
                                           names=[f"axis{i}" for i in range(len(shape))]))
        return pd.DataFrame(columns, index=index)


# --------------------------------------------------------------------------- R-style numbers
def r_round(x, digits=3) -> str:
    """A number as R prints ``round(x, digits)`` (trailing zeros dropped; NA for NaN).

    Examples
    --------
    >>> r_round(0.01904), r_round(0.7610), r_round(-1.0), r_round(float("nan"))
    ('0.019', '0.761', '-1', 'NA')
    """
    if x is None or math.isnan(float(x)):
        return "NA"
    x = float(x)
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    value = round(x, digits) + 0.0  # + 0.0: no "-0"
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def r_pvalue(p, digits=4) -> str:
    """A p-value as base R's ``print.htest`` shows it: ``"p-value < 2.2e-16"`` or ``"p-value = 0.0123"``.

    Examples
    --------
    >>> r_pvalue(1e-300), r_pvalue(0.012345), r_pvalue(float("nan"))
    ('p-value < 2.2e-16', 'p-value = 0.01235', 'p-value = NA')
    """
    if p is not None and not (isinstance(p, float) and math.isnan(p)) and float(p) < np.finfo(float).eps:
        return "p-value < 2.2e-16"
    return f"p-value = {r_signif(p, digits)}"


def r_block(title, rows, *, indent=1) -> list:
    """Lines of an irr-style block: a title, a blank line and right-aligned ``name = value`` rows.

    Examples
    --------
    >>> print("\\n".join(r_block("Cohen's Kappa for 2 Raters", [("Subjects", 30), ("Kappa", "0.651")])))
     Cohen's Kappa for 2 Raters
    <BLANKLINE>
     Subjects = 30
        Kappa = 0.651
    """
    width = max((len(str(k)) for k, _ in rows), default=0)
    pad = " " * indent
    return [pad + title, ""] + [f"{pad}{str(k):>{width}} = {v}" for k, v in rows]


def r_rows(rows, *, width=9) -> list:
    """``name = value`` lines with the names right-aligned to ``width``, as irr's print methods
    (``formatC(name, width = 9)``) lay them out.

    Examples
    --------
    >>> r_rows([("Subjects", 30), ("Kappa", "0.43")])
    [' Subjects = 30', '    Kappa = 0.43']
    """
    return [f"{str(k):>{width}} = {v}" for k, v in rows]
