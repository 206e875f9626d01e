"""Renamed keywords and attributes (issue 24, item 5): an old name raises an error naming the
new one, and every rename is listed in CHANGELOG.md."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import predstab
from predstab._core._results import Result, result
from predstab._core._validation import renamed_parameters, validate_params

CHANGELOG = (Path(__file__).resolve().parents[2] / "CHANGELOG.md").read_text(encoding="utf-8")
LISTED = set(re.findall(r"^- `([\w.]+)`: `(\w+)` -> `(\w+)`", CHANGELOG, flags=re.M))


def _public_callables():
    """Every public function, method and class of predstab and its public sub-packages."""
    seen = {}
    for module in (predstab, predstab.compare, predstab.plotting):
        for name in getattr(module, "__all__", dir(module)):
            obj = getattr(module, name, None)
            if inspect.isclass(obj):
                seen[obj.__qualname__] = obj
                for attr, member in vars(obj).items():
                    if callable(member) and not attr.startswith("_"):
                        seen[f"{obj.__qualname__}.{attr}"] = member
            elif callable(obj) and not inspect.ismodule(obj):
                seen[name] = obj
    return seen


CALLABLES = _public_callables()
RENAMED = sorted((name, old, new) for name, f in CALLABLES.items() if not inspect.isclass(f)
                 for old, new in getattr(f, "_renamed_parameters", {}).items())
NONE_YET = [pytest.param("-", "-", "-", marks=pytest.mark.skip(reason="no rename of this kind"))]
ATTRIBUTES = sorted((cls.__qualname__, old, new) for cls in CALLABLES.values()
                    if inspect.isclass(cls) and issubclass(cls, Result)
                    for old, new in cls.__dict__.get("_renamed_attributes", {}).items())


def test_a_renamed_keyword_names_the_new_one():
    @validate_params({"n_resamples": [int]}, renamed={"n_bootstrap": "n_resamples"})
    def declared(x, /, *, n_resamples=10):
        return n_resamples

    @renamed_parameters(levels="categories")
    def plain(x, /, *, categories=None):
        return categories

    assert declared(1, n_resamples=3) == 3 and plain(1, categories=[1]) == [1]
    with pytest.raises(TypeError, match=r"declared\(\) has no parameter `n_bootstrap`: it was renamed "
                                        r"`n_resamples` in predstab 0\.2\.0"):
        declared(1, n_bootstrap=3)
    with pytest.raises(TypeError, match=r"plain\(\) has no parameter `levels`: it was renamed `categories`"):
        plain(1, levels=[1])
    with pytest.raises(TypeError, match="unexpected keyword"):  # other mistakes: Python's own message
        plain(1, nonsense=2)
    with pytest.raises(ValueError, match="renamed parameters"):  # a rename to a parameter that is not there
        renamed_parameters(a="b")(lambda *, a=1: a)


def test_a_renamed_attribute_names_the_new_one():
    @result
    class R(Result):
        standard_error: float
        _renamed_attributes = {"se": "standard_error"}

    r = R(standard_error=0.5)
    assert r.standard_error == 0.5
    with pytest.raises(AttributeError, match=r"R\.se was renamed `standard_error`"):
        r.se  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        r.nothing  # noqa: B018
    assert not hasattr(r, "nothing") and np.isclose(r.standard_error, 0.5)


@pytest.mark.parametrize(("name", "old", "new"), RENAMED or NONE_YET)
def test_every_renamed_keyword_is_listed_in_the_changelog_and_raises(name, old, new):
    assert (name, old, new) in LISTED, f"CHANGELOG.md lacks the line: - `{name}`: `{old}` -> `{new}`"
    func = CALLABLES[name]
    assert new in inspect.signature(func).parameters
    with pytest.raises(TypeError, match=f"`{old}`: it was renamed `{new}`"):
        func(*([None] * _n_positional(func)), **{old: None})


def _n_positional(func):
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
               for p in inspect.signature(func).parameters.values())


@pytest.mark.parametrize(("name", "old", "new"), ATTRIBUTES or NONE_YET)
def test_every_renamed_attribute_is_listed_in_the_changelog(name, old, new):
    assert (name, old, new) in LISTED, f"CHANGELOG.md lacks the line: - `{name}`: `{old}` -> `{new}`"


def test_the_changelog_lists_no_rename_that_is_not_in_the_code():
    assert LISTED <= set(RENAMED) | set(ATTRIBUTES), sorted(LISTED - set(RENAMED) - set(ATTRIBUTES))
