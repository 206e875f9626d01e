"""Reading prediction matrices and baselines: value families, codes and missing values.

APS works on R vectors, which are numeric, logical or character. Python inputs come
as numpy arrays of any dtype, lists of lists, pandas objects (including Categorical and
nullable dtypes). This module reduces all of them to one of these *families* and,
for the categorical and ordinal scales, to integer codes without ever comparing
replicates pairwise:

* ``numeric``   -- float or integer values (``integer`` records which, for scale inference);
* ``logical``   -- booleans;
* ``character`` -- text;
* ``empty``     -- nothing but missing values (matches any family).

Missing values are ``None``, ``NaN`` and ``pd.NA`` in any dtype.

:func:`_stability_iv` checks what every phi / psi entry point was given (APS's checks and
phrases) and settles the scale and the ordered categories.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._gate import check_categories_order, check_orientation, check_row_names
from .._core._ratings import _is_number_dtype, unmask

__all__ = ["Values", "ColumnCodes", "read_values", "encode", "match_keys", "r_text"]

# Integer inputs with a range up to this size are used as codes directly (value - min),
# without a hash-based factorisation.
_DIRECT_RANGE = 1 << 12

_INFERRED_FAMILY = {
    "integer": ("numeric", True),
    "floating": ("numeric", False),
    "mixed-integer-float": ("numeric", False),
    "decimal": ("numeric", False),
    "boolean": ("logical", False),
    "string": ("character", False),
    "unicode": ("character", False),
    "bytes": ("character", False),
    "empty": ("empty", False),
}


@dataclass(frozen=True)
class Values:
    """A parsed input.

    ``array`` holds the values (numeric, bool or object dtype) or, when ``categories``
    is not None, integer codes into ``categories`` with -1 for missing values (a
    :class:`ColumnCodes` for a DataFrame of Categorical columns).
    """

    array: np.ndarray
    family: str
    integer: bool = False
    categories: np.ndarray | None = None
    ordered: bool = False
    labels: pd.Index | None = None


def _family_of_array(arr, name):
    kind = arr.dtype.kind
    if kind == "f":
        return "numeric", False
    if kind in "iu":
        return "numeric", True
    if kind == "b":
        return "logical", False
    if kind in "US":
        return "character", False
    if kind == "O":
        inferred = pd.api.types.infer_dtype(arr.ravel(), skipna=True)
        if inferred in _INFERRED_FAMILY:
            return _INFERRED_FAMILY[inferred]
        raise TypeError(
            f"`{name}` must hold numbers, booleans or text of one kind; got values of inferred "
            f"type {inferred!r}."
        )
    raise TypeError(
        f"`{name}` must hold numbers, booleans or text; got an array of dtype {arr.dtype}."
    )


def _from_object(arr, family):
    """Normalise an object array of one family to a compact dtype where possible."""
    if family == "numeric":
        flat = arr.ravel().copy()
        flat[pd.isna(flat)] = np.nan  # pd.NA (from nullable pandas columns) cannot be cast to float
        return flat.astype(float).reshape(arr.shape)
    if family == "character" and arr.dtype.kind in "US":
        return arr.astype(object)
    return arr


class ColumnCodes:
    """The codes of a DataFrame of Categorical columns, used in place without stacking them.

    Behaves as the (objects x columns) code matrix where predstab needs one: ``shape``,
    ``ndim``, ``size``, ``np.asarray`` (which does stack) and :meth:`row_block`, which stacks
    only a block of rows, transposed (columns x rows), for the counting pass.
    """

    ndim = 2

    def __init__(self, columns):
        self.columns = columns
        self.shape = (len(columns[0]), len(columns))
        self.size = self.shape[0] * self.shape[1]
        self.dtype = columns[0].dtype

    def row_block(self, start, stop):
        return np.stack([c[start:stop] for c in self.columns])

    def __array__(self, dtype=None, copy=None):
        out = np.stack(self.columns, axis=1)
        return out if dtype is None else out.astype(dtype)

    def ravel(self):
        return np.asarray(self).ravel()


def _read_categorical_frame(columns, name):
    dtypes = [c.dtype for c in columns]
    first = dtypes[0]
    if any(not first.categories.equals(d.categories) or first.ordered != d.ordered for d in dtypes[1:]):
        return None  # different categories per column: fall back to the values
    # a Categorical's codes are a view: reuse them (no copy of the data)
    code_columns = [c.array.codes for c in columns]
    codes = ColumnCodes(code_columns) if len(code_columns) > 1 else code_columns[0][:, None]
    cats = first.categories.to_numpy()
    family, integer = _family_of_array(np.asarray(cats, dtype=object) if cats.dtype.kind == "O" else cats,
                                       name)
    return codes, cats, family, integer, bool(first.ordered)


def _has_na(columns):
    # numpy integer and bool columns cannot hold a missing value: only nullable ones are scanned
    return any(isinstance(c.dtype, pd.api.extensions.ExtensionDtype) and c.isna().any() for c in columns)


def read_values(x, name) -> Values:
    """Parse ``x`` (array-like, list of lists or pandas object) into :class:`Values`."""
    labels = None
    x = unmask(x)  # masked cells are missing values
    if isinstance(x, (pd.api.extensions.ExtensionArray, pd.Index)):  # pd.Categorical, pd.array(...)
        x = pd.Series(x)
    if isinstance(x, pd.Series):
        x = x.to_frame()
        squeeze = True
    else:
        squeeze = False
    if isinstance(x, pd.DataFrame):
        labels = None if squeeze else x.index
        columns = [x.iloc[:, j] for j in range(x.shape[1])]
        if columns and all(isinstance(c.dtype, pd.CategoricalDtype) for c in columns):
            parsed = _read_categorical_frame(columns, name)
            if parsed is not None:
                codes, cats, family, integer, ordered = parsed
                codes = np.asarray(codes)[:, 0] if squeeze else codes
                return Values(codes, family, integer, cats, ordered, labels)
        if columns and all(pd.api.types.is_bool_dtype(c.dtype) for c in columns) and not _has_na(columns):
            arr = x.to_numpy(dtype=bool)
        elif columns and all(_is_number_dtype(c.dtype) for c in columns):
            integer = all(pd.api.types.is_integer_dtype(c.dtype) for c in columns)
            if integer and not _has_na(columns):
                arr = x.to_numpy(dtype=np.int64)
            else:
                arr = x.to_numpy(dtype=float, na_value=np.nan)
            arr = arr[:, 0] if squeeze else arr
            return Values(arr, "numeric", integer, labels=labels)
        else:
            arr = x.to_numpy(dtype=object)
        arr = arr[:, 0] if squeeze else arr
    else:
        try:
            arr = np.asarray(x)
        except ValueError as exc:  # ragged lists
            raise ValueError(f"`{name}` must be a rectangular array; {exc}") from None
    family, integer = _family_of_array(arr, name)
    if arr.dtype.kind == "O" or arr.dtype.kind in "US":
        arr = _from_object(arr, family)
    return Values(arr, family, integer, labels=labels)


def encode(values: Values):
    """Integer codes for a categorical or ordinal reading of ``values``.

    Returns ``(source, offset, uniques)``: ``source - offset`` is a code into ``uniques``,
    with -1 (only possible when ``offset`` is 0) for a missing value. No copy of the
    data is made when the input already is a code array (pandas Categorical) or a
    small-range integer array.
    """
    arr = values.array
    if values.categories is not None:
        return arr, 0, np.asarray(values.categories, dtype=object)
    if arr.dtype.kind == "b":
        return arr.view(np.uint8), 0, np.array([False, True], dtype=object)
    if (arr.dtype.kind == "i" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8)) and arr.size:
        low, high = int(arr.min()), int(arr.max())
        n_rows = arr.shape[0] if arr.ndim == 2 else 1
        # direct codes only when the (objects x codes) count table stays small
        if high - low < _DIRECT_RANGE and n_rows * (high - low + 1) <= 4 * arr.size:
            return arr, low, np.arange(low, high + 1).astype(object)
    codes, uniques = pd.factorize(arr.ravel(), use_na_sentinel=True)
    return codes.reshape(arr.shape), 0, np.asarray(uniques, dtype=object)


def r_text(v) -> str:
    """The text R's ``as.character`` gives for a scalar (15 significant digits)."""
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else format(v, ".15g")
    return str(v)


def _value_key(v):
    """A key that compares values, not spellings: ``1``, ``1.0``, ``"1"`` and ``"1.0"`` are one key.

    Text that reads as a number is that number; R's ``"TRUE"`` / ``"FALSE"`` are the booleans;
    other text is itself.
    """
    if isinstance(v, (bool, np.bool_)):
        return ("logical", bool(v))
    if isinstance(v, (int, np.integer, float, np.floating)):
        return ("number", float(v))
    text = str(v).strip()
    try:
        return ("number", float(text))
    except ValueError:
        pass
    if text in ("TRUE", "FALSE"):
        return ("logical", text == "TRUE")
    return ("text", text)


def _key(v, as_text):
    if as_text:
        # values of different kinds (numbers against text levels, ...): compare what they mean;
        # R's spellings would miss 1.0 against "1.0" (as.character(1.0) is "1")
        return _value_key(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer, float, np.floating)):
        return float(v)
    return str(v)


def match_keys(values, table, as_text) -> np.ndarray:
    """Position of each of ``values`` in ``table`` (-1 when absent), like R's ``match``.

    ``as_text`` (values and table of different kinds): matched by value (:func:`_value_key`).
    """
    index = {}
    for j, t in enumerate(table):
        index.setdefault(_key(t, as_text), j)
    return np.array([index.get(_key(v, as_text), -1) for v in values], dtype=np.intp)


# --------------------------------------------------------------------------- phi / psi inputs

_R_TYPE = {"numeric": "numeric", "logical": "logical", "character": "character", "empty": "logical"}
_FEW_REPETITIONS = 5


@dataclass(frozen=True)
class _Names:
    """The entry point's names of its arguments, for the messages."""

    predictions: str
    baseline: str
    categories: str


_PHI_NAMES = _Names("predictions", "training_observations", "categories")
_PSI_NAMES = _Names("predictions", "prediction_space", "categories")


def _stability_iv(predictions, baseline, scale, categories, names):
    """Check and normalise the inputs of every phi/psi entry point (APS's checks and phrases)."""
    named_rows = check_row_names(predictions, name=names.predictions)  # then no orientation (issue 32)
    check_row_names(baseline, name=names.baseline)  # a y read by pandas.read_csv with R's row names
    check_categories_order(predictions, categories, name=names.predictions)
    pred = read_values(predictions, names.predictions)
    if pred.array.ndim != 2:
        raise ValueError(
            f"`{names.predictions}` must be a 2-D matrix of shape (n_objects, n_replicates); got "
            f"{pred.array.ndim}-D input of shape {pred.array.shape}. For one object pass shape (1, R)."
        )
    n_objects, n_replicates = pred.array.shape
    if n_replicates < 2:
        raise ValueError(
            f"`{names.predictions}` must contain predictions from at least two repetitions (columns); "
            f"got shape {pred.array.shape}."
        )
    if n_objects < 1:
        raise ValueError(
            f"`{names.predictions}` must contain at least one object (row); got shape {pred.array.shape}."
        )
    if not named_rows:
        check_orientation(pred.array, name=names.predictions)
    base = read_values(baseline, names.baseline)
    if base.array.ndim > 2:
        raise ValueError(
            f"`{names.baseline}` must be a vector or a (training objects x repetitions) matrix; got "
            f"{base.array.ndim}-D input of shape {base.array.shape}."
        )
    if base.array.ndim == 0:
        base = Values(base.array.reshape(1), base.family, base.integer, base.categories, base.ordered)

    if "empty" not in (pred.family, base.family) and pred.family != base.family:
        raise ValueError(
            "Type mismatch between the prediction matrix and the training data: "
            f"`{names.predictions}` is {_R_TYPE[pred.family]}, `{names.baseline}` is {_R_TYPE[base.family]}."
        )
    if scale is None:
        scale = _infer_scale(pred, base, categories, names)
    if scale == "metric":
        family = pred.family if pred.family != "empty" else base.family
        if family not in ("numeric", "empty"):
            raise ValueError(
                f"'scale' = 'metric' doesn't match the data type which is '{_R_TYPE[family]}': `scale` is "
                f"'metric' but `{names.predictions}` holds {_R_TYPE[family]} values; use "
                "scale='categorical' or scale='ordinal' for class labels."
            )
        categories = _no_categories(categories, scale, names)
    elif scale == "ordinal":
        if categories is None:
            categories = _ordered_categories(pred, base)
        if categories is None:
            raise ValueError(
                f"'scale' = 'ordinal' requires setting `{names.categories}` to a vector containing the "
                f"levels in the correct order, e.g. {names.categories}=['low', 'mid', 'high']."
            )
        categories = _levels_iv(categories, names.categories)
    else:  # "categorical" (the public functions declare `scale`; see validate_params)
        categories = _no_categories(categories, scale, names)
    if n_replicates < _FEW_REPETITIONS:
        warn_outside(
            f"`{names.predictions}` contains fewer than {_FEW_REPETITIONS} repeated predictions "
            f"({n_replicates} columns); stability estimates may be unreliable.", PredstabDataWarning)
    return pred, base, scale, categories


def _no_categories(categories, scale, names):
    if categories is not None:
        raise ValueError(
            f"`{names.categories}` orders the categories of the ordinal scale; it cannot be used with "
            f"scale={scale!r}. Pass scale='ordinal' or leave `{names.categories}` as None."
        )
    return None


def _infer_scale(pred, base, categories, names):
    if categories is not None or _ordered_categories(pred, base) is not None:
        return "ordinal"
    if pred.categories is not None:
        return "categorical"
    family = pred.family if pred.family != "empty" else base.family
    if family in ("logical", "character"):
        return "categorical"
    if family == "numeric" and not pred.integer:
        return "metric"
    if family in ("numeric", "empty"):
        raise ValueError(
            f"`scale` is needed: `{names.predictions}` holds integers, which may be metric values, "
            "class labels or ordinal scores. Pass scale='metric', scale='categorical' or "
            f"scale='ordinal' (with `{names.categories}`)."
        )
    raise ValueError(f"cannot infer `scale` for values of family {family!r}; pass `scale`.")


def _ordered_categories(pred, base):
    for v in (pred, base):
        if v.categories is not None and v.ordered:
            return list(v.categories)
    return None


def _levels_iv(levels, name):
    if isinstance(levels, (str, bytes)) or np.ndim(levels) != 1:
        raise ValueError(f"`{name}` must be a sequence of levels in their order; got {levels!r}.")
    levels = list(pd.Index(levels)) if isinstance(levels, pd.Index) else list(levels)
    if len(levels) < 1:
        raise ValueError(f"`{name}` must list at least one level; got an empty sequence.")
    if any(v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA for v in levels):
        raise ValueError(f"`{name}` must not contain missing values; got {levels!r}.")
    if len(set(map(_hashable, levels))) != len(levels):
        raise ValueError(f"`{name}` must not repeat a level; got {levels!r}.")
    return tuple(v.item() if isinstance(v, np.generic) else v for v in levels)


def _hashable(v):
    return v.item() if isinstance(v, np.generic) else v
