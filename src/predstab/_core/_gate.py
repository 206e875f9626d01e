"""The one gate for input: what an array means, decided in one place for the API and the CLI.

Every public function that reads a prediction or rating matrix, and every command of the CLI
(which calls those functions), asks this module what its input means:

- **Orientation** (:func:`check_orientation`): a matrix must have objects in rows and
  replicates (refits, members, raters) in columns. ``np.stack([m.predict(X) for m in
  members])`` gives the other orientation; such a matrix is recognised, by its shape and its
  content where the shape cannot tell (see the rule there), and a
  :class:`~predstab.PredstabOrientationWarning` says so. A user whose matrix is meant
  that way says so by filtering that warning category.
- **R's row names** (:func:`check_row_names`): ``pandas.read_csv`` of a file of R's
  ``write.csv`` keeps the row names as a first column ``Unnamed: 0`` (1..n), which would count
  as one more rater.
- **Numbers read as labels** (:func:`check_labels`, :func:`numbers_if_numeric`): continuous
  values given to a measure of categories, and numbers in an object array or a nullable
  pandas dtype, which are numbers.
- **Masked arrays** (:func:`unmask`, :func:`refuse_masked`): a masked cell is a
  missing value everywhere, never the number under the mask. A function that drops missing
  values (the agreement measures, as R's ``na.omit``) drops it; one that refuses them
  (``predstab.compare``, whose tests need complete pairs) refuses it, naming the count.
- **Ordered categoricals** (:func:`check_categories_order`): an ordered pandas Categorical
  and a ``categories=`` in another order contradict each other.
- **Targets** (:func:`check_target_kind`, :func:`check_responses`): a continuous target given to
  a class task; missing or infinite responses to fit on; masked features and responses to fit
  and predict on (:func:`check_fit_data`).

The checks are cheap: shapes and dtypes, one column, or the distinct values a measure has
already found; the orientation reads the data only where the shape cannot tell, on a bounded
sample, and a tall matrix not at all (a 10^6 x 100 matrix passes in microseconds).
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np
import pandas as pd

from ._exceptions import PredstabDataWarning, PredstabOrientationWarning, warn_outside
from ._utils import missing_mask

__all__ = ["InputError", "check_orientation", "check_probabilities", "described_as", "check_row_names",
           "check_column_names",
           "looks_continuous",
           "check_labels", "numbers_if_numeric", "unmask", "refuse_masked", "check_categories_order",
           "ordered_categories",
           "check_target_kind", "looks_transposed", "check_responses", "check_fit_data"]


# How a surface (the CLI) names a parameter in the gate's messages: {"ratings": ("RATINGS 'f.csv'",
# "add --transpose")}. A context variable, so threads keep their own.
class InputError(ValueError):
    """A problem with the user's input that the CLI reports as one line (exit code 2)."""


_DESCRIBED = contextvars.ContextVar("predstab_gate_described", default=None)


@contextlib.contextmanager
def described_as(**names):
    """Within the block, the gate's messages call parameter ``name`` by ``names[name]``:
    a ``(what, option)`` pair (e.g. ``("RATINGS 'r.csv'", "--transpose")``), for the CLI,
    whose users pass files and options, not arrays."""
    token = _DESCRIBED.set({**(_DESCRIBED.get() or {}), **names})
    try:
        yield
    finally:
        _DESCRIBED.reset(token)


# ----------------------------------------------------------------------------- orientation
#: what pandas.api.types.infer_dtype says of an object array of numbers
_NUMBER_KINDS = {"integer", "floating", "mixed-integer-float", "decimal"}
#: at most this many columns (evenly spaced) are looked at: both statistics are means over
#: lines, so a sample estimates them without bias, and a very wide matrix costs no more
_MAX_COLUMNS = 4096


def _line_agreement(matrix) -> float:
    """Mean over rows of the chance that two different cells of a row hold the same value
    (missing values count as one more value): an unbiased estimate whatever the row length,
    so long rows and short columns compare fairly. Linear in the size of ``matrix``."""
    # use_na_sentinel=False: a missing cell (None, NaN) gets a code of its own, not -1
    codes, uniques = pd.factorize(pd.Series(np.asarray(matrix, dtype=object).ravel()).astype(str),
                                  use_na_sentinel=False)
    n_rows, n_cols = matrix.shape
    k = max(len(uniques), 1)
    counts = np.bincount(np.repeat(np.arange(n_rows), n_cols) * k + codes,
                         minlength=n_rows * k).reshape(n_rows, k).astype(float)
    return float(np.mean((counts * (counts - 1)).sum(axis=1) / (n_cols * (n_cols - 1))))


#: a matrix neither of whose sides is ``ratio`` times the other is judged on at most this many
#: evenly spaced rows and columns (the statistics are means over lines: a sample estimates them)
_MAX_SQUARE_LINES = 512
#: the square rule: the columns must differ at this level (F test of the two-way layout) ...
_SQUARE_LEVEL = 1e-4
#: ... and their variance component be this many times the rows' one. Stacked members of real
#: ensembles give 5 to 10^4 (a forest's trees, an MLP ensemble, bagged k-NN, boosting seeds; a weak
#: classification forest on 60 training rows 3.9), the same predictions with objects in rows 0.26 at
#: most; Shrout and Fleiss' (1979) judges, whose leniencies differ widely, give 2.05
_SQUARE_FACTOR = 4
#: ... in a matrix of at least this many rows and columns: 4 of Shrout and Fleiss' targets (their
#: judges' leniency 5.4 x the targets' spread) would be taken for a stack
_SQUARE_MIN = 5


def _evenly(n, at_most):
    """At most ``at_most`` evenly spaced positions in ``range(n)`` (all of them when ``n`` is small)."""
    return slice(None) if n <= at_most else np.linspace(0, n - 1, at_most).astype(np.intp)


def _as_numbers(matrix):
    """``matrix`` as floats (missing values NaN) when it holds numbers, else None (labels)."""
    if matrix.dtype.kind in "fiub":
        return matrix.astype(float)
    if matrix.dtype.kind != "O":
        return None
    missing = missing_mask(matrix)
    if pd.api.types.infer_dtype(matrix[~missing], skipna=True) not in _NUMBER_KINDS:
        return None
    out = np.full(matrix.shape, np.nan)
    out[~missing] = matrix[~missing].astype(float)
    return out


def _two_way_sums(matrix):
    """``(ss_rows, ss_columns, ss_error, n_cells)`` of the two-way layout of ``matrix``: of its
    numbers (NaN and infinities are absent; the error is the residual from the row and column
    means, which with absent cells is at least the least-squares one: the F test is then
    conservative), or, for labels, summed over the indicator of each label (a missing label
    is one more label, as in :func:`_line_agreement`). Linear in the size of ``matrix``,
    whatever the number of distinct labels."""
    n_rows, n_cols = matrix.shape
    numbers = _as_numbers(matrix)
    if numbers is not None:
        # no BLAS over the whole matrix (np.vdot): on a loaded machine its threads made the sum of
        # squares of a 200 x 200 matrix 36 ms instead of 25 us
        with np.errstate(invalid="ignore", over="ignore"):
            complete = bool(np.isfinite(numbers.sum()))  # no NaN, no infinity, no overflow
        if complete:  # the usual case, in a few passes: the error is the rest of the total
            z = numbers  # a copy: centred, then scaled in place
            z -= z.sum() / z.size
            scale = float(np.abs(z).max())
            if scale == 0:
                return 0.0, 0.0, 0.0, z.size
            z /= scale
            row_sums, col_sums = z.sum(axis=1), z.sum(axis=0)
            # (vectors of at most 512: a BLAS dot of them runs in one thread)
            ss_rows, ss_cols = float(row_sums @ row_sums) / n_cols, float(col_sums @ col_sums) / n_rows
            return ss_rows, ss_cols, float(np.einsum("ij,ij->", z, z)) - ss_rows - ss_cols, z.size
        present = np.isfinite(numbers)
        in_rows, in_cols = present.sum(axis=1), present.sum(axis=0)
        n_present = int(in_rows.sum())
        if n_present == 0:
            return 0.0, 0.0, 0.0, 0
        z = np.where(present, numbers, 0.0)
        z /= float(np.abs(z).max()) or 1.0  # first: a sum of huge finite values would overflow
        z = np.where(present, z - z.sum() / n_present, 0.0)  # centred, then scaled
        scale = float(np.abs(z).max())
        if scale == 0:
            return 0.0, 0.0, 0.0, n_present
        z /= scale
        row_means = z.sum(axis=1) / np.maximum(in_rows, 1)
        col_means = z.sum(axis=0) / np.maximum(in_cols, 1)
        error = np.where(present, z - row_means[:, None] - col_means[None, :], 0.0)
        return (float(np.sum(in_rows * row_means ** 2)), float(np.sum(in_cols * col_means ** 2)),
                float(np.einsum("ij,ij->", error, error)), n_present)
    # labels: sum over labels k of the sums of squares of the indicator of k. With c_ik the count
    # of label k in line i (of length n_i) and p_k its share overall, the lines add up
    # sum_i sum_k c_ik^2 / n_i - n sum_k p_k^2 (n cells): no table of lines x labels is built
    codes, uniques = pd.factorize(pd.Series(np.asarray(matrix, dtype=object).ravel()), use_na_sentinel=False)
    n_labels, n_cells = len(uniques), n_rows * n_cols
    shares = np.bincount(codes, minlength=n_labels) / n_cells
    sum_sq_shares = float(shares @ shares)

    def lines(line_of_cell, line_length):
        _, counts = np.unique(line_of_cell * n_labels + codes, return_counts=True)
        return float(np.sum(counts.astype(float) ** 2) / line_length - n_cells * sum_sq_shares)

    cells = np.arange(n_cells)
    ss_rows, ss_cols = lines(cells // n_cols, n_cols), lines(cells % n_cols, n_rows)
    return ss_rows, ss_cols, n_cells * (1 - sum_sq_shares) - ss_rows - ss_cols, n_cells


def _columns_dominate(matrix) -> bool:
    """The square rule: the columns differ (their F test in the two-way layout at
    ``_SQUARE_LEVEL``) and the between-column variance component is at least ``_SQUARE_FACTOR``
    times the between-row one (taken as 0 when its estimate is negative)."""
    from scipy.special import fdtrc

    n_rows, n_cols = matrix.shape
    if matrix.dtype.kind in "fiub" and n_cols <= _SQUARE_FACTOR * n_rows:
        # the usual case (objects in rows) from the line sums alone, without a copy of the matrix: when
        # the rows' mean square is the larger, the columns' component cannot be 4 times the rows' one
        # ((ms_cols - ms_error) / n_rows > 4 (ms_rows - ms_error) / n_cols needs n_cols > 4 n_rows)
        with np.errstate(invalid="ignore", over="ignore"):
            row_sums, col_sums = matrix.sum(axis=1, dtype=np.float64), matrix.sum(axis=0, dtype=np.float64)
            row_sums -= row_sums.sum() / n_rows
            col_sums -= col_sums.sum() / n_cols
            ms_rows, ms_cols = (row_sums @ row_sums) / (n_rows - 1), (col_sums @ col_sums) / (n_cols - 1)
        if ms_rows / n_cols > ms_cols / n_rows * (1 + 1e-9):  # False for NaN or inf: the full rule below
            return False
    ss_rows, ss_cols, ss_error, n_present = _two_way_sums(matrix)
    df_error = n_present - n_rows - n_cols + 1
    if ss_cols <= 0 or df_error < 1:
        return False
    # a zero residual (replicates identical, or exactly additive): the smallest one the sums resolve
    ms_error = max(ss_error, 1e-12 * (ss_rows + ss_cols)) / df_error
    ms_rows, ms_cols = ss_rows / (n_rows - 1), ss_cols / (n_cols - 1)
    between_rows = max((ms_rows - ms_error) / n_cols, 0.0)
    between_cols = (ms_cols - ms_error) / n_rows
    if not between_cols > _SQUARE_FACTOR * between_rows:
        return False  # objects x replicates, the usual case: decided without the F distribution
    return bool(fdtrc(n_cols - 1, df_error, ms_cols / ms_error) < _SQUARE_LEVEL)


def looks_transposed(matrix, *, ratio=3) -> bool:
    """The rule of :func:`check_orientation` (no warning), by the shape of ``matrix`` first:

    - at least ``ratio`` times more rows than columns (objects x a few replicates, the usual
      shape): never transposed, and the data are not read;
    - at least ``ratio`` times more columns than rows (and 2 rows or more), *wide*: True when
      its columns agree clearly more than its rows (variances, or for labels the chance that
      two cells agree);
    - neither (5 or more of each), *square*: True when the between-column variation dominates
      the between-row one in the two-way layout (:func:`_columns_dominate`), as in members x
      objects, where the objects differ and the members agree."""
    shape = np.shape(matrix)
    if len(shape) != 2 or shape[0] < 2 or shape[0] >= ratio * shape[1]:
        return False  # the common case (objects in rows, a few replicates): decided by the shape alone
    if shape[1] < ratio * shape[0]:
        if min(shape) < _SQUARE_MIN:
            return False  # 4 rating targets of 4 judges (a table of an example) are not a stack
        matrix = np.asarray(matrix)
        if max(shape) > _MAX_SQUARE_LINES:
            matrix = matrix[_evenly(shape[0], _MAX_SQUARE_LINES)][:, _evenly(shape[1], _MAX_SQUARE_LINES)]
        return _columns_dominate(matrix)
    matrix = np.asarray(matrix)
    if matrix.shape[1] > _MAX_COLUMNS:
        matrix = matrix[:, np.linspace(0, matrix.shape[1] - 1, _MAX_COLUMNS).astype(np.intp)]
    if matrix.dtype.kind in "fiub":
        values = matrix.astype(float)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            along_rows = np.nanmean(np.nanvar(values, axis=1, ddof=1))
            down_columns = np.nanmean(np.nanvar(values, axis=0, ddof=1))
        if down_columns < 0.5 * along_rows:
            return True
        with np.errstate(invalid="ignore"):
            whole = bool(np.all((values == np.round(values)) | np.isnan(values)))
        if not whole:
            return False  # measurements: the variances decide
        # whole numbers may be class labels (0/1 of a classifier's members): the rule of labels too
    return _line_agreement(matrix.T) > _line_agreement(matrix) + 0.1


def check_orientation(matrix, *, name="ratings", what=None, option=None, ratio=3, fix=None) -> bool:
    """Warn (:class:`~predstab.PredstabOrientationWarning`) when ``matrix`` looks transposed
    (replicates in rows, objects in columns); return True when it does.

    A prediction or rating matrix has objects in rows and replicates (refits, members,
    raters) in columns, so its values agree more along a row than down a column. The shape
    decides first (``ratio``, default 3):

    - **tall** (at least ``ratio`` times more rows than columns, the usual objects x a few
      replicates): never warned about, and the data are not read (no cost: a 10^6 x 100
      matrix passes in microseconds). A stack of ``ratio`` times more members than objects
      therefore passes unseen: pass it as ``np.column_stack``.
    - **wide** (at least ``ratio`` times more columns than rows, 2 rows or more): warned
      about when the columns agree clearly more than the rows: for numbers, a mean variance
      (``ddof=1``) down the columns below half the one along the rows; for categories (and
      whole numbers, which may be class labels), a chance that two cells agree at least 0.1
      higher down the columns than along the rows. Both are unbiased whatever the line
      length, so unstructured data do not trigger it. Judged on at most 4096 evenly spaced
      columns.
    - **square** (neither; 5 rows and 5 columns or more: e.g. 60 trees x 25 objects, or
      25 objects x 60 trees): the two-way layout (of the numbers, or of the indicators of the
      labels) decides: warned about when the columns differ (F test, p < 10^-4) and their
      variance component is at least 4 times the rows' one -- the objects differ and the
      members agree, as in a stack of members. Real stacks give 5 to 10^4 (a forest's trees,
      an MLP ensemble), the same predictions with objects in rows 0.26 at most. It cannot
      tell a stack from objects x replicates whose replicates differ more than the objects
      (raters of very different leniency with 4 times the subjects' variance, members whose
      seed matters more than their input); Shrout and Fleiss' (1979) 6 x 4 judges give 2.05
      and pass (4 of their targets give 5.4: smaller matrices are not judged). With fewer
      than about 6 objects the F test has too little to tell, and a stack may pass unseen.
      Linear in the size of the matrix, judged on at most 512 evenly spaced rows and
      columns.

    Filter the warning category to say that an orientation is intended (the CLI:
    ``--transpose`` turns a file, and the warning names it).

    The message names the parameter ``name`` and how to turn it (``fix``, default
    ``name.T``); a surface names its file and option instead (``what``, ``option``, or
    :func:`described_as` around the call of the public function).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> objects = rng.normal(size=40)
    >>> wide = objects[None, :] + rng.normal(scale=0.1, size=(5, 40))   # 5 refits in rows
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_orientation(wide), check_orientation(wide.T)
    (True, False)
    """
    check_probabilities(matrix, name=name)
    if not looks_transposed(matrix, ratio=ratio):
        return False
    rows, columns = np.shape(matrix)
    if what is None:
        what, option = (_DESCRIBED.get() or {}).get(name, (None, option))
    if what is not None:
        remedy = f"if the file has them the other way round, add {option or '--transpose'}"
    else:
        what = f"`{name}`"
        remedy = (f"pass `{fix or name + '.T'}` (np.stack([m.predict(X) for m in members]) puts the members "
                  "in rows; np.column_stack puts them in columns); if the orientation is intended, "
                  "filter the warning: "
                  "warnings.filterwarnings('ignore', category=predstab.PredstabOrientationWarning)")
    warn_outside(f"{what} has {rows} rows and {columns} columns, and its values agree more down the "
                 "columns than along the rows: it looks transposed. Objects belong in rows and refits "
                 f"(members, raters) in columns; {remedy}", PredstabOrientationWarning)
    return True


#: one model's predict_proba has a column per class: only matrices this narrow are looked at, on at
#: most this many evenly spaced rows (a tall matrix costs microseconds; phi's 10^6 x 100 is not read)
_MAX_CLASSES, _PROBABILITY_ROWS = 32, 256


def check_probabilities(matrix, *, name="ratings") -> bool:
    """Warn (:class:`~predstab.PredstabDataWarning`) when every row of a matrix of 2 to 32
    columns holds numbers in [0, 1] that sum to 1 (within 1e-6; judged on at most 256 evenly
    spaced rows): the class probabilities of one model (``predict_proba``: classes in columns),
    not replicates of a prediction: every row's mean is 1/k, so ICC(1) is -1/(k - 1) for k
    classes, silently. Returns True when it
    warns."""
    shape = np.shape(matrix)
    if len(shape) != 2 or not 2 <= shape[1] <= _MAX_CLASSES or shape[0] < 2:
        return False
    sample = np.asarray(matrix)[_evenly(shape[0], _PROBABILITY_ROWS)]
    if sample.dtype.kind != "f":
        return False  # whole numbers: labels or counts (a row 0, 1 of two raters who disagree)
    with np.errstate(invalid="ignore"):
        if not (np.all((sample >= 0) & (sample <= 1)) and np.all(np.abs(sample.sum(axis=1) - 1) <= 1e-6)):
            return False
    warn_outside(f"every row of `{name}` sums to 1 ({shape[1]} columns of numbers in [0, 1]): it looks like "
                 "the class probabilities of one model (predict_proba: classes in columns), not replicates "
                 "(refits, members) in columns. For a classifier's members, give their predicted classes as "
                 "objects x members, or their predict_proba stacked as objects x members x classes "
                 "(TreePool.from_predictions)", PredstabDataWarning)
    return True


# ----------------------------------------------------------------------------- R's row names
def check_row_names(frame, *, name="ratings", column_names=True) -> bool:
    """Warn (:class:`~predstab.PredstabDataWarning`) when a DataFrame looks misread by
    ``pandas.read_csv``; return True when its first column is not a replicate (the orientation
    is then not judged: that column would decide it).

    - Its first column looks like row names read as data: named ``Unnamed: 0``
      (``pandas.read_csv`` of a file of R's ``write.csv`` or of pandas' ``to_csv``) or ``index``
      (``reset_index``), or holding exactly 1, 2, ..., n (R's default row names) or 0, 1, ...,
      n - 1 (pandas' default index) in a frame of 3 rows or more.
    - Its column names are all numbers (``8.747092``, ``0.1``), but not pandas' own ``0, 1,
      ..., k - 1`` nor ``1, ..., k``: the first row of a file without a header (R's
      ``write.table(col.names = FALSE)``) read as names, one object lost
      (:func:`check_column_names`).

    Only the first column and the names are looked at; ``column_names=False`` leaves the names
    alone (scores of methods, which may well be named by numbers: ``0.01``, ``0.1``)."""
    if column_names:
        check_column_names(frame, name=name)
    if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 2 or frame.shape[0] < 1:
        return False
    label = frame.columns[0]
    first = frame.iloc[:, 0]
    # pandas' names for an index written or reset as a column: read_csv's "Unnamed: 0", reset_index's "index"
    unnamed = isinstance(label, str) and (label.startswith("Unnamed: 0") or label == "index")
    start = None
    if not unnamed and frame.shape[0] >= 3 and pd.api.types.is_integer_dtype(first.dtype) \
            and not pd.api.types.is_bool_dtype(first.dtype):
        values = first.to_numpy(dtype=np.int64, na_value=-1)
        if values[0] in (0, 1) and np.array_equal(values, np.arange(values[0], values[0] + len(values))):
            start = int(values[0])
    if not unnamed and start is None:
        return False
    seen = (f"named {label!r}" if unnamed else
            f"{label!r}, holding {start}, {start + 1}, ..., {start + frame.shape[0] - 1},")
    warn_outside(f"the first column of `{name}` ({seen}) looks like row names read as data (pandas.read_csv "
                 "of a file R's write.csv wrote): it is read as data (one more replicate, rater or set of "
                 "values). Read the file with pd.read_csv(path, index_col=0) or predstab.read_table(path), "
                 "or drop the column", PredstabDataWarning)
    return True


def check_column_names(frame, *, name="ratings") -> bool:
    """Warn (:class:`~predstab.PredstabDataWarning`) when every column name of a DataFrame of 2
    columns or more is a number written as text, other than pandas' ``0, 1, ..., k - 1`` (its
    ``to_csv`` of an unnamed matrix) or ``1, ..., k``: ``pandas.read_csv`` of a file without a
    header took its first row of data as the names. Returns True when it warns."""
    if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 2:
        return False
    names = list(frame.columns)
    if not all(isinstance(c, str) for c in names):
        return False
    counted = [str(j) for j in range(len(names))]
    if names in (counted, [str(j + 1) for j in range(len(names))]):
        return False
    try:
        [float(c) for c in names]
    except ValueError:
        return False
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    warn_outside(f"the column names of `{name}` ({shown}) are numbers: pandas.read_csv read the first row of "
                 "a file without a header as the names, and that object is lost. Read the file with "
                 "pd.read_csv(path, header=None) or predstab.read_table(path)", PredstabDataWarning)
    return True


# ----------------------------------------------------------------------------- numbers and labels
def looks_continuous(distinct, n_values, *, min_fractional=10) -> bool:
    """Whether numbers with the distinct values ``distinct`` (in ``n_values`` cells) look like
    measurements rather than class labels: more than ``max(20, n_values / 2)`` distinct values,
    or more than ``min_fractional`` distinct values of which one is not whole. Text and
    booleans never look continuous."""
    distinct = np.asarray(distinct)
    if distinct.dtype.kind == "O":
        present = [v for v in distinct.tolist() if v is not None and v is not pd.NA]
        if not present or not all(isinstance(v, (int, float, np.integer, np.floating))
                                  and not isinstance(v, (bool, np.bool_)) for v in present):
            return False
        distinct = np.array(present, dtype=float)
    if distinct.dtype.kind not in "iuf":
        return False
    distinct = distinct[np.isfinite(distinct)] if distinct.dtype.kind == "f" else distinct
    many = distinct.size > max(20, n_values // 2)
    fractional = distinct.size > min_fractional and bool(np.any(distinct != np.round(distinct)))
    return bool(many or fractional)


def check_labels(distinct, n_values, *, name="ratings", use="icc() or krippendorff_alpha(scale='interval')"):
    """Warn (:class:`~predstab.PredstabDataWarning`) when a measure of categories is given
    numbers that look continuous (:func:`looks_continuous`): every distinct value would be a
    category of its own. ``distinct`` are the distinct values the measure found (no extra pass
    over the data); ``use`` names the measure or scale for numbers."""
    if not looks_continuous(distinct, n_values):
        return False
    distinct = np.asarray(distinct)
    shown = ", ".join(f"{float(v):.4g}" for v in distinct[:3].tolist())
    warn_outside(f"`{name}` looks continuous ({len(distinct)} distinct numbers in {n_values} values, e.g. "
                 f"{shown}, ...): each distinct number is read as a category of its own. For numbers use "
                 f"{use}; for classes, round or cut the values into classes first", PredstabDataWarning)
    return True



def numbers_if_numeric(values, *, name):
    """``values`` as a float array when they are numbers that arrive as labels would: a
    DataFrame of numeric (also nullable ``Int64`` / ``Float64``) columns, or an object array
    holding only numbers and missing values (None, NaN, pd.NA become NaN). Anything else is
    returned as an array, unchanged; complex numbers and dates raise a TypeError naming
    ``name`` (neither is a class label nor a real number here)."""
    if isinstance(values, (pd.DataFrame, pd.Series)):
        dtypes = list(values.dtypes) if isinstance(values, pd.DataFrame) else [values.dtype]
        if dtypes and all(pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d)
                          for d in dtypes):
            return values.to_numpy(dtype=float, na_value=np.nan)
        values = values.to_numpy()
    arr = np.asarray(unmask(values))
    if arr.dtype.kind in "cmM":
        raise TypeError(f"`{name}` must hold real numbers or class labels; got dtype {arr.dtype}.")
    if arr.dtype.kind == "O" and arr.size:
        missing = missing_mask(arr)
        present = arr[~missing]
        kind = pd.api.types.infer_dtype(present, skipna=True)
        if kind.startswith("complex") or kind in ("datetime", "datetime64", "date", "timedelta", "period"):
            raise TypeError(f"`{name}` must hold real numbers or class labels; got values of kind {kind!r}.")
        if kind in _NUMBER_KINDS and present.size:
            out = np.full(arr.shape, np.nan)
            out[~missing] = present.astype(float)
            return out
    return arr


# ----------------------------------------------------------------------------- masked arrays
def unmask(values):
    """A numpy masked array with its masked cells as missing values (None); anything else as
    given. The one rule for masks: a masked cell is a missing value, never the number under
    the mask (``np.asarray`` would keep it silently), so every reader calls this first and a
    masked cell is treated as the function treats a missing value (R's NA)."""
    if not isinstance(values, np.ma.MaskedArray):
        return values
    mask = np.ma.getmaskarray(values)
    if not mask.any():
        return np.ma.getdata(values)
    out = np.ma.getdata(values).astype(object)
    out[mask] = None
    return out


def refuse_masked(values, name, *, rows=False):
    """``values`` unchanged unless it is a masked array with masked cells, which a function that
    needs complete data refuses (a ValueError naming ``name`` and the count). ``rows``: ``values``
    is a matrix of features (one row per object), whose masked cells are dropped or imputed by
    rows, not compressed. A masked array without masked cells is its data."""
    if isinstance(values, np.ma.MaskedArray):
        n_masked = int(np.ma.getmaskarray(values).sum())
        if n_masked and rows:
            raise ValueError(f"`{name}` has {n_masked} masked value(s): a masked value is a missing value, "
                             "and a model is fitted and predicts on complete features; drop the rows with "
                             f"a masked value (from `{name}` and its responses) or impute them first.")
        if n_masked:
            raise ValueError(f"`{name}` has {n_masked} masked value(s): a masked value is a missing value, "
                             f"and this function needs complete data; drop them first ({name}.compressed(); "
                             "for paired values, drop each pair with a masked value from both arrays).")
        return np.ma.getdata(values)
    return values


# ----------------------------------------------------------------------------- ordered categoricals
def _ordered_dtype(values):
    """The ordered CategoricalDtype shared by every column of ``values``, else None."""
    if isinstance(values, pd.DataFrame):
        dtypes = set(values.dtypes)
        only = dtypes.pop() if len(dtypes) == 1 else None
    else:
        only = getattr(values, "dtype", None)
    return only if isinstance(only, pd.CategoricalDtype) and only.ordered else None


def ordered_categories(values):
    """The categories of an ordered pandas Categorical (a Series, or a frame whose columns share one
    ordered dtype) in their order, else None: the order a measure of ordered categories must use
    (weights, the cells above and below the diagonal), not the sorted one of their labels."""
    dtype = _ordered_dtype(values)
    return None if dtype is None else dtype.categories.tolist()


def check_categories_order(values, categories, *, name="ratings"):
    """Refuse an ordered pandas Categorical whose order ``categories`` contradicts: the categories
    both list must come in the same order (a ValueError naming both), else one of them would
    silently win. Nothing is checked when either is absent."""
    if categories is None or isinstance(categories, pd.CategoricalDtype):
        return
    dtype = _ordered_dtype(values)
    if dtype is None:
        return
    own = dtype.categories.tolist()
    given = list(np.asarray(categories, dtype=object).ravel().tolist())
    shared_own = [c for c in own if c in given]
    shared_given = [c for c in given if c in own]
    if shared_own != shared_given:
        raise ValueError(f"`categories` {given!r} contradicts the order of the ordered Categorical "
                         f"`{name}` {own!r}: one of the two orders would be ignored; give the categories "
                         "in the Categorical's order.")


# ----------------------------------------------------------------------------- targets
def check_responses(y, *, name="y", numbers=True):
    """``y`` as an array of observed responses to fit on, or a ValueError naming ``name``: no
    missing value (None, NaN, pd.NA, a masked cell), and for a regression (``numbers``) no
    infinite one. The message gives the count and the first rows, so that the user's line,
    not scikit-learn's "Input y contains NaN.", says what to fix."""
    y = np.asarray(unmask(y))  # a pandas Series: its values (pd.NA as an object)
    missing = missing_mask(y)
    if missing.any():
        rows = np.flatnonzero(missing.reshape(len(y), -1).any(axis=1) if y.ndim else missing)[:5].tolist()
        raise ValueError(f"`{name}` has {int(missing.sum())} missing value(s) (NaN / None), first at row(s) "
                         f"{rows}; a model cannot be fitted to them: drop those rows from `X` and `{name}`.")
    if numbers and y.dtype.kind not in "iufb":
        converted = numbers_if_numeric(y, name=name)
        if converted.dtype.kind not in "iufb":
            shown = ", ".join(repr(v) for v in list(dict.fromkeys(y.tolist()))[:3])
            raise ValueError(f"`{name}` must hold numbers for a regression; got {shown}, ... (class labels "
                             "need a classifier).")
        y = converted
    if numbers and y.dtype.kind == "f" and np.isinf(y).any():
        first = int(np.flatnonzero(np.isinf(y).reshape(len(y), -1).any(axis=1))[0])
        raise ValueError(f"`{name}` must hold finite values; got {int(np.isinf(y).sum())} infinite value(s), "
                         f"first at row {first}.")
    return y


def check_fit_data(X, y, X_test):
    """``X``, ``y`` and ``X_test`` -- the features and responses a model is fitted on and the
    features it predicts -- each as :func:`refuse_masked` with ``rows`` gives it: a masked cell
    is refused by the parameter's name (a model is fitted and predicts on complete data), a
    masked array without masked cells is its data, anything else (None too) as given; and a
    ``y`` of more than one dimension is refused by name (one response per training row: a
    scikit-learn ensemble fitted to several outputs has no one prediction per learner to tune)."""
    X, y, X_test = (refuse_masked(values, name, rows=True)
                    for values, name in ((X, "X"), (y, "y"), (X_test, "X_test")))
    if y is not None and np.ndim(y) != 1:
        shape = np.shape(y)
        hint = (" (one column: pass its values, y.ravel() or the column as a Series)" if shape[1:] == (1,)
                else "")
        raise ValueError(f"`y` must be one-dimensional (one response per training row); got shape "
                         f"{shape}{hint}.")
    return X, y, X_test


def check_target_kind(y, task, *, name="target", subject=None, unit="rows") -> None:
    """Check that a target suits ``task`` ("regression", "classification" or "ordinal"), in the
    user's words: a continuous target given to a class task (:func:`looks_continuous` with any
    fractional value), or text given to regression. ``subject`` names what is checked in the
    message (default "the target '<name>'"), ``unit`` what its values are counted in.

    Raises
    ------
    InputError

    Examples
    --------
    >>> try:
    ...     check_target_kind([0.5, -0.436, 1.25, 2.0, 3.5, 0.1], "classification")
    ... except InputError as exc:
    ...     print(str(exc)[:72])
    the target 'target' looks continuous (6 distinct numbers in 6 rows, e.g.
    """
    if task not in ("regression", "classification", "ordinal"):
        raise InputError(f"--task must be regression, classification or ordinal; got {task!r}")
    subject = f"the target '{name}'" if subject is None else subject
    values = pd.Series(np.asarray(y, dtype=object).ravel()).dropna()
    numbers = pd.to_numeric(values, errors="coerce")
    numeric = bool(len(values)) and not numbers.isna().any()
    if task == "regression":
        if not numeric:
            bad = values[numbers.isna()].astype(str).unique()[:3]
            raise InputError(f"{subject} holds text ({', '.join(map(repr, bad))}), not numbers: "
                             "--task regression needs a numeric target; use --task classification "
                             "(or --task ordinal with --levels) for categories")
        return
    if not numeric:
        return
    distinct = np.unique(numbers.to_numpy(dtype=float))
    if looks_continuous(distinct, len(values), min_fractional=0):
        shown = ", ".join(f"{v:.4g}" for v in distinct[:3])
        raise InputError(f"{subject} looks continuous ({distinct.size} distinct numbers in "
                         f"{len(values)} {unit}, e.g. {shown}, ...): --task {task} needs class labels; "
                         "use --task regression, or cut the target into classes first")
