"""Shared fixtures of the compare tests: B = A + delta, and one result of every public function."""

import warnings

import numpy as np
import pytest

from predstab import compare
from tests.compare._examples import CALLS

#: how much better B is than A in the direction tests
DELTA = 0.05


@pytest.fixture(scope="session")
def shifted_scores():
    """``(a, b, delta)``: twelve scores of A and ``b = a + delta + e`` with a zero-mean jitter
    ``|e| < delta / 2``, so that every paired difference is positive, its mean is exactly
    ``delta`` and the paired tests have a spread (``b = a + delta`` exactly has none)."""
    rng = np.random.default_rng(24)
    a = 0.8 + 0.03 * rng.standard_normal(12)
    jitter = rng.uniform(-1.0, 1.0, 12) * DELTA / 4
    jitter -= jitter.mean()
    return a, a + DELTA + jitter, DELTA


@pytest.fixture(scope="session")
def example_results():
    """``{function name: result}`` of the valid call of every public function (``CALLS``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {name: getattr(compare, name)(*args, **kwargs) for name, (args, kwargs) in CALLS.items()}
