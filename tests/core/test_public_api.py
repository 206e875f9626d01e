"""Every public name resolves to an object defined in one private module."""

import importlib
import inspect

import pytest

import predstab


@pytest.mark.parametrize("name", sorted(predstab._EXPORTS))
def test_public_name_resolves(name):
    obj = getattr(predstab, name)
    assert obj.__module__ == "predstab" + predstab._EXPORTS[name]
    assert obj.__doc__, f"{name} has no docstring"


@pytest.mark.parametrize("name", predstab._SUBMODULES)
def test_submodules_import(name):
    assert importlib.import_module(f"predstab.{name}") is getattr(predstab, name)


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no attribute"):
        predstab.no_such_thing  # noqa: B018


# ------------------------------------------------------------------------------- names (issue 12)
# `confidence_level` for a confidence level (never conf_level, or level); `level` only for a
# measurement level; `n_learners` for the number of learners (never n_trees / num_trees).
OLD_NAMES = {"conf_level": "confidence_level", "n_trees": "n_learners", "num_trees": "n_learners",
             "ntree": "n_learners"}
# functions whose `level` is a level of measurement (iota: "quantitative" or "nominal", irr's scaledata)
MEASUREMENT_LEVEL = {"krippendorff_alpha", "iota"}
# parameters of functions renamed on other branches: the merge empties this
PENDING_NAMES: set = set()  # every old name is gone


def test_one_name_per_idea():
    from tests.core.test_param_registry import FUNCTIONS

    found = set()
    for name, func in FUNCTIONS.items():
        for param in inspect.signature(func).parameters:
            if param in OLD_NAMES or (param == "level" and name not in MEASUREMENT_LEVEL):
                found.add((name, param))
    assert found - PENDING_NAMES == set(), "use confidence_level / n_learners / level (measurement only)"
    assert PENDING_NAMES - found == set(), "renamed now: remove from PENDING_NAMES"
