"""What the agreement tests share: the published Shrout & Fleiss table, the R reference cases and a
call that silences predstab's warnings (where a test checks values, not warnings)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from validation._table import REFERENCE

# Shrout & Fleiss (1979), table 2: 6 targets rated by 4 judges
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
                          [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def quiet(func, *args, **kw):
    """``func(*args, **kw)`` with every warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kw)


def classic_case(name):
    """A matrix of ``validation/r-reference/classic/cases`` as R wrote it (objects x raters)."""
    return pd.read_csv(REFERENCE / "classic" / "cases" / f"{name}.csv").to_numpy()


@pytest.fixture
def shrout_fleiss():
    """A fresh copy of :data:`SHROUT_FLEISS` (a test may change it)."""
    return SHROUT_FLEISS.copy()
