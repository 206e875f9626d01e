"""Every public name resolves to an object defined in one private module."""

import importlib

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
