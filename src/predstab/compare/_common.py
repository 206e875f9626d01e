"""What every function of ``predstab.compare`` shares: the reader of scores and counts, the
declared constraints of the common options, and the numpydoc pieces of their docstrings.

One reader (:func:`read_scores`) turns score vectors and tables into float arrays with the
package's message style ("`a` must ...; got ..."); the option parameters are declared
with :func:`predstab._core._validation.validate_params` using the constraints below, so a count is
an integer everywhere (``3.0`` is rejected, as by every other predstab function). The
parameters that several functions share are described once, in :data:`DOC` (filled into the
docstrings by :func:`predstab._core._docstrings.fill_doc`).
"""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np

from .._core._gate import check_row_names, refuse_masked
from .._core._validation import Interval, Options

__all__ = ["refuse_masked", "rng_keyword", "read_scores",
           "read_paired", "read_counts", "CONFIDENCE", "PROBABILITY",
           "COUNT", "ALTERNATIVE", "ALTERNATIVES", "alternative_name", "DOC"]

#: ``confidence_level``: a float in (0, 1)
CONFIDENCE = [Interval(Real, 0, 1, closed="neither")]
#: a probability or significance level in (0, 1)
PROBABILITY = [Interval(Real, 0, 1, closed="neither")]
#: a number of resamples or permutations
COUNT = [Interval(Integral, 1, None)]
ALTERNATIVES = ("two-sided", "greater", "less")
ALTERNATIVE = [Options(ALTERNATIVES)]

_R_ALTERNATIVE = {"two-sided": "two.sided", "greater": "greater", "less": "less"}


def rng_keyword(func, generator) -> dict:
    """``{"rng": generator}`` for SciPy >= 1.15, ``{"random_state": generator}`` before."""
    name = "rng" if "rng" in inspect.signature(func).parameters else "random_state"
    return {name: generator}


def alternative_name(alternative) -> str:
    """R's spelling of an alternative ("two.sided", "greater", "less")."""
    return _R_ALTERNATIVE[alternative]


def read_scores(values, name, *, ndim=1, min_size=1):
    """Scores as a finite float array (the one reader of ``predstab.compare``).

    ``ndim`` is the accepted number of dimensions (an int or a tuple of ints).

    Examples
    --------
    >>> read_scores([1, 2, 3], "a")
    array([1., 2., 3.])
    >>> read_scores([1, float("nan")], "a")
    Traceback (most recent call last):
    ...
    ValueError: `a` must not contain NaN or infinite values; got 1 such entries.

    A masked array's masked cells are missing values, which no test here takes: they are
    refused as NaN is (:func:`predstab._core._gate.refuse_masked`), never read as the numbers
    under the mask. A DataFrame of scores whose first column looks like R's row names read by
    ``pandas.read_csv`` (``Unnamed: 0``, or 1, 2, ..., n) gets the gate's warning
    (:func:`predstab._core._gate.check_row_names`): it would be one more method.
    """
    values = refuse_masked(values, name)
    if ndim != 1:  # a matrix of scores (datasets or tasks x methods or runs): R's row names read as a method
        check_row_names(values, name=name, column_names=False)
    try:
        if np.iscomplexobj(values):  # np.asarray would drop the imaginary part with only a warning
            raise TypeError
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be numeric scores; got {type(values).__name__}.") from None
    dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in dims:
        shown = " or ".join(str(d) for d in dims)
        raise ValueError(f"`{name}` must be {shown}-dimensional; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must not contain NaN or infinite values; got "
                         f"{int((~np.isfinite(arr)).sum())} such entries.")
    if arr.size < min_size:
        raise ValueError(f"`{name}` must have at least {min_size} scores; got {arr.size}.")
    return arr


def read_paired(a, b, *, ndim=1, min_size=2):
    """The scores of A and B, matched by position: two arrays of one shape (:func:`read_scores`)."""
    a = read_scores(a, "a", ndim=ndim, min_size=min_size)
    b = read_scores(b, "b", ndim=ndim, min_size=min_size)
    if a.shape != b.shape:
        raise ValueError(f"`a` and `b` must be paired (same shape); got {a.shape} and {b.shape}.")
    return a, b


def read_counts(values, name, *, square=True):
    """A table of non-negative whole counts as an int64 array (square unless ``square=False``)."""
    tab = np.asarray(values, dtype=object)
    if tab.ndim != 2 or (square and tab.shape[0] != tab.shape[1]) or min(tab.shape) < 2:
        raise ValueError(f"`{name}` must be a square k x k table of counts (k >= 2); got shape {tab.shape}.")
    counts = []
    for v in tab.ravel():
        ok = isinstance(v, (Real, np.number)) and not isinstance(v, (bool, np.bool_))
        if not ok or not np.isfinite(float(v)) or not float(v).is_integer() or v < 0:
            raise ValueError(f"`{name}` must hold non-negative whole counts; got {v!r}.")
        counts.append(int(v))
    return np.array(counts, dtype=np.int64).reshape(tab.shape)


#: numpydoc descriptions of the parameters several functions share (``%(name)s`` lines)
DOC = {
    "paired_scores": """\
a, b : array-like of shape (n,)
    Scores of A and B, matched by position (the same seed, split or data set). Every
    difference is B minus A.""",
    "alternative": """\
alternative : {"two-sided", "greater", "less"}, default "two-sided"
    "greater": B - A is larger than under the null (B is better when higher scores are
    better); "less": smaller.""",
    "confidence_level": """\
confidence_level : float, default 0.95
    Confidence level of the interval.""",
    "random_state": """\
random_state : None, int or numpy.random.Generator
    Source of the resamples: the same seed gives the same result; never the global
    generator.""",
    "significance": """\
significance : float, default 0.05
    Significance level of the test (scipy.stats.power's name; R's ``sig.level``).""",
    "power": """\
power : float, default 0.8
    Power to reach.""",
    "strict": """\
strict : bool, default True
    Count both rejection tails of a two-sided test (R's ``strict = TRUE``; ``False`` is
    R's default and ignores the far tail).""",
    "test": """\
test : {"two-sample", "one-sample", "paired"}, default "two-sample"
    R's ``type``.""",
    "sides": """\
alternative : {"two-sided", "one-sided"}, default "two-sided"
    A one-sided test looks for ``d > 0`` (B better than A).""",
    "higher_is_better": """\
higher_is_better : bool, default True
    Rank 1 goes to the highest score; ``False`` ranks the lowest first (error rates,
    and R's ``friedman.test`` ranks).""",
}

#: the design of a power or sample-size computation, in the order the signatures have it
DOC["power_design"] = "\n".join(DOC[name] for name in ("significance", "power", "strict", "test", "sides"))
