"""Every public function declares its options, and every declaration rejects what it should.

For every public function of ``predstab`` and ``predstab.compare`` (and every public method of
a public class that takes parameters):

- it is declared with ``@validate_params`` or listed in ``tests/_registry.PENDING`` (declared on
  another branch), never neither;
- every parameter that is not data (``tests/_registry.DATA``) has a declared constraint;
- each invalid value generated from the declarations (``Constraint.invalid_values()``), put in a
  valid call (``tests/_registry.CALLS``), raises ``InvalidParameterError`` naming the parameter in
  backticks.
"""

from __future__ import annotations

import inspect
import re
import warnings

import pytest

import predstab
from predstab._core._validation import InvalidParameterError
from tests._registry import CALLS, DATA, NOT_REGISTERED_CLASSES, PENDING, TARGETS


def _public_functions():
    """``{name: function}``: public functions and public methods (with parameters) of public classes."""
    import predstab.compare

    out = {}
    for module, prefix in ((predstab, ""), (predstab.compare, "compare.")):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                out[prefix + name] = obj
            elif inspect.isclass(obj) and name not in NOT_REGISTERED_CLASSES:
                for method_name, method in vars(obj).items():
                    if method_name.startswith("_") or not inspect.isfunction(method):
                        continue
                    params = list(inspect.signature(method).parameters)[1:]  # without self
                    if params:
                        out[f"{prefix}{name}.{method_name}"] = method
    return out


FUNCTIONS = _public_functions()


def _declared(func):
    return getattr(func, "_parameter_constraints", None) is not None


def _target(name):
    return TARGETS[name]() if name in TARGETS else CALLS[name][0]


def test_every_public_function_is_declared_or_pending():
    undeclared = sorted(n for n, f in FUNCTIONS.items() if not _declared(f) and n not in PENDING)
    assert not undeclared, f"public functions with neither @validate_params nor a PENDING entry: {undeclared}"
    done = sorted(n for n in PENDING if n in FUNCTIONS and _declared(FUNCTIONS[n]))
    assert not done, f"declared now: move {done} from PENDING to CALLS in tests/_registry.py"
    stale = sorted(PENDING - set(FUNCTIONS))
    assert not stale, f"PENDING names that are not public functions: {stale}"


def test_every_declared_function_has_a_valid_example_call():
    missing = sorted(n for n, f in FUNCTIONS.items() if _declared(f) and n not in CALLS)
    assert not missing, f"add a valid call of {missing} to CALLS in tests/_registry.py"
    for name in CALLS:
        assert _target(name) is FUNCTIONS[name], name


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_example_call_is_valid(name):
    func, args, kwargs = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        func(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_option_parameter_is_declared(name):
    func = _target(name)
    signature = inspect.signature(func)
    params = [p for p in signature.parameters.values()
              if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    declared = set(func._parameter_constraints)
    data = DATA.get(name, set())
    undeclared = [p.name for p in params if p.name not in declared and p.name not in data]
    assert not undeclared, f"{name}: parameters without a declared constraint: {undeclared}"
    assert not (declared & data), f"{name}: {sorted(declared & data)} are listed as data but declared"


def _invalid_cases():
    for name in sorted(CALLS):
        for param, constraints in _target(name)._parameter_constraints.items():
            seen = []
            for constraint in constraints:
                for value in constraint.invalid_values():
                    if any(c.is_satisfied_by(value) for c in constraints):
                        continue  # another accepted form takes it (e.g. None or an option)
                    if any(value is v or (type(value) is type(v) and repr(value) == repr(v)) for v in seen):
                        continue
                    seen.append(value)
                    yield pytest.param(name, param, value, id=f"{name}-{param}-{_stable_repr(value):.30}")


def _call_with(name, param, value):
    func, args, kwargs = CALLS[name]
    target = _target(name)
    signature = inspect.signature(target)
    positional = [p.name for p in signature.parameters.values()
                  if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    args = list(args)
    kwargs = dict(kwargs)
    if param in positional and positional.index(param) < len(args):
        args[positional.index(param)] = value
    elif signature.parameters[param].kind is inspect.Parameter.POSITIONAL_ONLY:
        args += [None] * (positional.index(param) - len(args)) + [value]  # cannot happen for options
    else:
        kwargs[param] = value
    return func(*args, **kwargs)


def _stable_repr(value):
    """``repr`` without memory addresses: the same test ids in every process (pytest-xdist's
    workers must collect the same tests)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


INVALID = list(_invalid_cases())


def test_invalid_values_are_generated_for_every_declared_parameter():
    covered = {(case.values[0], case.values[1]) for case in INVALID}
    for name in CALLS:
        for param in _target(name)._parameter_constraints:
            assert (name, param) in covered, f"{name}: no invalid value generated for `{param}`"


@pytest.mark.parametrize("name, param, value", INVALID)
def test_an_invalid_value_raises_naming_the_parameter(name, param, value):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidParameterError) as info:
            _call_with(name, param, value)
    assert f"`{param}`" in str(info.value), str(info.value)
    # the one message style: "`name` must ...; got ..."
    assert str(info.value).startswith(f"`{param}` must"), str(info.value)


def _warning_cases():
    import numpy as np
    import pandas as pd

    m = np.array([[1.0, 2, 3], [np.nan, 1, 2], [3, 4, 5], [2, 2, 2]])
    return {
        "icc drops an object": lambda: predstab.icc(m),
        "icc_table drops an object": lambda: predstab.icc_table(m),
        "icc_reml with an empty row": lambda: predstab.icc_reml(np.vstack([m, [np.nan] * 3])),
        "icc_reml of constant ratings": lambda: predstab.icc_reml([[2.0, 2.0], [2.0, np.nan], [2.0, 2.0]]),
        "icc_reml of additive ratings": lambda: predstab.icc_reml([[1.0, 2.0], [2.0, 3.0], [4.0, np.nan],
                                                                   [0.0, 1.0]]),
        "fleiss_kappa drops an object": lambda: predstab.fleiss_kappa(m),
        "fleiss_kappa of categoricals": lambda: predstab.fleiss_kappa(pd.DataFrame(m).astype("category")),
        "alpha without pairable unit": lambda: predstab.krippendorff_alpha([[1, np.nan], [np.nan, 2]]),
        "alpha of a constant matrix": lambda: predstab.krippendorff_alpha([[1, 1], [1, 1]]),
        "no recommendation": lambda: predstab.fit_2pl([100, 200, 400, 800, 1600],
                                                      [0.9, 0.8, 0.7, 0.6, 0.5]).recommend(),
        "importance of constant importances": lambda: predstab.importance_stability(np.ones((4, 3)),
                                                                                     fraction=0.5),
    }


@pytest.mark.parametrize("case", sorted(_warning_cases()))
def test_warnings_point_at_the_caller_through_the_validate_params_wrapper(case):
    """The wrapper adds a frame: every stacklevel in a declared function counts it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _warning_cases()[case]()
    ours = [w for w in caught if issubclass(w.category, predstab.PredstabWarning)]
    assert ours
    assert all(w.filename == __file__ for w in ours), [(w.filename, w.lineno) for w in ours]
