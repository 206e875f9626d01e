"""Long-format ratings (one row per object, rater and value) to an (objects x raters) matrix."""

from __future__ import annotations

from numbers import Integral

import pandas as pd

from ._validation import validate_params

__all__ = ["ratings_from_long"]


def _ratings_from_long_iv(data, object, rater, value):
    if not isinstance(data, pd.DataFrame):
        raise TypeError("`data` must be a pandas DataFrame with one row per rating; "
                        f"got {type(data).__name__}.")
    for param, column in (("object", object), ("rater", rater), ("value", value)):
        if column not in data.columns:
            raise ValueError(f"`{param}` must name a column of `data`; got {column!r} "
                             f"(columns: {list(data.columns)}).")
    if len({object, rater, value}) < 3:
        raise ValueError("`object`, `rater` and `value` must name three different columns; "
                         f"got {object!r}, {rater!r} and {value!r}.")
    keys = data[[object, rater]]
    no_key = keys.isna().any(axis=1)
    if no_key.any():
        first = data.index[no_key.to_numpy()][0]
        raise ValueError(f"`data` has {int(no_key.sum())} row(s) without an object or a rater (first at "
                         f"index {first!r}); a rating must say which object it rates and who rated it.")
    duplicated = keys.duplicated(keep=False)
    if duplicated.any():
        pairs = keys[duplicated].drop_duplicates()
        shown = ", ".join(f"({o!r}, {r!r})" for o, r in pairs.head(5).itertuples(index=False))
        raise ValueError(
            f"`data` rates {len(pairs)} (object, rater) pair(s) more than once ({int(duplicated.sum())} "
            f"rows), e.g. {shown}; one rating per object and rater is expected. Keep one "
            "(drop_duplicates) or aggregate them yourself: pivot_table would silently average them."
        )
    return data, object, rater, value


@validate_params({"object": [str, Integral], "rater": [str, Integral], "value": [str, Integral]})
def ratings_from_long(data, /, *, object="object", rater="rater", value="value"):
    """An (objects x raters) rating matrix from long-format ratings.

    ``data.pivot(index=object, columns=rater, values=value)`` with the checks pandas does not
    make: every rating names its object and rater, and no (object, rater) pair is rated twice
    (``pivot`` raises an unspecific "Index contains duplicate entries"; ``pivot_table`` averages
    the duplicates without a word). Missing ratings stay missing (NaN): an absent row and a row
    whose value is missing both give an empty cell, which :func:`icc_reml`,
    :func:`krippendorff_alpha` and irrCAC's coefficients use as such (the complete-data
    functions drop such objects with a warning).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per rating.
    object, rater, value : str or int, default "object", "rater", "value"
        The columns holding the object, the rater and the rating.

    Returns
    -------
    pandas.DataFrame
        Objects in rows and raters in columns, both sorted (as ``pivot`` sorts them); an object
        or rater that appears only with missing values keeps its row or column.

    Raises
    ------
    ValueError
        When a column is not found, an object or rater is missing, or a pair is rated twice
        (the message names the pairs).

    Notes
    -----
    An object that never appears in ``data`` has no row: psych's ``n.obs`` (and so the degrees
    of freedom of :func:`icc_reml`) counts the rows of the matrix, so keep such objects as rows
    with missing values (``.reindex(all_objects)``) if they belong to the design.

    Examples
    --------
    >>> import pandas as pd
    >>> from predstab import ratings_from_long
    >>> long = pd.DataFrame({"object": [1, 1, 2, 2, 3], "rater": ["a", "b", "a", "b", "b"],
    ...                      "value": [4.0, 5.0, 2.0, None, 3.0]})
    >>> ratings_from_long(long)
    rater     a    b
    object
    1       4.0  5.0
    2       2.0  NaN
    3       NaN  3.0
    """
    data, object, rater, value = _ratings_from_long_iv(data, object, rater, value)
    return data.pivot(index=object, columns=rater, values=value)
