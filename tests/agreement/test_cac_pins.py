"""Pins of ``agreement/_cac`` found by its mutation run (issue 33's mutation table): Conger's
kappa refuses a count table with an error naming the parameter, the value it needs and why.
"""

import re

import numpy as np
import pytest

import predstab


def test_conger_refuses_a_count_table_naming_counts_and_why():
    table = np.array([[2, 1], [1, 2], [3, 0]])  # objects x categories counts
    message = ("`counts` must be False for Conger's kappa: it needs each rater's ratings, which a "
               "count table does not keep (irrCAC has no conger.kappa.dist either).")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        predstab.conger_kappa(table, counts=True)
