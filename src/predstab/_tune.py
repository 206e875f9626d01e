"""Stability against the number of learners: tune_num_learners and its result."""

from __future__ import annotations

import numpy as np

__all__ = ["runtime_model"]


def runtime_model(n, seconds, /):
    """Least-squares line ``seconds = intercept + slope * n`` (optRF's ``lm(time ~ n)``).

    Parameters
    ----------
    n, seconds : array-like of shape (n_points,)
        Numbers of learners and seconds per fit.

    Returns
    -------
    tuple of float
        ``(intercept, slope)``.

    Examples
    --------
    >>> runtime_model([100, 200, 300], [1.0, 2.0, 3.0])
    (0.0, 0.01)
    """
    n = np.asarray(n, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    design = np.column_stack([np.ones_like(n), n])
    (intercept, slope), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    return float(intercept), float(slope)
