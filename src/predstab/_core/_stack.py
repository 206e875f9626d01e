"""Many items in one call: stacks of rating matrices, numpy's stacked-matrix convention.

Every agreement coefficient takes, besides one (n_objects, n_raters) matrix, a *stack* of
shape ``(..., n_objects, n_raters)``, as :mod:`numpy.linalg` takes stacks of matrices. It
returns the same result class as for one matrix, with the fields of every item gathered:

- a number field (``value``, ``statistic``, ``pvalue``, ``n_objects``, ...) becomes an array of
  shape ``(...)``; a ``confidence_interval`` becomes a ``(low, high)`` pair of such arrays;
- an array field (``weight_matrix``, ``per_object``) becomes an array of shape
  ``(...) + its shape`` when its shape is the same for every item, else an object array;
- a field echoing an option of the call (``confidence_level``, ``r0``, ``level``) is kept as
  given; any other field (a name, a tuple of categories, a table) is kept as one value
  when it is the same for every item, else it becomes an object array of shape ``(...)``.

The numbers are those of a loop over the items, each item following the degenerate-data
convention (:mod:`predstab._core._convention`) on its own. The warnings of the items are
collected and each kind is issued once, saying how many items it concerns and showing the
first one's message. ``print(res)`` summarises (min / median / max of the values);
``res.to_frame()`` has one row per item; ``res.stack_shape`` is ``(...)``.

The generic path here is that loop (:func:`stack_apply`); ICC has a vectorised path
(``predstab.agreement._icc``) that gives the same numbers. A Dask array (detected from its type's
module, so that dask is imported only when it is given one) is computed chunk by chunk on
the active Dask scheduler, see :func:`dask_apply`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import threading
import warnings

import numpy as np

from ._convention import _COLLAPSED, _UNDEFINED, one_minus_ratio_array
from ._exceptions import PredstabDegenerateWarning, PredstabUndefinedWarning, warn_outside
from ._ratings import unmask
from ._results import Result, _equal
from ._utils import ConfidenceInterval

__all__ = ["is_stack", "is_dask", "as_stack", "stack_apply", "loop_items", "assemble", "stacked_result",
           "dask_apply", "warn_items", "one_minus_ratio_items", "ItemWarnings", "small_integer_codes",
           "count_tables", "used_categories", "MAX_CODES", "vectorised_apply"]


def is_dask(x) -> bool:
    """True for a dask array, without importing dask."""
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "chunks")


def is_stack(x) -> bool:
    """True when ``x`` has three dimensions or more (a stack of rating matrices)."""
    ndim = getattr(x, "ndim", None)
    if ndim is None and isinstance(x, (list, tuple)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ndim = np.ndim(x)
        except (ValueError, TypeError):  # ragged: the 2-D reader reports it
            return False
    return isinstance(ndim, numbers.Integral) and ndim >= 3


def as_stack(x, name):
    """The stack as a numpy array of shape (..., n_objects, n_raters); masked cells missing."""
    arr = np.asarray(unmask(x))
    if arr.dtype.kind == "c":
        raise TypeError(f"`{name}` must hold real values; got complex dtype {arr.dtype}.")
    if arr.size == 0 and math.prod(arr.shape[:-2]) == 0:
        raise ValueError(f"`{name}` must hold at least one item; got a stack of shape {arr.shape}.")
    return arr


class ItemWarnings:
    """Warnings of the items of a stack: each kind once, with the number of items it concerns."""

    def __init__(self):
        self.kinds = {}  # category -> [n_items, first message]

    def add(self, category, message, n_items=1):
        if n_items <= 0:
            return
        entry = self.kinds.setdefault(category, [0, message])
        entry[0] += n_items

    def record(self, caught):
        for category in dict.fromkeys(w.category for w in caught):
            first = next(w for w in caught if w.category is category)
            self.add(category, str(first.message))

    def merge(self, other):
        for category, (n_items, message) in other.kinds.items():
            self.add(category, message, n_items)

    def emit(self, n_total):
        """One warning per kind, pointing at the first frame outside predstab."""
        for category, (n_items, message) in self.kinds.items():
            warn_items(category, message, n_items, n_total)


def one_minus_ratio_items(d_o, d_e, caught, *, name, what="disagreement"):
    """``_convention.one_minus_ratio`` of every item at once; its warnings counted in ``caught``."""
    zero = d_e == 0
    caught.add(PredstabDegenerateWarning, _COLLAPSED.format(what=what, name=name),
               int(np.count_nonzero(zero & (d_o == 0))))
    caught.add(PredstabUndefinedWarning, _UNDEFINED.format(what=what, name=name, fallback=np.nan),
               int(np.count_nonzero(zero & (d_o > 0))))
    return one_minus_ratio_array(d_o, d_e)


def warn_items(category, message, n_items, n_total):
    """One warning for ``n_items`` of the ``n_total`` items of a stack, at the user's line."""
    warn_outside(f"{n_items} of {n_total} items: {message}", category)


def _is_number(v):
    return isinstance(v, (numbers.Number, np.number)) and not isinstance(v, (bool, np.bool_))


def _gather(values, shape, option=False):
    """The values of one field over the items (flat list) as the stacked field (module doc).

    ``option``: the field echoes an option of the call (``confidence_level``), kept as given.
    """
    first = values[0]
    if option and all(_equal(v, first) for v in values[1:]):
        return first
    if isinstance(first, ConfidenceInterval):
        return ConfidenceInterval(_gather([v.low for v in values], shape),
                                  _gather([v.high for v in values], shape))
    if all(_is_number(v) for v in values):
        return np.asarray(values).reshape(shape)
    if isinstance(first, np.ndarray) and all(isinstance(v, np.ndarray) and v.shape == first.shape
                                             for v in values):
        return np.stack(values).reshape(shape + first.shape)
    if all(_equal(v, first) for v in values[1:]):
        return first
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def assemble(cls, items, shape, options=()):
    """A stacked ``cls`` result from the flat list ``items`` of per-item results.

    ``options`` names the keyword arguments of the call: a field of that name is kept as one value.
    """
    fields = {f.name: _gather([getattr(r, f.name) for r in items], shape, f.name in options)
              for f in dataclasses.fields(cls) if f.init}
    return stacked_result(cls, fields, shape)


def stacked_result(cls, fields, shape):
    res = cls(**fields)
    object.__setattr__(res, "_stack_shape", tuple(shape))
    return res


def loop_items(func, items, kwargs, *, name, shape, indices=None):
    """``func(item, **kwargs)`` of each item (flat list): the results and their warnings.

    ``indices`` are the flat positions of ``items`` in a stack of shape ``shape`` (default:
    all of them), for the message of an error raised by one item.
    """
    caught = ItemWarnings()
    results = []
    indices = range(len(items)) if indices is None else indices
    for index, item in zip(indices, items, strict=True):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                results.append(func(item, **kwargs))
            except (ValueError, TypeError) as exc:
                where = np.unravel_index(index, shape) if shape else ()
                raise type(exc)(f"item {tuple(int(i) for i in where)} of `{name}`: {exc}") from None
        caught.record(record)
    return results, caught


def stack_apply(func, x, /, *, name="ratings", **kwargs):
    """``func`` over the items of the stack ``x``, gathered into one stacked result.

    ``func`` is the public 2-D function; it is called on each (n_objects, n_raters) item with
    ``kwargs``. A Dask ``x`` goes to :func:`dask_apply`. The items' warnings are summed up in
    one warning per kind at the first frame outside predstab.
    """
    if is_dask(x):
        return dask_apply(lambda block: stack_apply(func, block, name=name, **kwargs), x, name=name)
    arr = as_stack(x, name)
    shape = arr.shape[:-2]
    items = arr.reshape((math.prod(arr.shape[:-2]),) + arr.shape[-2:])
    results, caught = loop_items(func, items, kwargs, name=name, shape=shape)
    caught.emit(len(items))
    first = results[0]
    if isinstance(first, Result):
        return assemble(type(first), results, shape, options=kwargs)
    import pandas as pd  # a table per item (icc_table): one frame indexed by item, then row

    if isinstance(first, pd.DataFrame):
        keys = [np.unravel_index(i, shape) if len(shape) > 1 else i for i in range(len(results))]
        return pd.concat(results, keys=keys, names=["item", None])
    raise TypeError(f"cannot stack results of type {type(first).__name__}")  # pragma: no cover


def vectorised_apply(core, func, x, /, *, cls, name="ratings", **kwargs):
    """A stack through a vectorised ``core``, items with a missing cell through the 2-D ``func``.

    ``core(items)`` takes the complete items, an (n_items, n_objects, n_raters) numeric array,
    and returns ``(fields, caught)``: the fields of ``cls`` (arrays of shape (n_items,) or values
    shared by every item) and an :class:`ItemWarnings`; or None when it cannot handle them (then
    every item goes through ``func``, as in :func:`stack_apply`). The items with a missing cell
    follow the 2-D function's own rule (listwise deletion, pairable values) one by one.
    """
    if is_dask(x):
        return dask_apply(lambda block: vectorised_apply(core, func, block, cls=cls, name=name, **kwargs),
                          x, name=name)
    arr = as_stack(x, name)
    shape = arr.shape[:-2]
    flat = arr.reshape((math.prod(arr.shape[:-2]),) + arr.shape[-2:])
    incomplete = (np.isnan(flat).any(axis=(1, 2)) if arr.dtype.kind == "f"
                  else np.zeros(len(flat), dtype=bool))
    done = None if incomplete.all() else core(flat[~incomplete] if incomplete.any() else flat)
    if done is None:
        return stack_apply(func, arr, name=name, **kwargs)
    fields, caught = done
    if incomplete.any():
        where = np.flatnonzero(incomplete)
        results, one_by_one = loop_items(func, flat[where], kwargs, name=name, shape=shape, indices=where)
        caught.merge(one_by_one)
        fields = {key: _merge_field(value, [getattr(r, key) for r in results], ~incomplete, where)
                  for key, value in fields.items()}
    caught.emit(len(flat))
    fields = {key: _reshape_field(value, shape) for key, value in fields.items()}
    return stacked_result(cls, fields, shape)


def _merge_field(fast, slow, fast_mask, slow_index):
    """One field of the complete items (``fast``) and of the others (``slow``, a list) in item order."""
    if isinstance(fast, ConfidenceInterval):
        return ConfidenceInterval(_merge_field(fast.low, [v.low for v in slow], fast_mask, slow_index),
                                  _merge_field(fast.high, [v.high for v in slow], fast_mask, slow_index))
    n_items = len(fast_mask)
    if isinstance(fast, np.ndarray) and fast.shape[:1] == (int(fast_mask.sum()),) and all(
            _is_number(v) for v in slow):
        out = np.empty(n_items, dtype=np.result_type(fast.dtype, np.asarray(slow).dtype))
        out[fast_mask] = fast
        out[slow_index] = slow
        return out
    if not isinstance(fast, np.ndarray) and all(_equal(v, fast) for v in slow):
        return fast
    out = np.empty(n_items, dtype=object)
    if isinstance(fast, np.ndarray) and fast.shape[:1] == (int(fast_mask.sum()),):
        out[fast_mask] = list(fast)
    else:
        out[np.flatnonzero(fast_mask)] = [fast] * int(fast_mask.sum())
    out[slow_index] = slow
    return out


# ------------------------------------------------------------------ count tables of many items
MAX_CODES = 64  # integer ratings spanning at most this many values are counted at once
_BLOCK_CELLS = 1 << 20  # count-table cells per block of items: the temporaries stay small


def small_integer_codes(arr):
    """``(codes, low)``: a numeric stack of integer values as codes ``arr - low`` (int64, shape
    (n_items, n_objects, n_raters)), or None when it is not one (labels, missing or non-integer
    values, or more than ``MAX_CODES`` distinct possible values)."""
    n, m = arr.shape[-2:]
    if arr.dtype.kind not in "iuf" or n < 1 or m < 2 or arr.size == 0:
        return None
    low, high = arr.min(), arr.max()
    if not (np.isfinite(low) and np.isfinite(high)) or high - low >= MAX_CODES:
        return None
    codes = arr - low
    if arr.dtype.kind == "f" and not np.array_equal(codes, np.floor(codes)):
        return None
    return codes.astype(np.int64).reshape((math.prod(arr.shape[:-2]), n, m)), low


def count_tables(codes):
    """Per item: sum_ij n_ij^2 and the category totals n_j (n_items x Q).

    ``n_ij`` (object i, category j) of all the items of a block come from one ``np.bincount`` of
    ``(item * n + object) * Q + code``: linear in the data, never a categories x categories table.
    """
    n_items, n, _ = codes.shape
    q = int(codes.max()) + 1
    step = max(1, _BLOCK_CELLS // (n * q))
    sum_sq = np.empty(n_items, dtype=np.int64)
    totals = np.empty((n_items, q), dtype=np.int64)
    row_offsets = (np.arange(min(step, n_items) * n) * q).reshape(-1, n, 1)
    for start in range(0, n_items, step):
        block = codes[start:start + step]
        b = block.shape[0]
        table = np.bincount((block + row_offsets[:b]).ravel(), minlength=b * n * q).reshape(b, n, q)
        sum_sq[start:start + b] = np.einsum("ijk,ijk->i", table, table)
        totals[start:start + b] = table.sum(axis=1)
    return sum_sq, totals


def used_categories(used, low, dtype, shape):
    """The categories field of a stack: the tuple of the values each item uses (one tuple when
    every item uses the same), built once per distinct pattern of ``used`` (n_items x Q)."""
    q = used.shape[1]
    if q <= 62:  # each pattern as the integer of its bits: np.unique of ints, much faster than axis=0
        keys, which = np.unique(used @ (np.int64(1) << np.arange(q, dtype=np.int64)), return_inverse=True)
        patterns = (keys[:, None] >> np.arange(q)) & 1 == 1
    else:
        patterns, which = np.unique(used, axis=0, return_inverse=True)
    labels = [tuple((low + np.flatnonzero(p)).astype(dtype).tolist()) for p in patterns]
    if len(labels) == 1:
        return labels[0]
    out = np.empty(len(labels), dtype=object)
    out[:] = labels
    return out[which.ravel()].reshape(shape)


# ------------------------------------------------------------------------------------- dask
#: Python's warning filters are global to a process, so that recording the warnings of a chunk
#: is not thread-safe: the chunks of one process (a threaded scheduler's workers) take turns.
#: Worker processes (``LocalCluster(processes=True)``, the default) still run in parallel.
_WARNINGS_LOCK = threading.Lock()


def _run_block(compute, block):
    with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = compute(block)
    return res, [(w.category, str(w.message)) for w in record]


def _concat(parts):
    """Concatenate stacked results (or frames) along their first stack axis."""
    first = parts[0]
    import pandas as pd

    if isinstance(first, pd.DataFrame):
        offset, frames = 0, []
        for p in parts:  # renumber the items of each block
            n = p.index.get_level_values(0).max() + 1
            frames.append(p.set_axis(p.index.set_levels(p.index.levels[0] + offset, level=0)))
            offset += int(n)
        return pd.concat(frames)
    shapes = [p._stack_shape for p in parts]
    shape = (sum(s[0] for s in shapes),) + shapes[0][1:]
    fields = {}
    for f in dataclasses.fields(type(first)):
        if not f.init:
            continue
        values = [getattr(p, f.name) for p in parts]
        fields[f.name] = _concat_field(values, shapes)
    return stacked_result(type(first), fields, shape)


def _concat_field(values, shapes):
    first = values[0]
    if isinstance(first, ConfidenceInterval):
        return ConfidenceInterval(_concat_field([v.low for v in values], shapes),
                                  _concat_field([v.high for v in values], shapes))
    if all(isinstance(v, np.ndarray) and v.shape[:len(s)] == s for v, s in zip(values, shapes, strict=True)):
        if all(v.shape[len(s):] == first.shape[len(shapes[0]):] for v, s in zip(values, shapes, strict=True)):
            return np.concatenate(values)
    if all(_equal(v, first) for v in values[1:]) and not isinstance(first, np.ndarray):
        return first
    out = []
    for v, s in zip(values, shapes, strict=True):  # one value per item, as objects
        block = np.empty(s, dtype=object)
        if isinstance(v, np.ndarray) and v.shape[:len(s)] == s:
            for idx in np.ndindex(s):
                block[idx] = v[idx]
        else:
            for idx in np.ndindex(s):
                block[idx] = v
        out.append(block)
    return np.concatenate(out)


def dask_apply(compute, x, /, *, name="ratings"):
    """``compute`` (numpy stack -> stacked result) chunk by chunk over the dask array ``x``.

    The leading axes of ``x`` are flattened to one axis of items, its last two axes are
    taken whole (an item is never split), and each chunk of items is one task of the
    active Dask scheduler (a ``dask.distributed.Client`` when one is running). The tasks
    return stacked results of their chunk, which are concatenated here: the call returns a
    computed result, never a lazy one. A worker holds one chunk and its result at a time.
    The chunks of one process run one at a time (their warnings are recorded, and Python's
    warning filters are global to a process): worker processes give the parallelism.
    """
    import dask

    if x.ndim < 3:
        raise ValueError(f"`{name}` must be a stack of shape (..., n_objects, n_raters); got {x.shape}.")
    shape, (n, k) = x.shape[:-2], x.shape[-2:]
    if any(isinstance(s, float) and math.isnan(s) for s in x.shape):
        raise ValueError(f"`{name}` must have known chunk sizes; call `.compute_chunk_sizes()` first.")
    items = x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1}).reshape((-1, n, k), merge_chunks=False)
    if math.prod(shape) == 0:
        raise ValueError(f"`{name}` must hold at least one item; got a stack of shape {x.shape}.")
    tasks = [dask.delayed(_run_block)(compute, block) for block in items.to_delayed().ravel()]
    done = dask.compute(*tasks)
    caught = ItemWarnings()
    for _, record in done:
        for category, message in record:
            n_items, _, rest = message.partition(" of ")
            total, _, text = rest.partition(" items: ")
            if n_items.isdigit() and total.isdigit():
                caught.add(category, text, int(n_items))
            else:
                caught.add(category, message)
    out = _concat([res for res, _ in done])
    caught.emit(math.prod(shape))
    if isinstance(out, Result):
        fields = {f.name: _reshape_field(getattr(out, f.name), shape)
                  for f in dataclasses.fields(out) if f.init}
        return stacked_result(type(out), fields, shape)
    return out


def _reshape_field(value, shape):
    if isinstance(value, ConfidenceInterval):
        return ConfidenceInterval(_reshape_field(value.low, shape), _reshape_field(value.high, shape))
    if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == math.prod(shape):
        return value.reshape(shape + value.shape[1:])
    return value
