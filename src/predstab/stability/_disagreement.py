"""The disagreements behind phi and psi, scale by scale: ``D_o,i`` per object and ``D_e``.

Counting engines over an (objects x repetitions) matrix: the sample variances of metric
refits (two-pass, block by block, as R's ``var``), the vote counts of categorical and ordinal
predictions (one ``np.bincount`` per block of rows, or a sparse table for many distinct
values), Krippendorff's ordinal distances from the baseline's counts, and the baseline's
expected disagreement. Every function takes the values :func:`~._scales.read_values` read
and returns arrays; the warnings about dropped values point at the user's call.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import sparse

from .._core._exceptions import PredstabDataWarning, warn_outside
from .._core._gate import check_labels, looks_continuous
from .._core._utils import missing_mask
from ._scales import ColumnCodes, Values, encode, match_keys

# values processed per block of rows: bounds the temporary memory of the counting pass
_BLOCK = 1 << 18
# a dense (values x objects) count table is used up to this many cells (or 4x the input)
_DENSE_CELLS = 1 << 20
# up to this many codes, counted by comparisons (one pass per code) rather than one np.bincount,
# for rows of up to 1020 values (each byte lane of a 32-bit word sums at most 255 ones)
_FEW_CODES = 8
_FEW_CODES_MAX_COLS = 1020


def _format_missing(n_missing, n_total):
    return f"{n_missing} out of {n_total} values are missing ({round(100.0 * n_missing / n_total, 2):g}%)"


# --------------------------------------------------------------------------- counting


def _row_counts(source, offset, n_codes, complete=False):
    """Counts of each code per row in one vectorised pass: ``(counts, n_missing)``.

    ``counts`` has shape (n_codes, n_rows) (codes x objects), ``n_missing`` (n_rows,).

    ``source - offset`` are codes in ``0..n_codes-1`` or -1 (missing). Codes are shifted
    by one so that missing values land in a column of their own; each block of rows
    is counted with a single ``np.bincount`` on ``row * (n_codes + 1) + code + 1`` (the
    order of the values does not matter to bincount, so column-wise blocks need no transpose).
    Counts are stored as int32 (at most the number of repetitions; uint8 or uint16 for few
    codes). ``complete``: no value is missing (integer or boolean data), so the last code's count
    is what the others leave.
    """
    n_rows, n_cols = source.shape
    width = n_codes + 1
    by_column = isinstance(source, ColumnCodes)
    if not by_column and n_codes <= _FEW_CODES and n_cols <= _FEW_CODES_MAX_COLS and source.size:
        return _row_counts_few(source, offset, n_codes, complete)
    table = np.empty((width, n_rows), dtype=np.int32)  # one contiguous row per code
    step = max(1, _BLOCK // max(n_cols, 1))
    for start in range(0, n_rows, step):
        stop = min(start + step, n_rows)
        m = stop - start
        base = np.arange(m, dtype=np.intp) * width + (1 - offset)
        if by_column:  # (columns x rows) block of a DataFrame of Categoricals
            flat = source.row_block(start, stop) + base[None, :]
        else:
            flat = source[start:stop] + base[:, None]
        table[:, start:stop] = np.bincount(flat.ravel(), minlength=m * width).reshape(m, width).T
    return table[1:], table[0]


def _row_counts_few(source, offset, n_codes, complete=False):
    """:func:`_row_counts` for a few codes: the same counts (uint8 or uint16), by comparisons and
    byte-wise sums.

    Per block of rows and per code, ``block == code`` is a 0/1 byte per value; the bytes of a row,
    read as 32-bit words (the row padded to a multiple of 4 bytes with zeros), are summed as
    words: each byte of the sum counts the matches in one of the 4 lanes (at most
    ``ceil(R / 4) <= 255``, so no carry crosses a lane), and the 4 lanes are added at the end.
    Exact integer counts as ``np.bincount``'s, about as fast as one ``np.bincount`` of the whole
    matrix at 5 codes (bincount's increments of one counter per value are the slow part). Missing
    values (code -1) are the values left over; with ``complete`` (none can be missing) the last
    code is, and its pass is saved.
    """
    n_rows, n_cols = source.shape
    padded = -(-n_cols // 4) * 4
    # one contiguous row per code, of the smallest type that holds a row's count (a quarter of
    # int32's memory at up to 255 refits: less fresh memory for the first call to touch)
    table = np.empty((n_codes + 1, n_rows), dtype=np.uint8 if n_cols <= 255 else np.uint16)
    step = max(1, _BLOCK // padded)
    match = np.zeros((min(step, n_rows), padded), dtype=bool)  # the padding stays False
    lanes = np.empty(min(step, n_rows), dtype=np.uint32)
    low16 = np.uint32(0x00FF00FF)
    for start in range(0, n_rows, step):
        block = source[start:start + step]
        m = block.shape[0]
        out, words = lanes[:m], match[:m].view(np.uint32)
        for code in range(n_codes - 1 if complete else n_codes):
            np.equal(block, code + offset, out=match[:m, :n_cols])
            np.einsum("ij->i", words, out=out)  # exact: no lane exceeds 255
            out[:] = (out & low16) + ((out >> 8) & low16)  # two 16-bit lanes
            table[code + 1, start:start + m] = (out & np.uint32(0xFFFF)) + (out >> 16)
    counted = table[1:n_codes] if complete else table[1:]
    left = table[n_codes] if complete else table[0]
    left[:] = n_cols
    left -= counted.sum(axis=0, dtype=table.dtype)  # at most n_cols: no wrap-around
    if complete:
        table[0] = 0
    return table[1:], table[0]


def _row_variances(x, fourth=False):
    """Sample variances (denominator ``n_i - 1``) and non-missing counts of each row.

    With ``fourth``, also each row's sum of fourth powers of the deviations from its mean
    (for the kurtosis of the refits), from the same deviations while they are in cache.

    Two-pass (mean, then squared deviations) as R's ``var``, block by block so that each
    block stays in cache. Rows whose values are all equal get an exact 0 (the shared
    convention needs exact zeros; rounding in the mean would otherwise leave ~1e-33).
    """
    n_rows, n_cols = x.shape
    var = np.empty(n_rows)
    sum4 = np.empty(n_rows) if fourth else None
    count = np.full(n_rows, n_cols, dtype=np.int64)
    step = max(1, _BLOCK // max(n_cols, 1))
    eps = np.finfo(float).eps
    for start in range(0, n_rows, step):
        block = x[start:start + step]
        total = block.sum(axis=1)
        mean = total / n_cols
        dev = block - mean[:, None]
        v = np.einsum("ij,ij->i", dev, dev) / (n_cols - 1) if n_cols > 1 else np.full(len(block), np.nan)
        if fourth:
            dev *= dev
            s4 = np.einsum("ij,ij->i", dev, dev)
        cnt = count[start:start + block.shape[0]]
        # rows with a missing value are the rows whose sum is not finite: redo only those
        redo = np.flatnonzero(~np.isfinite(total))
        if redo.size:
            sub = block[redo]
            missing = np.isnan(sub)
            c = n_cols - missing.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                m = np.where(missing, 0.0, sub).sum(axis=1) / c
                d = np.where(missing, 0.0, sub - m[:, None])
                v[redo] = np.einsum("ij,ij->i", d, d) / (c - 1)
                if fourth:
                    s4[redo] = np.einsum("ij,ij->i", d * d, d * d)
            v[redo[c < 2]] = np.nan
            mean[redo] = m
            cnt[redo] = c
        # only rows within rounding of zero can be constant: check those exactly
        with np.errstate(invalid="ignore"):
            near_zero = np.flatnonzero(v <= (4.0 * n_cols * eps * np.abs(mean)) ** 2)
        if near_zero.size:
            sub = block[near_zero]
            low = np.where(np.isnan(sub), np.inf, sub).min(axis=1)
            high = np.where(np.isnan(sub), -np.inf, sub).max(axis=1)
            v[near_zero[low == high]] = 0.0
        var[start:start + block.shape[0]] = v
        if fourth:
            sum4[start:start + block.shape[0]] = s4
    if fourth:
        return var, count, sum4
    return var, count


def _ordinal_delta2(level_counts):
    """Krippendorff's squared ordinal distances from the baseline's level COUNTS ``m_g``.

    ``delta(c, k) = m_c/2 + sum_{c<g<k} m_g + m_k/2``: the distance between the
    positions ``t_c = sum_{g<=c} m_g - m_c/2`` (half-integers, so exact in floating point).
    """
    m = np.asarray(level_counts, dtype=float)
    position = np.cumsum(m) - m / 2.0
    return (position[:, None] - position[None, :]) ** 2


# --------------------------------------------------------------------------- D_o and D_e


def _baseline_vector(base, name):
    """The pooled baseline (a matrix becomes one vector), with missing values dropped."""
    arr = base.array.ravel()
    if base.categories is not None:
        keep = arr >= 0
        n_missing = int(arr.size - keep.sum())
        flat = arr[keep]
        values = Values(flat, base.family, base.integer, base.categories, base.ordered)
    else:
        miss = missing_mask(arr)
        n_missing = int(miss.sum())
        values = Values(arr[~miss], base.family, base.integer)
    if n_missing:
        warn_outside(
            f"The training data (`{name}`) contains missing values (NAs): "
            f"{_format_missing(n_missing, arr.size)}; they are dropped.", PredstabDataWarning)
    n_left = values.array.size
    if n_left < 2:
        raise ValueError(
            f"The training data (`{name}`) must contain at least two elements (non-missing); got {n_left}."
        )
    return values


def _warn_missing_predictions(n_missing, n_total, name):
    if n_missing:
        warn_outside(f"`{name}` contains missing values (NAs): {_format_missing(n_missing, n_total)}; "
                     "they are dropped.", PredstabDataWarning)


def _metric_array(values, baseline=False):
    x = values.array
    if values.categories is not None:  # a Categorical of numbers read on the metric scale
        cats = np.asarray(values.categories, dtype=float)
        x = (cats if baseline else np.append(cats, np.nan))[np.asarray(x)]
    return np.asarray(x, dtype=float)


def _observed_metric(x, name):
    with np.errstate(invalid="ignore"):  # inf - inf in a row with an infinite value: rejected below
        d_o, count, sum4 = _row_variances(x, fourth=True)
    _reject_infinite(x, d_o, name)
    _warn_missing_predictions(int(x.size - count.sum()), x.size, name)
    return d_o, count, x, _MetricMoments(count, d_o, sum4)


class _MetricMoments:
    """Per object: ``(count, sum of squared deviations, sum of their fourth powers)``, read as a
    sequence of three arrays (``moments[1]``, ``_, s2, s4 = moments``).

    ``count`` is the counts' own array and the squares ``d_o (count - 1)`` are computed when
    read, so that neither stays beside ``d_o`` while phi holds its per-object arrays (the stack
    of three copies was 0.03x the input at 100 refits, 24 MB at 1e6 objects).
    """

    __slots__ = ("count", "d_o", "s4")

    def __init__(self, count, d_o, s4):
        self.count, self.d_o, self.s4 = count, d_o, s4

    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i in (1, -2):
            s2 = self.count - 1.0
            s2 *= self.d_o  # NaN (fewer than 2 values) times 0 or 1: quiet, no warning to silence
            return s2
        return (self.count, None, self.s4)[i]

    def __iter__(self):
        return iter((self[0], self[1], self[2]))


def _reject_infinite(x, variances, name):
    """An infinite value makes its row's variance NaN; without this check the row would be
    dropped as if it had fewer than two values (or D_e would be NaN without a warning)."""
    if np.isnan(variances).any() and np.isinf(x).any():
        raise ValueError(f"`{name}` must hold finite values on the metric scale; got "
                         f"{int(np.isinf(x).sum())} infinite value(s).")


def _expected_metric(x, name):
    x = x[None, :]
    with np.errstate(invalid="ignore"):
        var, _ = _row_variances(x)
    _reject_infinite(x, var, name)
    return float(var[0])


def _category_space(base, scale, levels, names):
    """Categories, their baseline counts and the map from prediction codes to them."""
    b_source, b_offset, b_uniques = encode(base)
    b_codes = np.asarray(b_source, dtype=np.intp).ravel() - b_offset
    b_present = np.bincount(b_codes, minlength=len(b_uniques)) > 0
    b_uniques, b_counts = b_uniques[b_present], np.bincount(b_codes, minlength=len(b_uniques))[b_present]
    if scale == "ordinal":
        to_level = _level_codes(b_uniques, levels, names, what="values", holder="the training data contain")
        categories = tuple(levels)
        counts = np.zeros(len(levels), dtype=np.int64)
        counts[to_level] = b_counts
        base_to_category = to_level
    else:
        order = _sorted_order(b_uniques)
        b_uniques, b_counts = b_uniques[order], b_counts[order]
        categories = tuple(v.item() if isinstance(v, np.generic) else v for v in b_uniques)
        counts = b_counts
        base_to_category = np.arange(len(b_uniques))
    return categories, counts, b_uniques, base_to_category


def _row_counts_sparse(source, offset, n_codes):
    """As :func:`_row_counts` for many distinct values: a sparse (objects x codes) table."""
    n_rows, n_cols = source.shape
    codes = np.asarray(source, dtype=np.intp).ravel() - offset
    valid = codes >= 0
    rows = np.repeat(np.arange(n_rows, dtype=np.intp), n_cols)[valid]
    table = sparse.csr_matrix((np.ones(rows.size, dtype=np.int64), (rows, codes[valid])),
                              shape=(n_rows, n_codes))
    table.sum_duplicates()
    n_missing = n_cols - np.bincount(rows, minlength=n_rows)
    return table, n_missing


def _first_of_each(table, total=None):
    """``(first, inverse)`` of the distinct rows of a dense integer table: the first row of each
    distinct row and each row's index among them (in the order of their first rows), or None when
    there are hardly fewer distinct rows than rows (or their codes would not fit in 64 bits).

    One integer code per row (linear). Where the codes span at most 4 per row (each column's
    range from its minimum; a column the others and a common row total determine left out), the
    distinct codes are marked in a table of all codes, two random passes over the rows (about half
    the time of hashing them; uniform random votes of 1e6 objects, 100 refits, 5 classes); else
    they are hashed (``pd.factorize``). Either way the same ``(first, inverse)``. ``total``: each
    row's sum, when known (a count table's non-missing counts).
    """
    table = np.asarray(table)
    n_rows = table.shape[0]
    if n_rows < 2 or table.size == 0:
        return None
    columns = list(table.T)
    if len(columns) > 1 and columns[0].dtype.kind in "iu":
        if total is None:
            total = table.sum(axis=1, dtype=np.int64)
        if total.min() == total.max():  # every row the same total: the last column follows from the others
            columns.pop()
    low = [int(c.min()) for c in columns]
    widths = [int(c.max()) - lo + 1 for c, lo in zip(columns, low, strict=True)]
    if sum(math.log2(w) for w in widths) >= 62:
        return None
    n_codes = math.prod(widths)
    dense = n_codes <= 4 * n_rows + 4096 and n_codes < 2**30 and max(map(abs, low)) < 2**30
    code = np.zeros(n_rows, dtype=np.int32 if dense else np.int64)  # int32: less fresh memory
    for column, lo, width in zip(columns, low, widths, strict=True):
        code *= width
        if lo:
            code -= lo  # first: code stays within (-2^30, n_codes)
        code += column
    if dense:
        seen = np.full(n_codes, -1, dtype=np.int32)
        seen[code[::-1]] = np.arange(n_rows - 1, -1, -1, dtype=np.int32)  # each code's first row
        present = np.flatnonzero(seen >= 0)
        if present.size > n_rows // 2:
            return None
        rows = seen[present]
        order = np.argsort(rows, kind="stable")  # the codes by their first row
        first = rows[order].astype(np.intp)
        seen[present[order]] = np.arange(present.size, dtype=np.int32)
        return first, seen[code].astype(np.intp)
    inverse, uniques = pd.factorize(code)
    if len(uniques) > n_rows // 2:
        return None
    first = np.empty(len(uniques), dtype=np.intp)
    first[inverse[::-1]] = np.arange(n_rows - 1, -1, -1)  # each code's first row
    return first, inverse


def _pair_sums(columns, category, delta2):
    """``sum_c sum_k n_ic n_ik delta2[c, k]`` per object from count columns of the given categories."""
    if len(columns) > 16:  # many categories: one (N x K) @ (K x K) product
        counts = np.stack(columns, axis=1).astype(float)
        return np.einsum("nk,nk->n", counts @ delta2[np.ix_(category, category)], counts)
    # few categories: BLAS is slow for tiny K, so sum the K(K-1)/2 pairs as vector operations,
    # each column made float once, in place (the same products and sums as weight * (n_a * n_b))
    total = np.zeros(len(columns[0]) if columns else 0)
    floats = [np.asarray(c, dtype=float) for c in columns]
    product = np.empty_like(total)
    for a in range(len(columns)):
        for b in range(a + 1, len(columns)):
            weight = 2.0 * delta2[category[a], category[b]]
            if weight != 0:
                np.multiply(floats[a], floats[b], out=product)
                product *= weight
                total += product
    return total


def _observed_categorical(pred, b_uniques, base_to_category, n_categories, delta2, names,
                          absent_to_category=None):
    """Per-object ``D_o,i``, non-missing counts, the (objects x categories) count table and its
    distinct rows (:func:`_first_of_each`; None for a sparse table or hardly any repeated rows).

    The table is a dense int array or, for many distinct values, a CSR matrix. A prediction
    value absent from the baseline raises APS's error unless ``absent_to_category`` maps such
    values to categories (psi: a category absent from the baseline has share 0 in ``D_e``).
    """
    source, offset, uniques = encode(pred)
    n_rows, n_cols = source.shape
    dense = n_rows * (len(uniques) + 1) <= max(4 * source.size, _DENSE_CELLS)
    if dense:
        # integer or boolean data hold no missing value (NaN makes an array float or object)
        complete = pred.categories is None and np.asarray(pred.array).dtype.kind in "biu"
        raw, n_missing = _row_counts(source, offset, len(uniques), complete)
        present = np.flatnonzero(raw.any(axis=1))
    else:
        raw, n_missing = _row_counts_sparse(source, offset, len(uniques))
        present = np.unique(raw.indices)
    _warn_missing_predictions(int(n_missing.sum()), source.size, names.predictions)
    if present.size == 0:  # every prediction missing (the count arithmetic below needs a category)
        raise ValueError(
            f"`{names.predictions}` has no object with at least two non-missing predictions; "
            "stability cannot be computed."
        )
    to_base = match_keys(uniques[present], b_uniques, as_text=False)
    known = to_base >= 0
    continuous = pred.family == "numeric" and looks_continuous(uniques[present], source.size)
    if continuous and (known.all() or absent_to_category is not None):
        check_labels(uniques[present], source.size, name=names.predictions, use="scale='metric'")
    category = np.empty(present.size, dtype=np.intp)
    category[known] = base_to_category[to_base[known]]
    if not known.all():
        absent = [uniques[j] for j in present[~known]]
        if absent_to_category is None:
            hint = ""
            if continuous:
                hint = (f"; `{names.predictions}` looks continuous ({present.size} distinct numbers in "
                        f"{source.size} values), and scale='categorical' or 'ordinal' reads every distinct "
                        "number as a class: for numbers use scale='metric'")
            raise ValueError(
                "Some prediction values do not occur in the training data: "
                f"`{names.predictions}` contains {absent[:5]!r}{' ...' if len(absent) > 5 else ''}, "
                f"absent from `{names.baseline}`{hint}."
            )
        category[~known] = absent_to_category(absent)
        n_categories = max(n_categories, int(category.max()) + 1)
    r = n_cols - np.asarray(n_missing, dtype=np.int64)
    if dense:
        # distinct values map to distinct categories, so the raw count rows are the counts:
        # one contiguous column per category (Fortran order), read a category at a time by the
        # intervals; the raw table itself when its codes are the categories in order (no copy)
        if n_categories == raw.shape[0] and np.array_equal(category, np.arange(n_categories)) and \
                np.array_equal(present, category):
            table = raw.T
        else:
            table = np.zeros((n_rows, n_categories), dtype=raw.dtype, order="F")
            for j, c in zip(present, category, strict=True):
                table[:, c] = raw[j]
        distinct = _first_of_each(table, r)  # found once for D_o,i, the intervals, the refit variances
        return _dense_observed(raw, present, category, r, delta2, distinct), r, table, distinct
    lut = np.full(len(uniques), -1, dtype=np.intp)
    lut[present] = category
    table = sparse.csr_matrix((raw.data, lut[raw.indices], raw.indptr), shape=(n_rows, n_categories))
    if delta2 is None:
        disagree = (r * r - np.asarray(table.multiply(table).sum(axis=1)).ravel()).astype(float)
    else:
        disagree = np.asarray(table.multiply(table @ delta2).sum(axis=1)).ravel().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_o = disagree / (r * (r - 1)).astype(float)
    d_o[r < 2] = np.nan
    return d_o, r, table, None


def _dense_observed(raw, present, category, r, delta2, distinct):
    """``D_o,i`` from the raw count rows ``raw[present]`` (of categories ``category``), once per
    distinct vote table when ``distinct`` (the table's :func:`_first_of_each`) is known: the same
    numbers, row by row."""
    first, inverse = distinct if distinct is not None else (slice(None), None)
    counts = [raw[j][first] for j in present]
    r = r[first]
    if delta2 is None:  # categorical: disagreeing ordered pairs R_i^2 - sum_c n_ic^2
        same = np.zeros(len(r), dtype=np.int64)
        for column in counts:  # the int32 counts squared in int64 (no overflow)
            same += np.square(column, dtype=np.int64)
        disagree = (r * r - same).astype(float)
    else:  # ordinal: sum_c sum_k n_ic n_ik delta^2(c, k)
        disagree = _pair_sums(counts, category, delta2)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_o = disagree / (r * (r - 1)).astype(float)
    d_o[r < 2] = np.nan
    return d_o if inverse is None else d_o[inverse]


def _level_codes(values, levels, names, *, what, holder):
    """The positions of ``values`` among the ordered ``levels``; APS's error naming the values that
    are not levels (five at most)."""
    codes = match_keys(values, levels, not _same_family(list(levels), values))
    if (codes < 0).any():
        absent = [v for v, j in zip(values, codes, strict=True) if j < 0]
        raise ValueError(
            f"Some {what} do not occur in '{names.categories}' (`{names.categories}`): {holder} "
            f"{absent[:5]!r}{' ...' if len(absent) > 5 else ''} but the levels are {list(levels)!r}."
        )
    return codes


def _same_family(levels, uniques):
    def fam(v):
        if isinstance(v, (bool, np.bool_)):
            return "logical"
        if isinstance(v, (int, float, np.integer, np.floating)):
            return "numeric"
        return "character"
    return {fam(v) for v in levels} | {fam(v) for v in uniques} <= {fam(levels[0])}


def _sorted_order(uniques):
    try:
        return np.argsort(np.asarray(uniques), kind="stable")
    except TypeError:
        return np.arange(len(uniques))


def _pair_weights(table, count, kept):
    """``W = mean_i n_i n_i' / (R_i (R_i - 1))`` over the kept objects (for the ordinal delta method)."""
    dense = np.asarray(table.toarray() if hasattr(table, "toarray") else table, dtype=float)[kept]
    r = count[kept].astype(float)
    return (dense / (r * (r - 1))[:, None]).T @ dense / r.size


def _absent_mapper(scale, categories, names):
    """psi: map predicted values absent from the baseline to categories with share 0 in ``D_e``.

    Categorical: each becomes a new category (appended; sorted in afterwards). Ordinal: the
    value must be one of the levels (its baseline count is 0 and the level keeps its place).
    """
    def to_category(values):
        if scale == "ordinal":
            return _level_codes(values, categories, names, what="prediction values",
                                holder=f"`{names.predictions}` contains")
        start = len(categories)
        categories.extend(v.item() if isinstance(v, np.generic) else v for v in values)
        return np.arange(start, len(categories), dtype=np.intp)
    return to_category
