"""Fixtures shared by the tests of the surfaces: the command line, the plots, the demo, and
files in and out (``tests/surfaces/_cli.py`` runs the command).

Figures drawn through pyplot (a result's ``.plot()`` into pyplot's current figure, the Agg
backend: no display needed) are closed after every test.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


@pytest.fixture
def train_csv(tmp_path):
    """``train.csv``: 60 objects, features a, b, c and a metric target y = a + 2b + 3c + noise,
    a training file for ``predstab tune ... --target y`` that fits in a second."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=list("abc"))
    frame["y"] = X @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    path = tmp_path / "train.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def stability_files(tmp_path):
    """A folder holding ``pred.csv`` (8 objects x 5 refits, metric, named columns) and
    ``train.csv`` (20 training responses, column y): the input of ``predstab stability``."""
    rng = np.random.default_rng(3)
    pred = pd.DataFrame(rng.normal(size=(8, 5)), columns=[f"fit{j}" for j in range(5)])
    pred.to_csv(tmp_path / "pred.csv", index=False)
    pd.DataFrame({"y": rng.normal(size=20)}).to_csv(tmp_path / "train.csv", index=False)
    return tmp_path
